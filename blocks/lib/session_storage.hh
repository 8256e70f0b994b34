// Session storage shared by SessionStore (writes) and SessionClassifier (reads), spec
// 5.28-5.29: per worker, a bounded flow table keyed by the bidirectional 5-tuple whose
// entries hold up to kMaxKeys (key, value, mask) triples.
//
// The two blocks are separate elements that never see each other, so the storage is one
// process-wide object: key names are interned to small ids on the control thread (at
// configuration), and each worker's table is created once, on first configuration of a
// block for that many workers, and never freed, so a running worker never sees it move.
// Traffic is spread over workers by a symmetric flow hash, so a flow's session lives in
// the table of the worker that handles the flow. Sessions idle for 300 s are reused.
#pragma once

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "lib/flow_table.hh"

namespace obi::blocks {

struct SessionValues {
  static constexpr unsigned kMaxKeys = 6;
  struct KV {
    u128 value = 0, mask = 0;
    uint16_t key = 0;
  };
  KV kv[kMaxKeys];
  uint8_t n = 0;

  const KV* find(uint16_t key) const {
    for (unsigned i = 0; i < n; ++i)
      if (kv[i].key == key) return &kv[i];
    return nullptr;
  }
  // Stores (overwrites) a key; false when all slots hold other keys.
  bool put(uint16_t key, u128 value, u128 mask) {
    for (unsigned i = 0; i < n; ++i)
      if (kv[i].key == key) {
        kv[i].value = value;
        kv[i].mask = mask;
        return true;
      }
    if (n == kMaxKeys) return false;
    kv[n++] = KV{value, mask, key};
    return true;
  }
};

class SessionStorage {
 public:
  static constexpr unsigned kMaxWorkers = 256;
  static constexpr uint32_t kCapacity = 16384;  // sessions per worker
  static constexpr uint64_t kTimeoutNs = 300ull * 1'000'000'000ull;

  static SessionStorage& instance();

  uint16_t key_id(const std::string& key);  // control thread
  void ensure_workers(unsigned workers);    // control thread
  FlowTable<SessionValues>& table(unsigned worker) { return *tables_[worker].load(std::memory_order_acquire); }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, uint16_t> keys_;
  std::array<std::atomic<FlowTable<SessionValues>*>, kMaxWorkers> tables_{};
};

}  // namespace obi::blocks
