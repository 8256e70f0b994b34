// Every classifier block (and the blocks that read or rewrite packets by their headers:
// Store, Restore, the timestamp blocks) on truncated and random frames: no crash, every packet either
// leaves on an output or is dropped, and every buffer returns to the pool.
#include <gtest/gtest.h>

#include <random>

#include "engine/testing.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

std::vector<Bytes> hostile_frames() {
  std::vector<Bytes> full;
  full.push_back(tcp4("192.0.2.1", "198.51.100.1", 40000, 80, "GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"));
  full.push_back(udp4("10.0.0.1", "10.0.0.2", 5353, 53, "dns?"));
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "fe80::1";
  v6.dst_ip = "ff02::1";
  v6.proto = 58;
  v6.icmp_type = 135;
  v6.payload = std::string(16, '\x20') + std::string("\x01\x01\x02\x00\x00\x00\x00\x01", 8);  // target + SLL option
  full.push_back(build(v6));
  Frame tagged;
  tagged.vlans = {0x2064, 0x0005};
  tagged.proto = 6;
  tagged.payload = "USER x";
  full.push_back(build(tagged));
  Frame sctp;
  sctp.proto = 132;
  full.push_back(build(sctp));
  std::vector<Bytes> out;
  for (const Bytes& f : full)
    for (size_t n = 0; n <= f.size(); ++n) out.emplace_back(f.begin(), f.begin() + n);
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    Bytes b(rng() % 120);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    if (b.size() > 13 && i % 3 == 0) {
      b[12] = 0x86;
      b[13] = 0xdd;
    }  // claim IPv6
    if (b.size() > 13 && i % 3 == 1) {
      b[12] = 0x08;
      b[13] = 0x00;
    }  // claim IPv4
    out.push_back(std::move(b));
  }
  return out;
}

void survive(const std::string& type, const json& cfg) {
  ElementHarness h(type, cfg, "fuzz", 1, 8192);
  auto frames = hostile_frames();
  Result r = h.push(frames);
  EXPECT_EQ(r.total() + r.dropped, frames.size()) << type;
  EXPECT_EQ(h.pool().available(), h.pool().capacity()) << type;
}

// HTTP responses with HTML and JavaScript bodies cut at every length, and with random
// bodies behind a valid head, for the normalizers.
std::vector<Bytes> hostile_http() {
  std::vector<Bytes> out;
  const std::string html =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 60\r\n\r\n"
      "<A HREF='&#x6a;s'>&#99999;&amp;<!-- x -->&lt  \n\t<B>&#";
  const std::string js =
      "HTTP/1.1 200 OK\r\nContent-Type: text/javascript\r\n\r\n"
      "a='\\x41\\u{1F600}%u0041'; /* c */ // d\n`\\u{` \"\\";
  for (const std::string& text : {html, js}) {
    Bytes f = tcp4("198.51.100.5", "192.0.2.10", 80, 40000, text);
    for (size_t n = 0; n <= f.size(); ++n) out.emplace_back(f.begin(), f.begin() + n);
    for (size_t n = 0; n <= text.size(); ++n)
      out.push_back(tcp4("198.51.100.5", "192.0.2.10", 80, 40000, text.substr(0, n)));
  }
  std::mt19937 rng(9);
  for (int i = 0; i < 400; ++i) {
    std::string body(rng() % 1400, '\0');
    for (char& c : body) c = static_cast<char>(rng());
    const char* type = i % 2 ? "text/html" : "application/javascript";
    out.push_back(tcp4("198.51.100.5", "192.0.2.10", 80, 40000,
                       std::string("HTTP/1.1 200 OK\r\nContent-Type: ") + type + "\r\n\r\n" + body));
  }
  return out;
}

void survive_http(const std::string& type, const json& cfg) {
  ElementHarness h(type, cfg, "fuzz", 1, 8192);
  auto frames = hostile_http();
  Result r = h.push(frames);
  ASSERT_EQ(r.out[0].size(), frames.size()) << type;  // normalizers never drop
  for (size_t i = 0; i < frames.size(); ++i) EXPECT_LE(r.out[0][i].size(), frames[i].size()) << type << " frame " << i;
  // Its 200 random bodies, and the cut copies that still hold a whole head and some body.
  EXPECT_GT(h.read("count").get<int>(), 200) << type;
  EXPECT_EQ(h.pool().available(), h.pool().capacity()) << type;
}

}  // namespace

TEST(Robustness, NormalizersOnTruncatedAndRandomHttpBodies) {
  survive_http("HtmlNormalizer", json::object());
  survive_http("JsNormalizer", json::object());
}

