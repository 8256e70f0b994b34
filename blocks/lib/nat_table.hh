// NatTable: one worker's mapping table for Ipv4AddressTranslator (spec 5.13).
//
// A flow holds two mappings, forward (the tuple that created it) and reply, each
// with the tuple to rewrite the packet to and the output port. Flows live in an array
// allocated once (at most `max_flows`); an open-addressing index (linear probing,
// backward-shift deletion, load <= 1/2) maps a 5-tuple to (flow, direction). Nothing
// allocates after init(). Expired flows are removed lazily when a lookup meets them,
// by reap() sweeps, and by eviction when the table is full (an expired flow first, then
// one whose guarantee time has passed; flows still under guarantee are never evicted).
//
// Only the owning worker mutates the table. The control thread may take a snapshot
// (for the tcp_mappings / udp_mappings handles) through atomic loads of the flow words;
// a flow that changes during the snapshot may be shown half-updated, never crash it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace obi::blocks {

struct FlowKey {
  uint32_t sa = 0, da = 0;
  uint16_t sp = 0, dp = 0;
  uint8_t proto = 0;

  uint64_t w0() const { return uint64_t(sa) << 32 | da; }
  uint64_t w1() const { return uint64_t(sp) << 24 | uint64_t(dp) << 8 | proto; }
  static FlowKey from(uint64_t w0, uint64_t w1) {
    return FlowKey{uint32_t(w0 >> 32), uint32_t(w0), uint16_t(w1 >> 24), uint16_t(w1 >> 8), uint8_t(w1)};
  }
  FlowKey reversed() const { return FlowKey{da, sa, dp, sp, proto}; }
  bool operator==(const FlowKey& o) const { return w0() == o.w0() && w1() == o.w1(); }
};

struct NatFlow {
  // Words the snapshot reads (through std::atomic_ref): keys and rewrites per direction,
  // and meta = live bit (63) | forward output (16..31) | reply output (0..15).
  uint64_t key[2][2];
  uint64_t rewrite[2][2];
  uint64_t meta;
  uint64_t expiry_ns;
  uint64_t guarantee_ns;
  uint32_t hash[2];
  uint32_t packets;
  uint8_t state;  // kSeen0/1, kData0/1, kDone

  static constexpr uint64_t kLive = 1ull << 63;
  static constexpr uint8_t kSeen0 = 1, kSeen1 = 2, kData0 = 4, kData1 = 8, kDone = 16;

  FlowKey rewrite_to(unsigned dir) const { return FlowKey::from(rewrite[dir][0], rewrite[dir][1]); }
  uint16_t output(unsigned dir) const { return uint16_t(dir == 0 ? meta >> 16 : meta); }
};

class NatTable {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;

  void init(uint32_t max_flows);
  uint32_t allocated() const { return max_flows_; }
  uint32_t count() const { return count_.load(std::memory_order_relaxed); }

  // The live flow holding mapping `k`, and its direction; kNone when absent. A flow
  // found expired at `now` is removed and reported absent.
  uint32_t find(const FlowKey& k, uint64_t now, unsigned& dir);
  // Installs a flow (both mappings); kNone when `limit` flows are live and none may be
  // evicted. The caller ensures neither key is present.
  uint32_t insert(const FlowKey& fwd, const FlowKey& fwd_to, uint16_t fout, const FlowKey& rev, const FlowKey& rev_to,
                  uint16_t rout, uint64_t now, uint32_t limit);
  void erase(uint32_t flow);
  NatFlow& flow(uint32_t f) { return flows_[f]; }

  // Removes expired flows among the next `budget` slots; returns true when the sweep
  // has wrapped around the whole array.
  bool reap(uint64_t now, uint32_t budget);

  // Control thread: "(SA, SP, DA, DP) => (SA', SP', DA', DP') [*F R]" lines for `proto`.
  std::string describe(uint8_t proto) const;

 private:
  uint32_t slot_of(const FlowKey& k, uint32_t h) const;
  void index_insert(uint32_t entry, uint32_t h);
  void index_erase(uint32_t entry, uint32_t h);
  bool evict(uint64_t now);

  std::unique_ptr<NatFlow[]> flows_;
  std::unique_ptr<uint32_t[]> free_;  // stack of free flow numbers
  uint32_t free_top_ = 0;
  std::unique_ptr<uint32_t[]> index_;  // 0 empty, else (flow << 1 | dir) + 1
  uint32_t mask_ = 0;
  uint32_t max_flows_ = 0;
  uint32_t hand_ = 0;  // eviction clock hand
  uint32_t reap_pos_ = 0;
  std::atomic<uint32_t> count_{0};
};

uint32_t hash_key(const FlowKey& k);

}  // namespace obi::blocks
