// QueueCore: the FIFO behind Queue and FrontDropQueue (spec 5.18, 5.19).
//
// Packets stay on the worker that received them: each worker has its own bounded ring
// of `capacity` packets, filled by push() and emptied by run_task(), which releases up
// to kReleasePerTask packets in batches each time the worker calls it. A full ring drops
// the arriving packet (Queue) or its oldest packet (FrontDropQueue). Handles sum the
// workers: length, drops, highwater_length (the largest of the workers' high-water
// marks). The `reset` handle is carried out by each worker on its next push or task run,
// because only the worker may return its packets to its pool. release() (a swap that
// removes the block, or the runtime stopping) hands every held packet on at once.
#pragma once

#include <atomic>

#include "engine/element.hh"
#include "modify/packet_ring.hh"

namespace obi::modify {

class QueueCore : public Element {
 public:
  static constexpr uint32_t kReleasePerTask = 2 * kBatchSize;

  QueueCore(const ElementArgs& args, bool drop_front);

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
    std::atomic<uint32_t> highwater{0};
    uint64_t reset_seen = 0;
  };
  void check_reset(Slot& s, Context& ctx);

  const bool drop_front_;
  uint32_t capacity_;
  std::atomic<uint64_t> reset_gen_{0};
  PerWorker<Slot> slots_;
};

}  // namespace obi::modify
