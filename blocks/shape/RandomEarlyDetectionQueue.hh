// RandomEarlyDetectionQueue (spec 5.20, shaper): a FIFO like Queue whose arriving packets
// are dropped early, at random, as the average queue length grows (RED, Floyd and
// Jacobson 1993), so that senders slow down before the queue overflows.
//
// On every arrival the average length is updated, avg += w * (length - avg) with
// w = 2^-stability (stability 0: avg is the current length). Then:
//   avg < min_thresh                 the packet is queued;
//   min_thresh <= avg < max_thresh   dropped with probability pb / (1 - count * pb),
//                                    pb = max_p * (avg - min_thresh) / (max_thresh - min_thresh),
//                                    count = packets queued since the last drop;
//   max_thresh <= avg < 2*max_thresh dropped with probability max_p + (1 - max_p) *
//                                    (avg - max_thresh) / max_thresh when gentle, else always;
//   otherwise, or the queue is full  dropped.
// Dropped packets leave by output 1 (unconnected: they are freed). Queued packets leave
// by output 0 from the worker's task loop, up to 64 per run, in arrival order.
//
// Like Queue, each worker has its own queue, average and random generator (seeded per
// worker, so a run is reproducible); handles sum lengths and drops over the workers and
// report the largest average and high-water mark.
//
// Ports:   1 input; output 0 (released packets), output 1 (dropped packets).
// Config keys, handles and port counts: blocks/catalogue/RandomEarlyDetectionQueue.json.
// Example: {"name": "red", "type": "RandomEarlyDetectionQueue",
//           "config": {"capacity": 1000, "min_thresh": 100, "max_thresh": 500, "max_p": 0.1}}
#pragma once

#include <atomic>

#include "engine/element.hh"
#include "lib/worker_fifo.hh"

namespace obi {

class RandomEarlyDetectionQueueElement final : public Element {
 public:
  static constexpr uint32_t kReleasePerTask = blocks::WorkerFifo::kReleasePerTask;

  explicit RandomEarlyDetectionQueueElement(const ElementArgs& args);

  uint16_t output_count() const override { return 2; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  bool has_task() const override { return true; }
  void run_task(Context& ctx, const Outputs& out) override;
  void release(Context& ctx, const Outputs& out) override;
  uint64_t held_packets() const override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Red {  // per worker, beside the worker's FIFO
    std::atomic<double> avg{0};
    int64_t count = -1;  // packets queued since the last early drop (-1: below min_thresh)
    uint64_t rng = 0;    // xorshift64 state
  };
  bool drop_early(Red& s, uint32_t length);

  uint32_t capacity_;
  double min_thresh_, max_thresh_, max_p_, weight_;
  bool gentle_;
  blocks::WorkerFifo fifo_;
  PerWorker<Red> red_;
};

}  // namespace obi
