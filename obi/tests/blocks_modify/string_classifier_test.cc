// StringClassifier: literal strings (metacharacters included) in priority order, case
// folding, payload_only, handles and bad configs.
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

TEST(StringClassifier, FirstListedStringWinsAndMetacharactersAreLiteral) {
  ElementHarness h("StringClassifier", {{"strings", {"a.c", "(x)", "GET /admin"}}});
  ASSERT_EQ(h.element().output_count(), 3);
  Result r = h.push({tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /admin?f=(x)&y=a.c"),  // all three: string 0
                     tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /admin?q=(x)"),        // 1 and 2: string 1
                     tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /admin"),
                     tcp4("1.1.1.1", "2.2.2.2", 1, 80, "abc x get /ADMIN"),  // "a.c" is not a regex
                     tcp4("1.1.1.1", "2.2.2.2", 1, 80, "a.c")});
  EXPECT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(h.read("count").dump(), "[2,1,1]");
  EXPECT_EQ(h.read("count_2").get<int>(), 1);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").dump(), "[0,0,0]");
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(StringClassifier, CaseInsensitiveAndPayloadOnly) {
  ElementHarness any_case("StringClassifier", {{"strings", {"cmd.exe"}}, {"case_insensitive", true}});
  EXPECT_EQ(any_case.push({tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /CMD.Exe")}).out[0].size(), 1u);
  ElementHarness exact("StringClassifier", {{"strings", {"cmd.exe"}}});
  EXPECT_EQ(exact.push({tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /CMD.Exe")}).dropped, 1u);

  // The bytes 10.0.0.1 (0a 00 00 01) are in the IP header, not in the payload.
  const std::string addr("\x0a\x00\x00\x01", 4);
  ElementHarness h("StringClassifier", {{"strings", {addr}}, {"payload_only", true}});
  EXPECT_EQ(h.push({udp4("10.0.0.1", "10.0.0.2", 1, 2, "x")}).dropped, 1u);
  h.write("payload_only", false);
  EXPECT_EQ(h.read("payload_only").get<bool>(), false);
  EXPECT_EQ(h.push({udp4("10.0.0.1", "10.0.0.2", 1, 2, "x")}).out[0].size(), 1u);
  expect_illegal(h, "payload_only", "maybe");
}

TEST(StringClassifier, BadConfigs) {
  expect_bad_block("StringClassifier", json::object(), "strings");
  expect_bad_block("StringClassifier", {{"strings", json::array()}}, "strings");
  expect_bad_block("StringClassifier", {{"strings", {"a", ""}}},
                   "field 'strings[1]': expected a non-empty string, got \"\"");
  expect_bad_block("StringClassifier", {{"strings", {"a", 3}}}, "field 'strings[1]': expected a string, got 3");
  expect_bad_block("StringClassifier", {{"strings", {"a"}}, {"pattern", {"b"}}}, "pattern");
  expect_bad_block("StringClassifier", {{"strings", {"a"}}, {"case_insensitive", "yes"}}, "case_insensitive");
}
