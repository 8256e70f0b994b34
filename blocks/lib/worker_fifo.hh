// WorkerFifo: the per-worker packet FIFOs of the queue blocks (Queue, FrontDropQueue via
// QueueCore; RandomEarlyDetectionQueue).
//
// Packets stay on the worker that received them: each worker has its own bounded ring of
// `capacity` packets (allocated here, once), filled by the block's push and emptied by
// release_some() from the worker's task, at most kReleasePerTask packets per run in
// batches, in arrival order. release_all() (a swap that removes the block, or the runtime
// stopping) hands every held packet on at once.
//
// Handles (read_handle / write_handle; false for other names): length (packets held, all
// workers), drops (what the block counted with add_drops), highwater_length (largest of
// the workers' high-water marks), capacity; reset_counts (zero drops and high-water
// marks), reset (drop every held packet). A reset is carried out by each worker on its
// next ring() call, because only the worker may return its packets to its pool.
//
//   PacketRing& r = fifo_.ring(ctx);            // in push: pending reset done
//   ... r.push(p) / count drops ...
//   fifo_.after_push(ctx.worker, dropped);      // drops and high-water mark
//   fifo_.release_some(ctx, out, 0);            // in run_task
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "lib/packet_ring.hh"

namespace obi::blocks {

class WorkerFifo {
 public:
  static constexpr uint32_t kReleasePerTask = 2 * kBatchSize;

  WorkerFifo(unsigned workers, uint32_t capacity);

  // The worker's ring, with a pending reset carried out first.
  PacketRing& ring(Context& ctx) {
    Slot& s = slots_[ctx.worker];
    const uint64_t gen = reset_gen_.load(std::memory_order_acquire);
    if (s.reset_seen != gen) {
      s.reset_seen = gen;
      while (!s.ring.empty()) ctx.drop(s.ring.pop());
    }
    return s.ring;
  }
  // After a push into ring(): counts `dropped` packets and updates the high-water mark.
  void after_push(unsigned worker, uint32_t dropped) {
    Slot& s = slots_[worker];
    if (dropped) s.drops.add(dropped);
    if (s.ring.size() > s.highwater.load(std::memory_order_relaxed))
      s.highwater.store(s.ring.size(), std::memory_order_relaxed);
  }
  // Emits up to kReleasePerTask held packets of this worker on output `port`.
  void release_some(Context& ctx, const Outputs& out, uint16_t port);
  // Emits every held packet of this worker on output `port`.
  void release_all(Context& ctx, const Outputs& out, uint16_t port);

  uint32_t capacity() const { return capacity_; }
  uint64_t length() const;
  uint64_t drops() const;
  uint32_t highwater() const;

  bool read_handle(std::string_view handle, nlohmann::json& out) const;
  bool write_handle(std::string_view handle);

 private:
  struct Slot {
    PacketRing ring;
    Counter drops;
    std::atomic<uint32_t> highwater{0};
    uint64_t reset_seen = 0;
  };
  uint32_t capacity_;
  std::atomic<uint64_t> reset_gen_{0};
  PerWorker<Slot> slots_;
};

}  // namespace obi::blocks
