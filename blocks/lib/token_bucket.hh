// TokenBucket: the rate limit shared by all workers running one shaper, as a GCRA
// (generic cell rate algorithm, the virtual-scheduling form of a token bucket).
//
// One atomic holds the theoretical arrival time (TAT) of the next unit, in 1/16 ns.
// A packet of cost c conforms at time t when TAT <= t + burst; it then moves TAT to
// max(TAT, t) + c. So the long-run rate is exact (a large packet borrows against the
// future and the next ones wait), and after an idle period at most `burst` worth of
// traffic (1 ms at the current rate, at least one packet) leaves at once. Workers
// update the TAT with a compare-and-swap; no lock is taken. The rate may be changed
// at any time from the control thread.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

namespace obi::blocks {

class TokenBucket {
 public:
  static constexpr uint64_t kTicksPerNs = 16;
  static constexpr uint64_t kBurstNs = 1'000'000;

  explicit TokenBucket(double units_per_second) { set_rate(units_per_second); }

  void set_rate(double units_per_second) {
    rate_.store(units_per_second, std::memory_order_relaxed);
    ticks_per_unit_.store(1e9 * kTicksPerNs / units_per_second, std::memory_order_relaxed);
  }
  double rate() const { return rate_.load(std::memory_order_relaxed); }

  // Charges `units` and returns true when they may leave at `now_ns`.
  bool take(uint64_t now_ns, uint64_t units) {
    const uint64_t now = now_ns * kTicksPerNs;
    const uint64_t cost =
        static_cast<uint64_t>(std::llround(double(units) * ticks_per_unit_.load(std::memory_order_relaxed)));
    uint64_t tat = tat_.load(std::memory_order_relaxed);
    for (;;) {
      if (tat > now && tat - now > kBurstNs * kTicksPerNs) return false;
      uint64_t next = (tat > now ? tat : now) + cost;
      if (tat_.compare_exchange_weak(tat, next, std::memory_order_relaxed)) return true;
    }
  }

 private:
  std::atomic<uint64_t> tat_{0};
  std::atomic<double> ticks_per_unit_{0};
  std::atomic<double> rate_{0};
};

}  // namespace obi::blocks
