// Hyperscan blocks (RegexMatcher, RegexClassifier, HeaderPayloadClassifier) and
// ContentClassifier on crafted frames.
#include <gtest/gtest.h>

#include "engine/testing.hh"
#include "openbox/error.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

openbox::ErrorSubtype config_error(const std::string& type, const json& cfg, const std::string& must_mention = "") {
  try {
    make_element(type, cfg, "blk");
  } catch (const openbox::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("blk"), std::string::npos) << e.what();
    if (!must_mention.empty()) {
      EXPECT_NE(std::string(e.what()).find(must_mention), std::string::npos) << e.what();
    }
    return e.subtype();
  }
  ADD_FAILURE() << type << " accepted " << cfg.dump();
  return openbox::ErrorSubtype::INTERNAL_ERROR;
}

Bytes http_get(const std::string& path, uint16_t dport = 80) {
  return tcp4("192.0.2.1", "198.51.100.1", 40000, dport, "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
}

}  // namespace

// ---------------------------------------------------------------- RegexMatcher

TEST(RegexMatcher, AnyMatchAndUnmatchedOutput) {
  ElementHarness h("RegexMatcher", {{"pattern", {"/etc/passwd", "(?i)cmd\\.exe"}}});
  ASSERT_EQ(h.element().output_count(), 2);
  Result r = h.push({http_get("/etc/passwd"), http_get("/scripts/CMD.EXE"), http_get("/index.html")});
  EXPECT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(h.read("count"), json({2, 1}));
  EXPECT_EQ(h.read("byte_count")[1].get<uint64_t>(), r.out[1][0].size());
  EXPECT_EQ(h.read("match_all"), false);
  EXPECT_EQ(h.read("payload_only"), false);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count"), json({0, 0}));
}

TEST(RegexMatcher, MatchAllNeedsEveryPattern) {
  ElementHarness h("RegexMatcher", {{"pattern", {"GET", "passwd"}}, {"match_all", true}});
  Result r = h.push({http_get("/etc/passwd"), http_get("/index.html")});
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.out[1].size(), 1u);
  h.write("match_all", false);
  EXPECT_EQ(h.read("match_all"), false);
  r = h.push({http_get("/etc/passwd"), http_get("/index.html")});
  EXPECT_EQ(r.out[0].size(), 2u);
}

TEST(RegexMatcher, PayloadOnlySkipsHeaders) {
  // "\x0a\x00\x00\x01" is 10.0.0.1 in the IP header, absent from the payload
  Bytes f = udp4("10.0.0.1", "10.0.0.2", 1, 2, "hello");
  ElementHarness whole("RegexMatcher", {{"pattern", {"\\x0a\\x00\\x00\\x01"}}});
  EXPECT_EQ(whole.push({f}).out[0].size(), 1u);
  ElementHarness pay("RegexMatcher", {{"pattern", {"\\x0a\\x00\\x00\\x01"}}, {"payload_only", true}});
  EXPECT_EQ(pay.push({f}).out[1].size(), 1u);
  ElementHarness anch("RegexMatcher", {{"pattern", {"^hello"}}, {"payload_only", true}});
  EXPECT_EQ(anch.push({f}).out[0].size(), 1u);
  anch.write("payload_only", false);  // ^hello no longer at the start of what is scanned
  EXPECT_EQ(anch.push({f}).out[1].size(), 1u);
  EXPECT_EQ(anch.read("payload_only"), false);
}

