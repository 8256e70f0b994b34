// OutputStats: the one statistics helper of the blocks. Packet and byte counts and rates
// per output (or per rule / pattern; one output for sources and meters), kept per worker
// and summed on read, plus the read/write handles built on them.
//
// What `rate` means (every block's `rate` / `byte_rate` / `rate_i` handle): an
// exponentially weighted moving average of packets (bytes) per second with time constant
// tau = 1 s (kRateTauSeconds), summed over workers. A worker folds the packets counted
// since its last fold at most once per millisecond of its clock (ctx.now_ns):
//     r <- r + (1 - exp(-dt / tau)) * (n / dt - r)      n packets in the dt seconds since
// and a read at time t decays the value to t: r * exp(-(t - last fold) / tau), so a
// stream that stops reads towards 0. A steady R packets/s reads 63% of R after 1 s, 95%
// after 3 s, then R. (The shapers' `rate` handle is their configured limit, not this.)
//
// Data path: add(worker, output, packets, bytes, now_ns) once per group of packets sent
// to one output: no locks, no allocation, one cache line per output and worker.
//
// Handles (read_handle / write_handle return false for names they do not know):
//   count, byte_count, rate, byte_rate      arrays over all outputs
//   count_i, byte_count_i, rate_i, byte_rate_i  one output (e.g. count_2)
//   reset_counts, reset_all_counts, reset_i  write null: zero counts and rates
// read_scalar_handle answers count / byte_count / rate / byte_rate of output 0 as numbers
// (blocks whose handles describe one stream, e.g. FromDump).
// Resets keep a per-output baseline, so they never race with the workers' counters.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/element.hh"

namespace obi::blocks {

inline constexpr double kRateTauSeconds = 1.0;

// The fold above: rate r after `amount` in dt_s seconds, time constant tau_s.
double ewma_fold(double r, double amount, double dt_s, double tau_s);

// One EWMA rate of the definition above written by one worker and read by the control
// thread, for a rate a block acts on (RateSplitter's input rate) rather than reports.
struct EwmaRate {
  std::atomic<double> rate{0};       // per second
  std::atomic<uint64_t> last_ns{0};  // worker clock of the last fold
  double pending = 0;                // worker only
  bool started = false;              // worker only

  static constexpr uint64_t kTickNs = 1'000'000;

  // Accounts `amount` at worker time now_ns; returns true when the rate was refolded.
  bool add(double amount, uint64_t now_ns, double tau_s);
  // The rate decayed to the control thread's clock (see clock_now_ns()).
  double read(double tau_s) const;
  void reset() { rate.store(0, std::memory_order_relaxed); }
};

// Steady-clock nanoseconds, the clock the engine stamps ctx.now_ns with.
uint64_t clock_now_ns();

class OutputStats {
 public:
  OutputStats(uint32_t outputs, unsigned workers, double tau_s = kRateTauSeconds);

  uint32_t size() const { return outputs_; }

  void add(unsigned worker, uint32_t output, uint32_t packets, uint64_t bytes, uint64_t now_ns) {
    Slot& s = slots_[worker][output];
    s.packets.add(packets);
    s.bytes.add(bytes);
    s.pending_packets += packets;
    s.pending_bytes += static_cast<double>(bytes);
    if (!s.started || now_ns >= s.last_ns.load(std::memory_order_relaxed) + EwmaRate::kTickNs) fold(s, now_ns);
  }

  // Brings the slots of this worker for a batch's outputs into cache ahead of add()
  // (classifiers with many rules touch a scattered few per batch; kDropOutput and other
  // values past the last output are skipped).
  void prefetch(unsigned worker, const uint16_t* outputs, uint32_t n) const {
    for (uint32_t i = 0; i < n; ++i)
      if (outputs[i] < outputs_) __builtin_prefetch(&slots_[worker][outputs[i]], 1);
  }

  uint64_t count(uint32_t output) const;
  uint64_t byte_count(uint32_t output) const;
  double rate(uint32_t output) const;  // decayed to clock_now_ns()
  double byte_rate(uint32_t output) const;
  double rate(uint32_t output, uint64_t now_ns) const;  // decayed to now_ns (the workers' clock)
  double byte_rate(uint32_t output, uint64_t now_ns) const;

  void reset(uint32_t output);
  void reset_all();

  bool read_handle(std::string_view handle, nlohmann::json& out) const;
  bool read_scalar_handle(std::string_view handle, nlohmann::json& out) const;
  bool write_handle(std::string_view handle, const nlohmann::json& value);

 private:
  // One cache line per output and worker: counts, both rates and their shared clock.
  struct alignas(64) Slot {
    Counter packets, bytes;
    std::atomic<double> pps{0}, bps{0};
    std::atomic<uint64_t> last_ns{0};
    double pending_packets = 0, pending_bytes = 0;
    bool started = false;
  };
  void fold(Slot& s, uint64_t now_ns) const;
  double decayed(const Slot& s, const std::atomic<double>& r, uint64_t now_ns) const;
  uint32_t outputs_;
  double tau_s_;
  PerWorker<std::unique_ptr<Slot[]>> slots_;
  std::unique_ptr<std::atomic<uint64_t>[]> base_packets_, base_bytes_;
};

// "count_12" -> ("count", 12); false when the name has no numeric suffix.
bool split_indexed(std::string_view handle, std::string_view& prefix, uint32_t& index);

}  // namespace obi::blocks
