// QueueCore: the FIFO behind Queue and FrontDropQueue (spec 5.18, 5.19).
//
// The per-worker rings, their release and the handles (length, drops, highwater_length,
// capacity, reset_counts, reset) are lib/worker_fifo.hh's; a full ring drops the
// arriving packet (Queue) or its oldest packet (FrontDropQueue).
#pragma once

#include <atomic>

#include "engine/element.hh"
#include "lib/worker_fifo.hh"

namespace obi::blocks {

class QueueCore : public Element {
 public:
  static constexpr uint32_t kReleasePerTask = WorkerFifo::kReleasePerTask;

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
  const bool drop_front_;
  WorkerFifo fifo_;
};

}  // namespace obi::blocks