TEST(Robustness, TruncatedAndRandomFrames) {
  json all_fields = json::array();
  all_fields.push_back({{"ETH_TYPE", "0x86dd"},
                        {"IP_PROTO", 58},
                        {"ICMPV6_TYPE", 135},
                        {"IPV6_ND_TARGET", "2020::/16"},
                        {"IPV6_ND_SLL", "01:02:00:00:00:01"}});
  all_fields.push_back({{"ETH_TYPE", "0x86dd"}, {"IPV6_EXTHDR", "0x1%0x1"}, {"IPV6_FLABEL", "[0:]"}});
  all_fields.push_back(
      {{"VLAN_VID", 100}, {"VLAN_PCP", 1}, {"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_SRC", "[1:]"}});
  all_fields.push_back({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 132}, {"SCTP_DST", 80}, {"IP_DSCP", 0}, {"IP_ECN", 0}});
  all_fields.push_back({{"ETH_TYPE", "0x8847"}, {"MPLS_LABEL", 5}, {"MPLS_BOS", 1}, {"MPLS_TC", 0}});
  all_fields.push_back({{"ETH_TYPE", "0x88e7"}, {"PBB_ISID", 5}, {"PBB_UCA", 0}});
  all_fields.push_back({{"ETH_TYPE", "0x0806"}, {"ARP_OP", 1}, {"ARP_SHA", "00:00:00:00:00:00%00:00:00:00:00:00"}});
  all_fields.push_back({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 1}, {"ICMPV4_TYPE", 8}, {"ICMPV4_CODE", 0}});
  all_fields.push_back({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}, {"UDP_DST", 53}, {"IPV4_DST", "10.0.0.0/8"}});
  all_fields.push_back({{"TUNNEL_ID", 0}});
  survive("HeaderClassifier", {{"match", all_fields}});
  survive("RegexMatcher", {{"pattern", {"passwd", "\\x00\\x00"}}, {"payload_only", true}, {"match_all", true}});
  survive("RegexMatcher", {{"pattern", {"^$", "a*"}}});
  survive("RegexClassifier", {{"pattern", {"GET", "dns", "USER"}}, {"payload_only", true}});
  survive("HeaderPayloadClassifier",
          {{"match",
            json::array({{{"header_match", all_fields[2]}, {"payload_match", json::array({{{"pattern", "USER"}}})}},
                         {{"header_match", json::object()},
                          {"payload_match", json::array({{{"pattern", "passwd"}, {"from", 4}, {"to", 9}}})}},
                         {{"header_match", all_fields[8]}, {"payload_match", json::array()}}})}});
  survive("ContentClassifier", {{"pattern", {"12/86dd 54/87", "!12/0800 0/ff", "23/06 36/0050"}}});
  survive("ProtocolAnalyzer",
          {{"protocols", {"http", "https", "ftp", "smtp", "dns", "icmp", "tcp", "udp", "arp", "ipv6"}}});
  survive("SessionStore", {{"fields", {{"IPV6_SRC", "fz6"}, {"TCP_DST", "fzp"}, {"ETH_SRC", "fzm"}}}});
  survive("SessionClassifier",
          {{"match", json::array({{{"fz6", {{"is_field", true}, {"value", "IPV6_DST"}}}}, {{"fzp", "80"}}})}});
  survive("FlowTracker", json::object());
  survive("PpsRateClassifier", {{"rate", {10, 100}}});
  survive("BpsRateClassifier", {{"rate", {"1 kbps"}}});
}

TEST(Robustness, StoreRestoreAndTimestampsOnTruncatedAndRandomFrames) {
  // Store keeps records of the hostile frames; each Restore then writes them into hostile
  // frames of the same sessions, from every starting point it knows.
  survive("Store", {{"key", "fuzz"}, {"soft_timeout", 0}, {"hard_timeout", 60}, {"packet_size", -1}});
  survive("Store", {{"key", "fuzz-short"}, {"soft_timeout", 0}, {"hard_timeout", 60}, {"packet_size", 30}});
  for (const char* key : {"fuzz", "fuzz-short"}) {
    for (const char* proto : {"eth", "ip", "tcp", "udp", "l4", "payload"})
      survive("Restore", {{"key", key}, {"protocol", proto}});
    for (int offset : {0, 13, 14, 40, 60, 9216}) survive("Restore", {{"key", key}, {"offset", offset}});
  }
  survive("SetTimestamp", json::object());
  survive("HtmlNormalizer", json::object());
  survive("JsNormalizer", json::object());
  for (const char* range : {"RANGE", "NOW", "FIRST"})
    survive("SetTimestampDelta", {{"range", range}, {"metadata_key", "d"}});
}
