// ProtocolAnalyzer, SessionStore + SessionClassifier, FlowTracker, Bps/PpsRateClassifier.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/testing.hh"
#include "lib/output_stats.hh"
#include "openbox/error.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

openbox::ErrorSubtype config_error(const std::string& type, const json& cfg) {
  try {
    make_element(type, cfg, "blk");
  } catch (const openbox::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("blk"), std::string::npos) << e.what();
    return e.subtype();
  }
  ADD_FAILURE() << type << " accepted " << cfg.dump();
  return openbox::ErrorSubtype::INTERNAL_ERROR;
}

Bytes arp_request() {
  Bytes b(42, 0);
  for (int i = 0; i < 6; ++i) b[i] = 0xff;
  b[12] = 0x08;
  b[13] = 0x06;
  b[14] = 0;
  b[15] = 1;
  b[16] = 8;
  b[17] = 0;
  b[18] = 6;
  b[19] = 4;
  b[21] = 1;
  while (b.size() < 60) b.push_back(0);
  return b;
}

}  // namespace

// ---------------------------------------------------------------- ProtocolAnalyzer

TEST(ProtocolAnalyzer, ListOrderAndHeuristics) {
  ElementHarness h("ProtocolAnalyzer",
                   {{"protocols", {"http", "https", "smtp", "ftp", "dns", "icmp", "tcp", "udp", "arp"}}});
  ASSERT_EQ(h.element().output_count(), 10);
  Frame icmp;
  icmp.proto = 1;
  Frame gre;
  gre.proto = 47;
  Bytes tls = tcp4("1.1.1.1", "2.2.2.2", 5000, 9443, std::string("\x16\x03\x01\x00\x05hello", 10));
  Result r = h.push({
      tcp4("1.1.1.1", "2.2.2.2", 5000, 7777, "GET / HTTP/1.1\r\n"),   // http by payload on an odd port
      tcp4("1.1.1.1", "2.2.2.2", 5000, 80, ""),                       // http by port
      tls,                                                            // https by payload
      tcp4("1.1.1.1", "2.2.2.2", 5001, 25, "EHLO mail.example\r\n"),  // smtp
      tcp4("1.1.1.1", "2.2.2.2", 5002, 21, "USER anonymous\r\n"),     // ftp
      udp4("1.1.1.1", "2.2.2.2", 5003, 53, "dnsq"),                   // dns
      build(icmp),                                                    // icmp
      tcp4("1.1.1.1", "2.2.2.2", 5004, 9999, "hello"),                // tcp
      udp4("1.1.1.1", "2.2.2.2", 5005, 9999, "hello"),                // udp
      arp_request(),                                                  // arp
      build(gre),                                                     // none of the list
  });
  for (int o = 1; o <= 9; ++o) EXPECT_EQ(r.out[o].size(), o == 1 ? 2u : 1u) << "output " << o;
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(h.read("count_1"), 2);
  EXPECT_EQ(h.read("count_0"), 1);
  h.write("reset_1", nullptr);
  EXPECT_EQ(h.read("count_1"), 0);
  EXPECT_EQ(h.read("count_2"), 1);
  h.write("reset_all_counts", nullptr);
  EXPECT_EQ(h.read("count_2"), 0);
}

TEST(ProtocolAnalyzer, FlowTagCarriesToLaterPackets) {
  ElementHarness h("ProtocolAnalyzer", {{"protocols", {"http", "tcp"}}});
  // request on an odd port tags the flow; the reply (other direction, no payload) follows it
  Result r = h.push({tcp4("1.1.1.1", "2.2.2.2", 5000, 7777, "POST /x HTTP/1.1\r\n"),
                     tcp4("2.2.2.2", "1.1.1.1", 7777, 5000, ""), tcp4("2.2.2.2", "1.1.1.1", 7777, 5001, "")});
  EXPECT_EQ(r.out[1].size(), 2u);
  EXPECT_EQ(r.out[2].size(), 1u);  // another flow: plain tcp
}

