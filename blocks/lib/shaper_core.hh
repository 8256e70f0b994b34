// ShaperCore: the token-bucket shaper behind BpsShaper and PpsShaper (spec 5.21, 5.22).
//
// All workers running the block share one TokenBucket (lib/token_bucket.hh), so the
// configured rate holds for the block as a whole. A packet that conforms on arrival,
// with no packet of its worker waiting, passes at once; any other packet waits in its
// worker's bounded FIFO (`capacity`, default 1000) and leaves, in order, from run_task()
// once the bucket allows it. A packet arriving at a full FIFO is dropped and counted.
// Time is ctx.now_ns. The cost of a packet is units(p): its length in bytes for
// BpsShaper, 1 for PpsShaper. release() (a swap that removes the block, or the runtime
// stopping) hands every waiting packet on at once, without taking tokens.
#pragma once

#include <atomic>

#include "engine/element.hh"
#include "lib/packet_ring.hh"
#include "lib/token_bucket.hh"

namespace obi::blocks {

class ShaperCore : public Element {
 public:
  ShaperCore(const ElementArgs& args, bool bytes);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  bool has_task() const override { return true; }
  void run_task(Context& ctx, const Outputs& out) override;
  void release(Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  // Packets waiting in the workers' FIFOs (what the "length" handle reports).
  uint64_t held_packets() const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Slot {
    PacketRing ring;
    Counter drops;
  };
  uint64_t units(const Packet& p) const { return bytes_ ? p.len : 1; }
  void send_conforming(Slot& s, Context& ctx, const Outputs& out);

  const bool bytes_;
  uint32_t capacity_;
  TokenBucket bucket_;
  PerWorker<Slot> slots_;
};

}  // namespace obi::blocks
