// The definition of `rate` (blocks/lib/output_stats.hh): an EWMA of packets (bytes) per
// second with a 1 s time constant, summed over workers and decayed to the read time,
// checked with a fake worker clock against the closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "lib/output_stats.hh"

using obi::blocks::OutputStats;

namespace {

constexpr uint64_t kMs = 1'000'000ull;
constexpr uint64_t kStart = 1'000 * kMs;  // the fake clock's first reading

// `pps` packets per second of `bytes` bytes each on `output`, one batch of 10 every
// 10'000 / pps ms, from t0 for `ms` milliseconds; returns the time of the last batch.
uint64_t feed(OutputStats& s, unsigned worker, uint32_t output, double pps, uint32_t bytes, uint64_t t0, uint64_t ms) {
  const uint64_t step = static_cast<uint64_t>(10.0 / pps * 1e9);
  uint64_t last = t0;
  for (uint64_t t = t0; t < t0 + ms * kMs; t += step) {
    s.add(worker, output, 10, 10ull * bytes, t);
    last = t;
  }
  return last;
}

}  // namespace

TEST(Rate, SteadyStreamConvergesToItsRate) {
  OutputStats s(1, 1);
  uint64_t t = feed(s, 0, 0, 1000, 100, kStart, 10'000);  // 10 tau
  EXPECT_NEAR(s.rate(0, t), 1000, 10);
  EXPECT_NEAR(s.byte_rate(0, t), 100'000, 1000);
  EXPECT_EQ(s.count(0), 10'000u);
  EXPECT_EQ(s.byte_count(0), 1'000'000u);
}

TEST(Rate, TimeConstantIsOneSecond) {
  OutputStats s(1, 1);
  uint64_t t = feed(s, 0, 0, 1000, 64, kStart, 1'000);
  // from zero, one tau of a steady stream reads 1 - 1/e of it (the first batch, counted
  // from the first fold, adds 1%)
  EXPECT_NEAR(s.rate(0, t) / 1000, 1 - std::exp(-1.0), 0.02);
  t = feed(s, 0, 0, 1000, 64, t + 10 * kMs, 2'000);
  EXPECT_NEAR(s.rate(0, t) / 1000, 1 - std::exp(-3.0), 0.02);
}

TEST(Rate, ReadDecaysAfterTheStreamStops) {
  OutputStats s(1, 1);
  uint64_t t = feed(s, 0, 0, 500, 64, kStart, 10'000);
  const double r = s.rate(0, t);
  EXPECT_NEAR(s.rate(0, t + 1'000 * kMs), r * std::exp(-1.0), r * 0.01);
  EXPECT_NEAR(s.rate(0, t + 5'000 * kMs), r * std::exp(-5.0), r * 0.01);
}

TEST(Rate, SumsWorkersAndKeepsOutputsApart) {
  OutputStats s(2, 2);
  uint64_t t0 = feed(s, 0, 0, 1000, 64, kStart, 10'000);
  uint64_t t1 = feed(s, 1, 0, 2500, 64, kStart, 10'000);
  uint64_t t2 = feed(s, 1, 1, 200, 64, kStart, 10'000);
  EXPECT_NEAR(s.rate(0, std::max(t0, t1)), 3500, 35);
  EXPECT_NEAR(s.rate(1, t2), 200, 4);
  nlohmann::json v;
  ASSERT_TRUE(s.read_handle("count", v));
  EXPECT_EQ(v, nlohmann::json({35'000, 2'000}));
  ASSERT_TRUE(s.read_handle("count_1", v));
  EXPECT_EQ(v, 2'000);
  ASSERT_TRUE(s.read_scalar_handle("count", v));
  EXPECT_EQ(v, 35'000);
  EXPECT_FALSE(s.read_handle("rate_2", v));
  EXPECT_FALSE(s.read_scalar_handle("drops", v));
}

TEST(Rate, ResetZeroesCountsAndRates) {
  OutputStats s(1, 1);
  uint64_t t = feed(s, 0, 0, 1000, 64, kStart, 3'000);
  ASSERT_TRUE(s.write_handle("reset_counts", nullptr));
  EXPECT_EQ(s.count(0), 0u);
  EXPECT_EQ(s.rate(0, t), 0);
  feed(s, 0, 0, 1000, 64, t + 10 * kMs, 100);
  EXPECT_EQ(s.count(0), 100u);
}
