// The test harness itself, exercised on Discard.
#include <gtest/gtest.h>

#include <time.h>

#include "engine/testing.hh"

using namespace obi;
using namespace obi::testing;

TEST(Harness, DiscardCountsAndReturnsPackets) {
  ElementHarness h("Discard", nlohmann::json::object(), "drop");
  std::vector<Bytes> frames(70, udp4("1.1.1.1", "2.2.2.2", 1, 2));
  Result r = h.push(frames);
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(r.dropped, 70u);
  EXPECT_EQ(h.read("count").get<uint64_t>(), 70u);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").get<uint64_t>(), 0u);
  EXPECT_THROW(h.read("nope"), openbox::ProtocolError);
  try {
    h.write("nope", 1);
    FAIL();
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ILLEGAL_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("drop"), std::string::npos);
  }
}

TEST(Harness, UnknownTypeThrows) {
  EXPECT_THROW(make_element("NoSuchBlock", nlohmann::json::object()), std::runtime_error);
}

TEST(EventSink, RingDropsWhenFullAndDrainsInOrder) {
  PacketPool pool(2);
  RingEventSink sink(2, 4);
  Packet* p = make_packet(pool, udp4("1.1.1.1", "2.2.2.2", 1, 2, "abc"));
  for (int i = 0; i < 6; ++i)
    sink.post(EventSink::Kind::kAlert, "ids", "app", "m" + std::to_string(i), 3, *p, 20, 0, 0);
  sink.post(EventSink::Kind::kLog, "log", "app2", "w1", 1, *p, 0, 1, 0);
  EXPECT_EQ(sink.dropped(), 2u);
  std::vector<Event> ev;
  EXPECT_EQ(sink.drain(ev, 100), 5u);
  std::vector<std::string> w0;
  for (auto& e : ev)
    if (e.origin_block == "ids") w0.push_back(e.message);
  EXPECT_EQ(w0, (std::vector<std::string>{"m0", "m1", "m2", "m3"}));
  for (auto& e : ev) {
    if (e.origin_block == "ids") {
      EXPECT_TRUE(e.alert);
      EXPECT_EQ(e.packet.size(), 20u);
      EXPECT_EQ(e.severity, 3);
    } else {
      EXPECT_FALSE(e.alert);
      EXPECT_TRUE(e.packet.empty());
      EXPECT_EQ(e.app_id, "app2");
    }
  }
  EXPECT_NE(ev[0].id, ev[1].id);
  EXPECT_EQ(sink.drain(ev, 100), 0u);
  pool.free(p);
}

// Slots pack the strings and the excerpt; what does not fit in a slot goes to the large
// area beside it. Both come back intact, truncated only at the documented limits, and the
// worker's per-batch clock becomes the event's wall-clock time.
TEST(EventSink, LongEventsSpillAndTimestampsFollowTheBatchClock) {
  PacketPool pool(2);
  RingEventSink sink(1, 3);
  std::string payload(1500, 'x');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = char('a' + i % 26);
  Packet* p = make_packet(pool, udp4("1.1.1.1", "2.2.2.2", 1, 2, payload));
  const std::string long_msg(RingEventSink::kMaxMessage + 40, 'm');
  const std::string long_name(RingEventSink::kMaxName + 5, 'n');
  timespec mono, wall;
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &wall);
  const uint64_t now = uint64_t(mono.tv_sec) * 1000000000ull + uint64_t(mono.tv_nsec) - 2000000000ull;  // 2 s ago
  sink.post(EventSink::Kind::kAlert, long_name, "app", long_msg, 5, *p, -1, 0, now);                    // spills
  sink.post(EventSink::Kind::kLog, "short", "app", "fits", 2, *p, 40, 0, now);                          // inline
  sink.post(EventSink::Kind::kAlert, "big", "", "excerpt", 1, *p, 100000, 0, 0);                        // capped
  std::vector<Event> ev;
  ASSERT_EQ(sink.drain(ev, 10), 3u);
  EXPECT_EQ(ev[0].origin_block, long_name.substr(0, RingEventSink::kMaxName));
  EXPECT_EQ(ev[0].message, long_msg.substr(0, RingEventSink::kMaxMessage));
  EXPECT_EQ(ev[0].packet, std::string(reinterpret_cast<const char*>(p->data), p->len));
  EXPECT_EQ(ev[0].severity, 5);
  EXPECT_EQ(ev[1].origin_block, "short");
  EXPECT_EQ(ev[1].message, "fits");
  EXPECT_EQ(ev[1].packet, std::string(reinterpret_cast<const char*>(p->data), 40));
  EXPECT_FALSE(ev[1].alert);
  EXPECT_EQ(ev[2].packet.size(), std::min<size_t>(p->len, RingEventSink::kMaxPacket));
  const double wall_s = double(wall.tv_sec) + wall.tv_nsec / 1e9;
  EXPECT_NEAR(ev[0].timestamp, wall_s - 2.0, 0.5);
  EXPECT_NEAR(ev[2].timestamp, wall_s, 0.5);
  pool.free(p);
}