TEST(ProtocolAnalyzer, BadConfig) {
  EXPECT_EQ(config_error("ProtocolAnalyzer", {{"protocols", {"http", "gopher"}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("ProtocolAnalyzer", json::object()), openbox::ErrorSubtype::BAD_BLOCK);
}

// ---------------------------------------------------------------- sessions

TEST(Session, StoreThenClassifyBothDirections) {
  ElementHarness store(
      "SessionStore",
      {{"fields", {{"IPV4_SRC", "sess_client"}, {"TCP_DST", {{"key", "sess_port"}, {"mask", "0xff00"}}}}}});
  ElementHarness cls(
      "SessionClassifier",
      {{"match", json::array({
                     {{"sess_client", {{"is_field", true}, {"value", "IPV4_DST"}}}},  // reply to the client
                     {{"sess_port", {{"is_field", false}, {"value", "0x1f00"}}}},     // 8080 & 0xff00
                     {{"sess_client", "10.0.0.0%255.0.0.0"}},
                 })}});
  ASSERT_EQ(cls.element().output_count(), 4);
  Result s =
      store.push({tcp4("10.1.1.1", "20.0.0.1", 40000, 8080, "req"), tcp4("30.0.0.1", "20.0.0.1", 40001, 443, "x")});
  EXPECT_EQ(s.out[0].size(), 2u);  // passes through
  EXPECT_EQ(store.read("count"), 2);
  Result r = cls.push({
      tcp4("20.0.0.1", "10.1.1.1", 8080, 40000, "reply"),  // reply: IPV4_DST == stored client -> rule 0
      tcp4("10.1.1.1", "20.0.0.1", 40000, 8080, "more"),   // same flow, forward: rule 1 (port)
      tcp4("30.0.0.1", "20.0.0.1", 40001, 443, "y"),       // second flow: 443&0xff00 = 0x100, not 10/8
      tcp4("20.0.0.1", "30.0.0.1", 443, 40001, "z"),       // its reply -> rule 0
      tcp4("9.9.9.9", "20.0.0.1", 1, 2, "no session"),
  });
  EXPECT_EQ(r.out[1].size(), 2u);
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.out[3].size(), 0u);
  EXPECT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(cls.read("count_1"), 2);
  EXPECT_EQ(cls.read("count_0"), 2);
}

// blocks/catalogue/vectors/api-configs.json holds configs exactly as the Java API writes
// them (ApiConfigVectorsTest): the session pair builds here, and the SessionClassifier's
// record-form rules classify as the same rules in the map form do.
TEST(Session, ConfigsAsTheJavaApiWritesThemWork) {
  std::ifstream f(std::filesystem::path(OPENBOX_ROOT) / "blocks" / "catalogue" / "vectors" / "api-configs.json");
  json vectors = json::parse(f);
  ASSERT_GE(vectors.size(), 2u);
  json store_cfg, cls_cfg;
  for (const auto& v : vectors) {  // every vector is built by ConfigVectors.*; here the session pair
    const json& b = v["block"];
    if (b["type"] != "SessionStore" && b["type"] != "SessionClassifier") continue;
    EXPECT_NO_THROW(make_element(b["type"], b["config"], b["name"])) << v["description"];
    // the first vector of each (the ones the expectations below are written for)
    if (b["type"] == "SessionStore" && store_cfg.is_null()) store_cfg = b["config"];
    if (b["type"] == "SessionClassifier" && cls_cfg.is_null()) cls_cfg = b["config"];
  }
  ASSERT_FALSE(store_cfg.is_null());
  ASSERT_FALSE(cls_cfg.is_null());
  json map_form = json::array();
  for (const auto& r : cls_cfg["match"])
    map_form.push_back({{r["key"].get<std::string>(), {{"is_field", r["is_field"]}, {"value", r["value"]}}}});
  auto outputs = [&](const json& cls_config) {
    ElementHarness store("SessionStore", store_cfg);
    ElementHarness cls("SessionClassifier", cls_config);
    store.push({tcp4("10.1.1.1", "20.0.0.1", 40000, 8080, "req"), tcp4("30.0.0.1", "20.0.0.1", 40001, 443, "x"),
                tcp4("10.2.2.2", "20.0.0.1", 40002, 22, "s")});
    Result r =
        cls.push({tcp4("20.0.0.1", "10.1.1.1", 8080, 40000, "reply"), tcp4("10.1.1.1", "20.0.0.1", 40000, 8080, "more"),
                  tcp4("30.0.0.1", "20.0.0.1", 40001, 443, "y"), tcp4("9.9.9.9", "20.0.0.1", 1, 2, "none"),
                  tcp4("10.2.2.2", "20.0.0.1", 40002, 22, "t")});
    std::vector<size_t> sizes;
    for (const auto& o : r.out) sizes.push_back(o.size());
    return sizes;
  };
  std::vector<size_t> record = outputs(cls_cfg);
  EXPECT_EQ(record, outputs({{"match", map_form}}));
  // output 0: no session / no rule (y, none); 1: reply to the client; 2: port 0x1f00
  // (8080 & 0xff00); 3: a client in 10/8 on another port
  EXPECT_EQ(record, (std::vector<size_t>{2, 1, 1, 1}));
}

TEST(Session, MaskedValueAndBadConfigs) {
  ElementHarness store("SessionStore", {{"fields", {{"IPV4_SRC", {{"key", "sess_net"}, {"mask", "255.255.0.0"}}}}}});
  ElementHarness cls("SessionClassifier", {{"match", json::array({{{"sess_net", "10.1.0.0"}}})}});
  store.push({udp4("10.1.9.9", "1.1.1.1", 5, 6)});
  EXPECT_EQ(cls.push({udp4("1.1.1.1", "10.1.9.9", 6, 5)}).out[1].size(), 1u);
  ElementHarness none("SessionClassifier", json::object());  // no rules: output 0 only
  EXPECT_EQ(none.element().output_count(), 1);
  EXPECT_EQ(none.push({udp4("10.1.9.9", "1.1.1.1", 5, 6)}).out[0].size(), 1u);

  EXPECT_EQ(config_error("SessionStore", {{"fields", {{"NOPE", "k"}}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("SessionStore", {{"fields", {{"IPV4_SRC", {{"key", "k"}, {"mask", "1.2.3"}}}}}}),
            openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("SessionStore", json::object()), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(
      config_error("SessionClassifier", {{"match", json::array({{{"k", {{"is_field", true}, {"value", "NOPE"}}}}})}}),
      openbox::ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(config_error("SessionClassifier", {{"match", json::array({{{"k", "not a value"}}})}}),
            openbox::ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(config_error("SessionClassifier", {{"match", "x"}}), openbox::ErrorSubtype::BAD_BLOCK);
}

// ---------------------------------------------------------------- FlowTracker

TEST(FlowTracker, CountsBidirectionalFlowsAndCapacity) {
  ElementHarness h("FlowTracker", {{"timeout", 10}, {"capacity", 16}});
  std::vector<Bytes> frames;
  for (int i = 0; i < 5; ++i) {
    frames.push_back(tcp4("1.1.1.1", "2.2.2.2", static_cast<uint16_t>(1000 + i), 80));
    frames.push_back(tcp4("2.2.2.2", "1.1.1.1", 80, static_cast<uint16_t>(1000 + i)));  // reply: same flow
  }
  frames.push_back(arp_request());  // not IP: passes, not tracked
  h.set_now(1'000'000'000ull);
  Result r = h.push(frames);
  EXPECT_EQ(r.out[0].size(), frames.size());
  EXPECT_EQ(h.read("flows"), 5);
  EXPECT_EQ(h.read("new_flows"), 5);
  EXPECT_EQ(h.read("count"), 11);
  // 11 s later every flow has expired: the same 5-tuples start new flows
  h.set_now(12'000'000'000ull);
  h.push({frames[0]});
  EXPECT_EQ(h.read("new_flows"), 6);
  // far more flows than capacity: some find no room
  std::vector<Bytes> many;
  for (int i = 0; i < 200; ++i) many.push_back(udp4("3.3.3.3", "4.4.4.4", static_cast<uint16_t>(i), 53));
  h.push(many);
  EXPECT_GT(h.read("untracked").get<uint64_t>(), 0u);
  EXPECT_LE(h.read("flows").get<uint64_t>(), 16u);
  h.write("reset", nullptr);
  EXPECT_EQ(h.read("count"), 0);
  EXPECT_EQ(config_error("FlowTracker", {{"timeout", 0}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("FlowTracker", {{"capacity", "big"}}), openbox::ErrorSubtype::BAD_BLOCK);
}

TEST(FlowTracker, TagsPacketsWithFlowMetadata) {
  ElementHarness h("FlowTracker", {{"timeout", 10}, {"capacity", 1024}});
  h.set_now(1'000'000'000ull);
  std::vector<Bytes> frames = {
      tcp4("1.1.1.1", "2.2.2.2", 1000, 80),  // flow A starts (initiator 1.1.1.1)
      tcp4("2.2.2.2", "1.1.1.1", 80, 1000),  // A, reply
      udp4("9.9.9.9", "1.1.1.1", 53, 5353),  // flow B starts
      tcp4("1.1.1.1", "2.2.2.2", 1000, 80),  // A again
      arp_request(),                         // no flow
  };
  Result r = h.push(frames);
  ASSERT_EQ(r.meta[0].size(), frames.size());
  const auto& m = r.meta[0];
  uint64_t a = m[0].meta.flow_id, b = m[2].meta.flow_id;
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(m[1].meta.flow_id, a);
  EXPECT_EQ(m[3].meta.flow_id, a);
  EXPECT_EQ(a >> 48, 1u);  // worker 0 + 1 in the top bits
  EXPECT_EQ(std::vector<uint32_t>(
                {m[0].meta.flow_packets, m[1].meta.flow_packets, m[2].meta.flow_packets, m[3].meta.flow_packets}),
            std::vector<uint32_t>({1, 2, 1, 3}));
  EXPECT_EQ(std::vector<int>({m[0].meta.flow_new, m[1].meta.flow_new, m[2].meta.flow_new, m[3].meta.flow_new}),
            std::vector<int>({1, 0, 1, 0}));
  EXPECT_EQ(std::vector<int>(
                {m[0].meta.flow_reverse, m[1].meta.flow_reverse, m[2].meta.flow_reverse, m[3].meta.flow_reverse}),
            std::vector<int>({0, 1, 0, 0}));
  EXPECT_EQ(m[4].meta.flow_id, 0u);  // ARP: no flow
  EXPECT_EQ(m[4].meta.flow_packets, 0u);
  // A flow whose first packet came from the "higher" endpoint: reverse is relative to it.
  Result r2 = h.push({tcp4("2.2.2.2", "1.1.1.1", 4000, 22), tcp4("1.1.1.1", "2.2.2.2", 22, 4000)});
  EXPECT_EQ(r2.meta[0][0].meta.flow_reverse, 0);
  EXPECT_EQ(r2.meta[0][1].meta.flow_reverse, 1);
  // A tag set by an earlier block on a non-IP frame is cleared, not passed on.
  Batch bt;
  Packet* p = make_packet(h.pool(), arp_request());
  p->meta.flow_id = 77;
  bt.add(p);
  Result r3 = h.push_batch(bt);
  EXPECT_EQ(r3.meta[0][0].meta.flow_id, 0u);
  // After the timeout the same 5-tuple is a new flow with a new id.
  h.set_now(20'000'000'000ull);
  Result r4 = h.push({frames[0]});
  EXPECT_NE(r4.meta[0][0].meta.flow_id, a);
  EXPECT_EQ(r4.meta[0][0].meta.flow_new, 1);
  EXPECT_EQ(r4.meta[0][0].meta.flow_packets, 1u);
}

TEST(Packet, PoolClearsMetadataAndCloneCopiesIt) {
  PacketPool pool(2);
  Packet* p = pool.alloc();
  p->meta.flow_id = 5;
  p->meta.flow_new = 1;
  Packet* c = pool.clone(*p);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->meta.flow_id, 5u);
  EXPECT_EQ(c->meta.flow_new, 1);
  pool.free(c);
  pool.free(p);
  Packet* q = pool.alloc();
  Packet* q2 = pool.alloc();
  EXPECT_EQ(q->meta.flow_id, 0u);
  EXPECT_EQ(q2->meta.flow_id, 0u);
  EXPECT_EQ(q2->meta.flow_new, 0);
}

// ---------------------------------------------------------------- rate classifiers

namespace {

// Pushes `per_tick` 100-byte frames every 10 ms for `seconds`; returns the last result.
Result drive(ElementHarness& h, uint64_t& now, int per_tick, double seconds) {
  Result last;
  for (int t = 0; t < seconds * 100; ++t) {
    now += 10'000'000ull;
    h.set_now(now);
    std::vector<Bytes> frames(per_tick, udp4("1.1.1.1", "2.2.2.2", 1, 2, std::string(58, 'x')));  // 100 bytes
    last = h.push(frames);
  }
  return last;
}

}  // namespace

TEST(RateClassifier, PpsFollowsTheRate) {
  ElementHarness h("PpsRateClassifier", {{"rate", {500, "2000"}}});
  ASSERT_EQ(h.element().output_count(), 3);
  uint64_t now = obi::blocks::clock_now_ns() - 20'000'000'000ull;
  EXPECT_EQ(drive(h, now, 1, 2).out[0].size(), 1u);    // 100 pps
  EXPECT_EQ(drive(h, now, 10, 2).out[1].size(), 10u);  // 1000 pps
  EXPECT_EQ(drive(h, now, 30, 2).out[2].size(), 30u);  // 3000 pps
  EXPECT_NEAR(h.read("input_rate").get<double>(), 3000, 300);
  EXPECT_EQ(drive(h, now, 1, 3).out[0].size(), 1u);  // back down
  EXPECT_GT(h.read("count_1").get<uint64_t>(), 0u);
  EXPECT_EQ(h.read("byte_count_2").get<uint64_t>(), h.read("count_2").get<uint64_t>() * 100);
  h.write("reset_2", nullptr);
  EXPECT_EQ(h.read("count_2"), 0);
  EXPECT_GT(h.read("count_1").get<uint64_t>(), 0u);
  h.write("reset_all_counts", nullptr);
  EXPECT_EQ(h.read("count_1"), 0);
}

TEST(RateClassifier, BpsUnitsAndThresholds) {
  ElementHarness h("BpsRateClassifier", {{"rate", {"400 kbps", "1 MBps"}}});  // 50 kB/s, 1 MB/s
  uint64_t now = obi::blocks::clock_now_ns() - 20'000'000'000ull;
  EXPECT_EQ(drive(h, now, 2, 2).out[0].size(), 2u);      // 20 kB/s
  EXPECT_EQ(drive(h, now, 20, 2).out[1].size(), 20u);    // 200 kB/s
  EXPECT_EQ(drive(h, now, 200, 2).out[2].size(), 200u);  // 2 MB/s
  EXPECT_EQ(config_error("BpsRateClassifier", {{"rate", {"10 Mbps", "1 Mbps"}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("BpsRateClassifier", {{"rate", {"10 furlongs"}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("PpsRateClassifier", {{"rate", {"fast"}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("PpsRateClassifier", json::object()), openbox::ErrorSubtype::BAD_BLOCK);
}
