// The test harness itself, exercised on Discard.
#include <gtest/gtest.h>

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
    sink.post(EventSink::Kind::kAlert, "ids", "app", "m" + std::to_string(i), 3, *p, 20, 0);
  sink.post(EventSink::Kind::kLog, "log", "app2", "w1", 1, *p, 0, 1);
  EXPECT_EQ(sink.dropped(), 2u);
  std::vector<Event> ev;
  EXPECT_EQ(sink.drain(ev, 100), 5u);
  std::vector<std::string> w0;
  for (auto& e : ev) if (e.origin_block == "ids") w0.push_back(e.message);
  EXPECT_EQ(w0, (std::vector<std::string>{"m0", "m1", "m2", "m3"}));
  for (auto& e : ev) {
    if (e.origin_block == "ids") { EXPECT_TRUE(e.alert); EXPECT_EQ(e.packet.size(), 20u); EXPECT_EQ(e.severity, 3); }
    else { EXPECT_FALSE(e.alert); EXPECT_TRUE(e.packet.empty()); EXPECT_EQ(e.app_id, "app2"); }
  }
  EXPECT_NE(ev[0].id, ev[1].id);
  EXPECT_EQ(sink.drain(ev, 100), 0u);
  pool.free(p);
}
