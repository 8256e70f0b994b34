// Per-worker flow tables keyed by the bidirectional IP 5-tuple.
//
//   FlowKey k; bool reversed;
//   if (flow_key(p, k, reversed)) {
//     auto* e = table.lookup(k, now_ns, /*insert=*/true);   // nullptr: table full
//   }
//
// flow_key() orders the two endpoints so that both directions of a flow give the same
// key (`reversed` says which direction this packet went). FlowTable<V> is a bounded
// open-addressing table owned by one worker: a fixed power-of-two array allocated at
// configuration time, linear probing over a short window, entries idle for longer than
// the timeout are reused in place. Nothing is allocated on the packet path; when the
// window holds only live flows of other keys, a new flow is not admitted (nullptr).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "lib/fields.hh"

namespace obi::blocks {

struct FlowKey {
  u128 addr_lo = 0, addr_hi = 0;  // the two addresses (IPv4 in the low 32 bits)
  uint16_t port_lo = 0, port_hi = 0;
  uint8_t proto = 0, ipv6 = 0;
  uint16_t pad = 0;
  bool operator==(const FlowKey& o) const {
    return addr_lo == o.addr_lo && addr_hi == o.addr_hi && port_lo == o.port_lo && port_hi == o.port_hi &&
           proto == o.proto && ipv6 == o.ipv6;
  }
  uint64_t hash() const;
};

// False for frames without an IPv4/IPv6 header. Ports are 0 for protocols without them
// and for non-first fragments.
bool flow_key(Packet& p, FlowKey& key, bool& reversed);

template <typename V>
class FlowTable {
 public:
  struct Entry {
    FlowKey key;
    uint64_t last_ns = 0;
    bool used = false;
    V value{};
  };

  static constexpr unsigned kProbe = 8;

  FlowTable(uint32_t capacity, uint64_t timeout_ns) : timeout_ns_(timeout_ns) {
    uint32_t n = 16;
    while (n < capacity && n < (1u << 30)) n <<= 1;
    mask_ = n - 1;
    entries_.reset(new Entry[n]);
  }

  // The entry of `k` (refreshed to now_ns), or with insert a new one (value reset to V{}
  // and `created` set); nullptr when absent / no room.
  Entry* lookup(const FlowKey& k, uint64_t now_ns, bool insert, bool* created = nullptr) {
    const uint64_t h = k.hash();
    Entry* free_slot = nullptr;
    for (unsigned i = 0; i < kProbe; ++i) {
      Entry& e = entries_[(h + i) & mask_];
      if (e.used && e.key == k) {
        if (expired(e, now_ns)) {
          e.value = V{};
          if (created) *created = true;
        } else if (created) *created = false;
        e.last_ns = now_ns;
        return &e;
      }
      if (!free_slot && (!e.used || expired(e, now_ns))) free_slot = &e;
    }
    if (!insert || !free_slot) return nullptr;
    if (!free_slot->used) live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    free_slot->used = true;
    free_slot->key = k;
    free_slot->last_ns = now_ns;
    free_slot->value = V{};
    if (created) *created = true;
    return free_slot;
  }

  // Entries ever occupied and not yet reused (an upper bound of the live flows).
  uint64_t occupied() const { return live_.load(std::memory_order_relaxed); }
  uint32_t capacity() const { return mask_ + 1; }
  uint64_t timeout_ns() const { return timeout_ns_; }

 private:
  bool expired(const Entry& e, uint64_t now_ns) const { return now_ns > e.last_ns && now_ns - e.last_ns > timeout_ns_; }

  uint64_t timeout_ns_;
  uint32_t mask_ = 0;
  std::unique_ptr<Entry[]> entries_;
  std::atomic<uint64_t> live_{0};
};

}  // namespace obi::blocks
