// The packet fields an alert carries: captured by the Alert block through the event ring
// from the packet's headers, and put into the protocol's Alert entry, for IPv4 TCP and
// UDP, IPv6, ICMP / ICMPv6 and packets without IP; the packet's own timestamp travels too.
#include <gtest/gtest.h>

#include "engine/testing.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

// What the OBI would send for one alert on `frame`: the Alert block run on it, the event
// drained from the ring, the entry encoded as on the wire.
json alert_entry(const Bytes& frame, uint64_t timestamp_ns = 0) {
  ElementHarness h("Alert", json{{"alerts", json::array({json{{"message", "m"}, {"severity", 3}, {"app_id", "fw"}}})}},
                   "warn");
  Batch b;
  Packet* p = make_packet(h.pool(), frame);
  p->timestamp_ns = timestamp_ns;
  b.add(p);
  h.push_batch(b);
  std::vector<Event> ev;
  EXPECT_EQ(h.events().drain(ev, 10), 1u);
  if (ev.size() != 1) return json();
  openbox::Alert m;
  m.origin_dpid = 1;
  openbox::EventEntry en;
  en.id = ev[0].id;
  en.timestamp = ev[0].timestamp;
  en.message = ev[0].message;
  en.severity = ev[0].severity;
  ev[0].fields.add_to(en, ev[0].packet_timestamp);
  m.messages.push_back(en);
  json wire = openbox::encode(openbox::Message(m));
  // and what the receiving side decodes from it is the same
  openbox::Message back = openbox::decode(wire.dump(), openbox::MessageType::Alert);
  EXPECT_EQ(openbox::encode(back), wire);
  return wire["messages"][0];
}

}  // namespace

TEST(AlertFields, Ipv4TcpHasAddressesPortsAndPacketTime) {
  json e = alert_entry(tcp4("192.0.2.10", "198.51.100.7", 40001, 443, "hello"), 1700000000123456789ull);
  EXPECT_EQ(e["src_ip"], "192.0.2.10");
  EXPECT_EQ(e["dst_ip"], "198.51.100.7");
  EXPECT_EQ(e["ip_proto"], 6);
  EXPECT_EQ(e["src_port"], 40001);
  EXPECT_EQ(e["dst_port"], 443);
  EXPECT_EQ(e["eth_type"], 0x0800);
  EXPECT_NEAR(e["packet_timestamp"].get<double>(), 1700000000.123456789, 1e-6);
  EXPECT_FALSE(e.contains("eth_src"));  // IP packets are named by their addresses
  EXPECT_FALSE(e.contains("icmp_type"));
}

TEST(AlertFields, Ipv4UdpAfterVlanTag) {
  Frame f;
  f.vlans = {100};
  f.proto = 17;
  f.src_ip = "10.1.2.3";
  f.dst_ip = "10.9.8.7";
  f.src_port = 5353;
  f.dst_port = 53;
  json e = alert_entry(build(f));
  EXPECT_EQ(e["eth_type"], 0x0800);
  EXPECT_EQ(e["src_ip"], "10.1.2.3");
  EXPECT_EQ(e["dst_ip"], "10.9.8.7");
  EXPECT_EQ(e["ip_proto"], 17);
  EXPECT_EQ(e["src_port"], 5353);
  EXPECT_EQ(e["dst_port"], 53);
  EXPECT_FALSE(e.contains("packet_timestamp"));  // a packet without a capture time
}

TEST(AlertFields, Ipv6TcpAndIcmpv6) {
  Frame f;
  f.ipv6 = true;
  f.proto = 6;
  f.src_ip = "2001:db8::1";
  f.dst_ip = "2001:db8:0:0:1::2";
  f.src_port = 1234;
  f.dst_port = 22;
  json e = alert_entry(build(f));
  EXPECT_EQ(e["eth_type"], 0x86dd);
  EXPECT_EQ(e["src_ip"], "2001:db8::1");
  EXPECT_EQ(e["dst_ip"], "2001:db8::1:0:0:2");  // RFC 5952 text: the first longest zero run
  EXPECT_EQ(e["ip_proto"], 6);
  EXPECT_EQ(e["src_port"], 1234);
  EXPECT_EQ(e["dst_port"], 22);

  f.proto = 58;
  f.icmp_type = 128;
  f.icmp_code = 0;
  json i = alert_entry(build(f));
  EXPECT_EQ(i["ip_proto"], 58);
  EXPECT_EQ(i["icmp_type"], 128);
  EXPECT_EQ(i["icmp_code"], 0);
  EXPECT_FALSE(i.contains("src_port"));
}

TEST(AlertFields, Icmpv4TypeAndCode) {
  Frame f;
  f.proto = 1;
  f.icmp_type = 3;
  f.icmp_code = 13;
  f.src_ip = "203.0.113.1";
  f.dst_ip = "203.0.113.2";
  json e = alert_entry(build(f));
  EXPECT_EQ(e["ip_proto"], 1);
  EXPECT_EQ(e["icmp_type"], 3);
  EXPECT_EQ(e["icmp_code"], 13);
  EXPECT_EQ(e["src_ip"], "203.0.113.1");
  EXPECT_FALSE(e.contains("src_port"));
  EXPECT_FALSE(e.contains("dst_port"));
}

TEST(AlertFields, NonIpHasOnlyTheEthernetFields) {
  Frame f;
  f.eth_type = 0x0806;  // ARP
  f.proto = 0;
  f.src_mac = "02:aa:bb:cc:dd:01";
  f.dst_mac = "ff:ff:ff:ff:ff:ff";
  Bytes arp = build(f);
  json e = alert_entry(arp);
  EXPECT_EQ(e["eth_type"], 0x0806);
  EXPECT_EQ(e["eth_src"], "02:aa:bb:cc:dd:01");
  EXPECT_EQ(e["eth_dst"], "ff:ff:ff:ff:ff:ff");
  for (const char* k : {"src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "icmp_type"})
    EXPECT_FALSE(e.contains(k)) << k;
}

TEST(AlertFields, NonFirstFragmentHasAddressesButNoPorts) {
  Bytes frag = udp4("10.0.0.1", "10.0.0.2", 1000, 2000, "x");
  frag[14 + 6] = 0x00;  // fragment offset 8 bytes, not the first fragment
  frag[14 + 7] = 0x01;
  json e = alert_entry(frag);
  EXPECT_EQ(e["src_ip"], "10.0.0.1");
  EXPECT_EQ(e["ip_proto"], 17);
  EXPECT_FALSE(e.contains("src_port"));
}

TEST(AlertFields, LogsCarryNoPacketFields) {
  PacketPool pool(2);
  RingEventSink sink(1, 4);
  Packet* p = make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 2));
  p->timestamp_ns = 5000000000ull;
  sink.post(EventSink::Kind::kLog, "log", "", "x", 1, *p, 0, 0, 0);
  sink.post(EventSink::Kind::kAlert, "alert", "", "y", 1, *p, 0, 0, 0);
  std::vector<Event> ev;
  ASSERT_EQ(sink.drain(ev, 10), 2u);
  EXPECT_EQ(ev[0].fields.present, 0);
  EXPECT_EQ(ev[0].packet_timestamp, 0);
  EXPECT_TRUE(ev[1].fields.has(PacketFields::kIpv4 | PacketFields::kPorts));
  EXPECT_DOUBLE_EQ(ev[1].packet_timestamp, 5.0);
  pool.free(p);
}