TEST(RegexMatcher, BadConfigs) {
  EXPECT_EQ(config_error("RegexMatcher", {{"pattern", {"ok", "(unclosed"}}}, "(unclosed"),
            openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(config_error("RegexMatcher", json::object()), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("RegexMatcher", {{"pattern", {1, 2}}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(config_error("RegexMatcher", {{"pattern", {"a"}}, {"match_all", "maybe"}}),
            openbox::ErrorSubtype::BAD_BLOCK);
  ElementHarness h("RegexMatcher", {{"pattern", {"a"}}});
  EXPECT_THROW(h.write("match_all", "x"), openbox::ProtocolError);
}

// ---------------------------------------------------------------- RegexClassifier

TEST(RegexClassifier, FirstPatternInListOrderWins) {
  ElementHarness h("RegexClassifier", {{"pattern", {"passwd", "GET", "HTTP/1\\.1"}}, {"payload_only", true}});
  ASSERT_EQ(h.element().output_count(), 3);
  Result r = h.push({http_get("/etc/passwd"), http_get("/x"), tcp4("1.1.1.1", "2.2.2.2", 1, 80, "PUT / HTTP/1.1"),
                     tcp4("1.1.1.1", "2.2.2.2", 1, 80, "nothing here")});
  EXPECT_EQ(r.out[0].size(), 1u);  // "passwd" comes after "GET" in the packet but first in the list
  EXPECT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(h.read("count_0"), 1);
  EXPECT_EQ(h.read("count_2"), 1);
  EXPECT_GT(h.read("byte_count_1").get<uint64_t>(), 0u);
  EXPECT_TRUE(h.read("rate_1").is_number());
  EXPECT_TRUE(h.read("byte_rate_1").is_number());
  EXPECT_EQ(h.read("payload_only"), true);
  EXPECT_THROW(h.read("count_3"), openbox::ProtocolError);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count_0"), 0);
  EXPECT_EQ(config_error("RegexClassifier", {{"pattern", {"a", "b{2,1}"}}}, "field 'pattern[1]'"),
            openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
}

TEST(RegexClassifier, WorkersHaveTheirOwnScratch) {
  ElementHarness h("RegexClassifier", {{"pattern", {"x+y"}}}, "b", 3);
  for (unsigned w = 0; w < 3; ++w) {
    h.set_worker(w);
    EXPECT_EQ(h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2, "aaxxxyb")}).out[0].size(), 1u);
  }
  EXPECT_EQ(h.read("count_0"), 3);
}

// ---------------------------------------------------------------- HeaderPayloadClassifier

TEST(HeaderPayloadClassifier, HeaderAndAllPayloadPatterns) {
  json web = {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "[80,8080]"}};
  json cfg = {
      {"match", json::array({
                    {{"type", "HeaderPayloadMatch"},
                     {"header_match", web},
                     {"payload_match",
                      json::array({{{"type", "PayloadPattern"}, {"pattern", "/etc/passwd"}, {"is_regex", false}},
                                   {{"pattern", "(?i)host: evil"}, {"is_regex", true}}})}},
                    {{"header_match", web}, {"payload_match", json::array({{{"pattern", "passwd"}}})}},
                    {{"header_match", {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}}}, {"payload_match", json::array()}},
                    {{"header_match", web}, {"payload_match", json::array({{{"pattern", "cmd\\.exe"}}})}},
                })}};
  ElementHarness h("HeaderPayloadClassifier", cfg);
  ASSERT_EQ(h.element().output_count(), 4);
  Bytes both = tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /etc/passwd HTTP/1.1\r\nHost: EVIL\r\n");
  Bytes one = tcp4("1.1.1.1", "2.2.2.2", 1, 8080, "GET /etc/passwd HTTP/1.1\r\nHost: good\r\n");
  Bytes wrong_port = tcp4("1.1.1.1", "2.2.2.2", 1, 81, "GET /etc/passwd HTTP/1.1\r\nHost: EVIL\r\n");
  Bytes udp = udp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /etc/passwd");
  Bytes cmd = tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /cmd.exe");
  Bytes clean = tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /index.html");
  Bytes literal =
      tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /etcXpasswd Host: evil");  // '.' is not a wildcard in a literal
  Result r = h.push({both, one, wrong_port, udp, cmd, clean, literal});
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.out[1].size(), 2u);  // one + literal (has "passwd")
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.out[3].size(), 1u);
  EXPECT_EQ(r.dropped, 2u);  // wrong_port, clean
  EXPECT_EQ(h.read("count"), json({1, 2, 1, 1}));
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

// A rule's second pattern may be another rule's fast pattern (then it is in the first
// database); a rule's patterns must all match, in any order.
TEST(HeaderPayloadClassifier, SharedPatternsAcrossStages) {
  auto pat = [](const char* s) { return json{{"pattern", s}}; };
  json cfg = {{"match",
               json::array({
                   {{"header_match", json::object()}, {"payload_match", json::array({pat("abcdef"), pat("xyz")})}},
                   {{"header_match", json::object()}, {"payload_match", json::array({pat("xyz")})}},
                   {{"header_match", json::object()}, {"payload_match", json::array({pat("q+r"), pat("longliteral")})}},
               })}};
  ElementHarness h("HeaderPayloadClassifier", cfg);
  auto out_of = [&](const std::string& payload) {
    Result r = h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2, payload)});
    for (size_t o = 0; o < r.out.size(); ++o)
      if (!r.out[o].empty()) return static_cast<int>(o);
    return -1;
  };
  EXPECT_EQ(out_of("..xyz..abcdef.."), 0);
  EXPECT_EQ(out_of("..abcdef.."), -1);
  EXPECT_EQ(out_of("..xyz.."), 1);
  EXPECT_EQ(out_of("longliteral qqqr"), 2);
  EXPECT_EQ(out_of("longliteral qq"), -1);
  EXPECT_EQ(out_of("qqr"), -1);
}

