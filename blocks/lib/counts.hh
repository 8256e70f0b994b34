// Counts: N plain packet counters per worker for a block's read handles, summed on read,
// with a reset that records the current totals as the new zero (so a reset never races
// with the workers' plain stores).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/element.hh"

namespace obi::blocks {

template <size_t N>
class Counts {
 public:
  explicit Counts(unsigned workers) : slots_(workers) {}

  void add(unsigned worker, size_t i, uint64_t n) {
    if (n) slots_[worker][i].add(n);
  }
  uint64_t get(size_t i) const { return total(i) - base_[i]; }
  void reset() {
    for (size_t i = 0; i < N; ++i) base_[i] = total(i);
  }

 private:
  uint64_t total(size_t i) const {
    uint64_t n = 0;
    slots_.for_each([&](const std::array<Counter, N>& s) { n += s[i].get(); });
    return n;
  }
  PerWorker<std::array<Counter, N>> slots_;
  std::array<uint64_t, N> base_{};
};

}  // namespace obi::blocks
