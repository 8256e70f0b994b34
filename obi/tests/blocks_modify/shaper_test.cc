// BpsShaper and PpsShaper over simulated time (ctx.now_ns).
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

constexpr uint64_t kMs = 1'000'000ull;

std::vector<Bytes> frames(int n, int first, size_t size = 60) {
  std::vector<Bytes> v;
  for (int i = 0; i < n; ++i) {
    Bytes b = udp4("10.0.0.1", "10.0.0.2", uint16_t(first + i), 9, std::string(size > 42 ? size - 42 : 0, 'z'));
    v.push_back(b);
  }
  return v;
}

struct Totals {
  uint64_t packets = 0, bytes = 0;
  uint16_t last = 0;
  bool ordered = true;
};

void collect(const Result& r, Totals& t) {
  for (const Bytes& b : r.out[0]) {
    uint16_t n = be16(b, offsets(b).l4);
    if (t.packets && n <= t.last) t.ordered = false;  // drops leave gaps, never reorder
    t.last = n;
    ++t.packets;
    t.bytes += b.size();
  }
}

}  // namespace

TEST(PpsShaper, HonoursRateOverSimulatedSecond) {
  ElementHarness h("PpsShaper", {{"rate", 1000}, {"capacity", 100}});
  Totals t;
  uint64_t dropped = 0;
  int next = 1;
  // offer 2000 packets/s (2 per ms) for one second
  for (uint64_t ms = 0; ms < 1000; ++ms) {
    h.set_now(ms * kMs);
    Result a = h.run_task();
    collect(a, t);
    Result r = h.push(frames(2, next));
    next += 2;
    collect(r, t);
    dropped += r.dropped;
  }
  // over 999 ms at 1000 packets/s: 1000 (+1 for the burst allowance)
  EXPECT_GE(t.packets, 999u);
  EXPECT_LE(t.packets, 1002u);
  EXPECT_TRUE(t.ordered);
  EXPECT_EQ(h.read("drops").get<uint64_t>(), dropped);
  EXPECT_EQ(t.packets + dropped + h.read("length").get<uint64_t>(), 2000u);
  EXPECT_LE(h.read("length").get<uint64_t>(), 100u);
  EXPECT_EQ(h.read("rate"), 1000.0);
}

TEST(PpsShaper, UnderTheRateNothingWaits) {
  ElementHarness h("PpsShaper", {{"rate", 100}});
  for (int i = 0; i < 50; ++i) {
    h.set_now(uint64_t(i) * 20 * kMs);  // 50 packets/s
    Result r = h.push(frames(1, i + 1));
    ASSERT_EQ(r.out[0].size(), 1u) << i;
  }
  EXPECT_EQ(h.read("length"), 0);
}

TEST(PpsShaper, RateWriteTakesEffect) {
  ElementHarness h("PpsShaper", {{"rate", 100}});
  h.set_now(0);
  h.push(frames(500, 1));  // backlog (capacity defaults to 1000)
  Totals t;
  for (uint64_t ms = 1; ms <= 1000; ++ms) {
    h.set_now(ms * kMs);
    collect(h.run_task(), t);
  }
  EXPECT_GE(t.packets, 99u);
  EXPECT_LE(t.packets, 102u);
  h.write("rate", 300);
  EXPECT_EQ(h.read("rate"), 300.0);
  Totals u;
  for (uint64_t ms = 1001; ms <= 2000; ++ms) {
    h.set_now(ms * kMs);
    collect(h.run_task(), u);
  }
  EXPECT_GE(u.packets, 298u);
  EXPECT_LE(u.packets, 302u);
  expect_illegal(h, "rate", 0);
  expect_illegal(h, "rate", "fast");
  expect_illegal(h, "length", 1);
}

TEST(PpsShaper, WorkersShareOneRate) {
  ElementHarness h("PpsShaper", {{"rate", 500}}, "s", 2);
  Totals t;
  int next = 1;
  for (uint64_t ms = 0; ms < 1000; ++ms) {
    h.set_now(ms * kMs);
    for (unsigned w = 0; w < 2; ++w) {
      h.set_worker(w);
      Result r = h.push(frames(1, next++));
      t.packets += r.out[0].size();
      t.packets += h.run_task().out[0].size();
    }
  }
  EXPECT_GE(t.packets, 499u);
  EXPECT_LE(t.packets, 503u);
}

TEST(BpsShaper, HonoursByteRate) {
  ElementHarness h("BpsShaper", {{"rate", 100000}});  // 100 kB/s
  Totals t;
  int next = 1;
  // offer 500-byte frames at 400 kB/s for 2 s (with the default 1000-packet FIFO)
  for (uint64_t ms = 0; ms < 2000; ++ms) {
    h.set_now(ms * kMs);
    collect(h.run_task(), t);
    if (ms % 5 == 0) {
      collect(h.push(frames(4, next, 500)), t);
      next += 4;
    }
  }
  // 2 s at 100 kB/s = 200 kB, give or take the 1 ms burst and one frame
  EXPECT_GE(t.bytes, 199000u);
  EXPECT_LE(t.bytes, 200000u + 100u + 1000u);
  EXPECT_TRUE(t.ordered);
  EXPECT_EQ(h.read("rate"), 100000.0);
  h.write("rate", 50000.5);
  EXPECT_EQ(h.read("rate"), 50000.5);
}

TEST(BpsShaper, LargeFrameWaitsForItsBytes) {
  ElementHarness h("BpsShaper", {{"rate", 1000}});  // 1000 B/s
  h.set_now(0);
  Result r = h.push(frames(2, 1, 1000));
  EXPECT_EQ(r.out[0].size(), 1u);  // first frame goes at once
  h.set_now(900 * kMs);
  EXPECT_EQ(h.run_task().total(), 0u);  // the second needs the first's 1000 bytes paid
  h.set_now(1000 * kMs);
  EXPECT_EQ(h.run_task().out[0].size(), 1u);
}

TEST(Shapers, BadConfigsAndTruncatedFrames) {
  expect_bad_block("BpsShaper", json::object(), "rate");
  expect_bad_block("BpsShaper", {{"rate", -1}}, "rate");
  expect_bad_block("PpsShaper", {{"rate", "x"}}, "rate");
  expect_bad_block("PpsShaper", {{"rate", 10}, {"capacity", 0}}, "capacity");
  expect_bad_block("PpsShaper", {{"rate", 10}, {"burst", 3}}, "burst");
  ElementHarness h("BpsShaper", {{"rate", 1e9}});
  Result r = h.push({Bytes(3, 1), Bytes(14, 2)});
  EXPECT_EQ(r.out[0].size(), 2u);
}