TEST(HeaderPayloadClassifier, OffsetsAndPayloadOnly) {
  json cfg = {{"match", json::array({
                            {{"header_match", json::object()},
                             {"payload_match", json::array({{{"pattern", "abc"}, {"from", 0}, {"to", 2}}})}},
                            {{"header_match", json::object()}, {"payload_match", json::array({{{"pattern", "abc"}}})}},
                        })}};
  ElementHarness h("HeaderPayloadClassifier", cfg);
  Result r = h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2, "xxabc"), udp4("1.1.1.1", "2.2.2.2", 1, 2, "xxxxabc")});
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.out[1].size(), 1u);
  // whole-frame scanning: the payload starts at byte 42, so offset 2 is no longer reachable
  cfg["payload_only"] = false;
  ElementHarness w("HeaderPayloadClassifier", cfg);
  r = w.push({udp4("1.1.1.1", "2.2.2.2", 1, 2, "xxabc")});
  EXPECT_EQ(r.out[1].size(), 1u);
}

TEST(HeaderPayloadClassifier, BadConfigs) {
  auto rule = [](json pm) {
    return json{{"match", json::array({{{"header_match", json::object()}, {"payload_match", pm}}})}};
  };
  EXPECT_EQ(config_error("HeaderPayloadClassifier", rule(json::array({{{"pattern", "a("}}})),
                         "field 'match[0].payload_match[0]': expected a Hyperscan expression, got \"a(\""),
            openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(config_error("HeaderPayloadClassifier", rule("x")), openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(config_error("HeaderPayloadClassifier", rule(json::array({{{"pattern", 3}}}))),
            openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(config_error("HeaderPayloadClassifier", rule(json::array({{{"pattern", "a"}, {"from", 5}, {"to", 1}}}))),
            openbox::ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(
      config_error("HeaderPayloadClassifier",
                   {{"match", json::array({{{"header_match", {{"TCP_DST", 80}}}, {"payload_match", json::array()}}})}}),
      openbox::ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(config_error("HeaderPayloadClassifier", {{"match", json::array()}}), openbox::ErrorSubtype::BAD_BLOCK);
}

// ---------------------------------------------------------------- ContentClassifier

TEST(ContentClassifier, ClausesMasksNibblesNegation) {
  ElementHarness h(
      "ContentClassifier",
      {{"pattern",
        {"12/0806 20/0001", "12/0800 23/06", "12/0800 !23/06 26/0a??%ffff", "12/08?? 30/0a000002%ffffff00", "-"}}});
  ASSERT_EQ(h.element().output_count(), 5);
  Bytes arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  arp[20] = 0x00;
  arp[21] = 0x01;
  Result r = h.push({arp, tcp4("10.0.0.1", "10.0.0.2", 1, 2), udp4("10.9.0.1", "10.0.0.2", 1, 2),
                     udp4("11.0.0.1", "10.0.0.7", 1, 2), udp4("11.0.0.1", "11.0.0.2", 1, 2)});
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.out[3].size(), 1u);
  EXPECT_EQ(r.out[4].size(), 1u);
  EXPECT_EQ(h.read("count"), json({1, 1, 1, 1, 1}));
}

TEST(ContentClassifier, ShortFramesAndNoMatch) {
  ElementHarness h("ContentClassifier", {{"pattern", {"100/ff", "!100/ff 0/02"}}});
  Result r = h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2), Bytes{0x03, 0x00}, Bytes{}});
  EXPECT_EQ(r.out[1].size(), 1u);  // frame too short: the clause fails, its negation holds
  EXPECT_EQ(r.dropped, 2u);
}

TEST(ContentClassifier, BadConfigs) {
  for (const char* bad : {"12/080", "12/08x0", "x/08", "12/0800%ff", "", "- 12/0800", "/08"})
    EXPECT_EQ(config_error("ContentClassifier", {{"pattern", {"-", bad}}}), openbox::ErrorSubtype::BAD_BLOCK) << bad;
}
