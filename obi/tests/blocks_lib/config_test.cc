// The block toolkit's config errors (blocks/lib/config.hh): one format naming block, type,
// field path and what was expected, with the subtype each error has; checked on the
// reader itself and on real blocks built by their factories.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engine/testing.hh"
#include "lib/config.hh"
#include "openbox/error.hh"

using nlohmann::json;
using obi::ElementArgs;
using obi::blocks::ConfigReader;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

namespace {

struct Caught {
  ErrorSubtype subtype = ErrorSubtype::INTERNAL_ERROR;
  std::string message;
};

template <typename F>
Caught catch_error(F f) {
  try {
    f();
  } catch (const ProtocolError& e) {
    return {e.subtype(), e.what()};
  }
  ADD_FAILURE() << "no ProtocolError thrown";
  return {};
}

Caught build_error(const std::string& type, const json& config, const std::string& name) {
  return catch_error([&] { obi::testing::make_element(type, config, name); });
}

}  // namespace

TEST(ConfigReader, ErrorNamesBlockTypeFieldAndExpectation) {
  json cfg = {{"capacity", "ten"}, {"list", {1, "x"}}, {"on", 3}};
  ElementArgs a{"q1", "Queue", cfg, 1};
  ConfigReader c(a);
  Caught e = catch_error([&] { c.integer("capacity", 5, 1, 100); });
  EXPECT_EQ(e.subtype, ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(e.message, "block 'q1' (Queue): field 'capacity': expected an integer in [1, 100], got \"ten\"");
  e = catch_error([&] { c.boolean("on", false); });
  EXPECT_EQ(e.message, "block 'q1' (Queue): field 'on': expected true or false, got 3");
  e = catch_error([&] { c.strings("list", true); });
  EXPECT_EQ(e.message, "block 'q1' (Queue): field 'list[0]': expected a string, got 1");
  e = catch_error([&] { c.require("missing"); });
  EXPECT_EQ(e.message, "block 'q1' (Queue): field 'missing': required, missing");
  EXPECT_EQ(c.integer("absent", 7, 1, 100), 7);
}

TEST(ConfigReader, NestedPathsAndSubtypes) {
  json cfg = json::object();
  ElementArgs a{"n", "T", cfg, 1};
  ConfigReader c(a);
  obi::blocks::Where w = c.where("match").at(3).key("ipv4_src");
  EXPECT_EQ(w.str(), "block 'n' (T): field 'match[3].ipv4_src'");
  w.subtype = ErrorSubtype::BAD_HEADER_MATCH;
  Caught e = catch_error([&] { w.expected("an IPv4 prefix", json("10.0.0")); });
  EXPECT_EQ(e.subtype, ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(e.message, "block 'n' (T): field 'match[3].ipv4_src': expected an IPv4 prefix, got \"10.0.0\"");
  // a long value is cut, so hostile input does not flood the message
  e = catch_error([&] { w.expected("a short value", json(std::string(500, 'x'))); });
  EXPECT_LT(e.message.size(), 160u) << e.message;
}

TEST(ConfigReader, NonObjectConfigIsRefused) {
  json cfg = json::array({1});
  ElementArgs a{"b1", "Queue", cfg, 1};
  Caught e = catch_error([&] { ConfigReader c(a); });
  EXPECT_EQ(e.subtype, ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(e.message, "block 'b1' (Queue): expected a config object, got [1]");
}

// Real blocks: the header-match error names the rule and its field; the payload-match
// error the rule's pattern; plain config errors keep BAD_BLOCK.
TEST(BlockConfigErrors, HeaderClassifierNamesRuleAndField) {
  json match = json::array();
  for (int i = 0; i < 3; ++i) match.push_back({{"ETH_TYPE", "0x0800"}});
  match.push_back({{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "10.0.0"}});
  Caught e = build_error("HeaderClassifier", {{"match", match}}, "fw1");
  EXPECT_EQ(e.subtype, ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(e.message.rfind("block 'fw1' (HeaderClassifier): field 'match[3].IPV4_SRC': ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("10.0.0"), std::string::npos) << e.message;
}

// A rule whose fields are each valid but not together (a prerequisite missing, a field
// given twice through its alias) is named as a whole; a bad field behind a good one is
// still the one named.
TEST(BlockConfigErrors, HeaderClassifierNamesTheRuleWhenOnlyTheCombinationIsBad) {
  Caught e = build_error("HeaderClassifier", {{"match", json::array({{{"TCP_DST", "0x50"}}})}}, "fw1");
  EXPECT_EQ(e.subtype, ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(e.message.rfind("block 'fw1' (HeaderClassifier): field 'match[0]': ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("TCP_DST needs IP_PROTO"), std::string::npos) << e.message;

  e = build_error("HeaderClassifier", {{"match", json::array({{{"IP_PROTO", "0x6"}, {"IPV4_PROTO", "0x6"}}})}}, "fw1");
  EXPECT_EQ(e.message.rfind("block 'fw1' (HeaderClassifier): field 'match[0]': ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("given twice"), std::string::npos) << e.message;

  e = build_error("HeaderClassifier",
                  {{"match", json::array({{{"ETH_TYPE", "0x0800"}, {"IPV4_DST", "1.2.3.4/33"}, {"TCP_DST", "0x50"}}})}},
                  "fw1");
  EXPECT_EQ(e.message.rfind("block 'fw1' (HeaderClassifier): field 'match[0].IPV4_DST': ", 0), 0u) << e.message;
}

TEST(BlockConfigErrors, OneFormatAcrossBlocks) {
  struct Case {
    std::string type;
    json config;
    ErrorSubtype subtype;
    std::string prefix;
  };
  const Case cases[] = {
      {"Queue",
       {{"capacity", 0}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (Queue): field 'capacity': expected an integer in [1, 1048576], got 0"},
      {"PpsRateClassifier",
       {{"rate", {10, 5}}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (PpsRateClassifier): field 'rate[1]': expected a rate greater than the one before (10), got 5"},
      {"ProtocolAnalyzer",
       {{"protocols", {"tcp", "gopher"}}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (ProtocolAnalyzer): field 'protocols[1]': expected one of "},
      {"RegexClassifier",
       {{"pattern", {"ok", "a("}}},
       ErrorSubtype::BAD_PAYLOAD_MATCH,
       "block 'b' (RegexClassifier): field 'pattern[1]': expected a Hyperscan expression, got \"a(\""},
      {"FromDump",
       {{"filename", 5}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (FromDump): field 'filename': expected a string, got 5"},
      {"ToDump",
       {{"filename", ""}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (ToDump): field 'filename': expected a file name, got \"\""},
      {"Alert",
       {{"alerts", {{{"severity", 2}}}}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (Alert): field 'alerts[0].message': required, missing"},
      {"Queue",
       {{"capacity", 10}, {"capacty", 1}},
       ErrorSubtype::BAD_BLOCK,
       "block 'b' (Queue): field 'capacty': unknown field"},
  };
  for (const Case& c : cases) {
    Caught e = build_error(c.type, c.config, "b");
    EXPECT_EQ(e.subtype, c.subtype) << c.type << ": " << e.message;
    EXPECT_EQ(e.message.rfind(c.prefix, 0), 0u) << "expected prefix: " << c.prefix << "\n got: " << e.message;
  }
}

TEST(HandleErrors, SameFormatWithHandleAndIllegalArgument) {
  auto e = obi::testing::make_element("DecIpTtl", json::object(), "ttl");
  Caught c = catch_error([&] { e->write("active", json("maybe")); });
  EXPECT_EQ(c.subtype, ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(c.message, "block 'ttl' (DecIpTtl): handle 'active': expected true or false, got \"maybe\"");
}
