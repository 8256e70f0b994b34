// The metrics_subscription parameter (control/metrics_subscription.hh): its bounds and bad
// input, and the KeepAlive attachment's size limit, errors and omitted count.
#include <gtest/gtest.h>

#include <map>

#include "control/metrics_subscription.hh"
#include "control/parameters.hh"
#include "openbox/error.hh"

using nlohmann::json;
using obi::control::MetricsSubscription;

namespace {

// The error message of parsing `v`, or "" when it parses.
std::string refusal(const json& v) {
  try {
    MetricsSubscription::parse(v);
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ILLEGAL_ARGUMENT) << e.what();
    return e.what();
  }
  return "";
}

json reads(size_t blocks, size_t handles_each) {
  json r = json::array();
  for (size_t b = 0; b < blocks; ++b) {
    json hs = json::array();
    for (size_t h = 0; h < handles_each; ++h) hs.push_back("h" + std::to_string(h));
    r.push_back({{"block_id", "b" + std::to_string(b)}, {"read_handles", hs}});
  }
  return r;
}

}  // namespace

TEST(MetricsSubscription, ParsesAndRoundTrips) {
  json v = {{"id", 7},
            {"interval", 10},
            {"global_stats", false},
            {"max_bytes", 2048},
            {"reads", {{{"block_id", "fw"}, {"read_handles", {"count", "no_match"}}}}}};
  MetricsSubscription s = MetricsSubscription::parse(v);
  EXPECT_EQ(s.id, 7u);
  EXPECT_EQ(s.interval, 10);
  EXPECT_FALSE(s.global_stats);
  EXPECT_EQ(s.max_bytes, 2048u);
  ASSERT_EQ(s.reads.size(), 1u);
  EXPECT_EQ(s.reads[0].read_handles, (std::vector<std::string>{"count", "no_match"}));
  EXPECT_EQ(s.to_json(), v);
  // defaults
  MetricsSubscription d = MetricsSubscription::parse(json::object());
  EXPECT_EQ(d.interval, 10);
  EXPECT_TRUE(d.global_stats);
  EXPECT_EQ(d.max_bytes, MetricsSubscription::kDefaultMaxBytes);
  EXPECT_TRUE(d.reads.empty());
}

TEST(MetricsSubscription, RefusesBadInputNamingTheField) {
  EXPECT_NE(refusal(json::array()).find("metrics_subscription"), std::string::npos);
  EXPECT_NE(refusal({{"colour", 1}}).find("metrics_subscription.colour is unknown"), std::string::npos);
  EXPECT_NE(refusal({{"id", -1}}).find(".id"), std::string::npos);
  EXPECT_NE(refusal({{"id", 1ull << 53}}).find(".id"), std::string::npos);
  EXPECT_NE(refusal({{"interval", 0.5}}).find(".interval"), std::string::npos);
  EXPECT_NE(refusal({{"interval", 86401}}).find(".interval"), std::string::npos);
  EXPECT_NE(refusal({{"interval", "10s"}}).find(".interval"), std::string::npos);
  EXPECT_NE(refusal({{"global_stats", 1}}).find(".global_stats"), std::string::npos);
  EXPECT_NE(refusal({{"max_bytes", 1023}}).find(".max_bytes"), std::string::npos);
  EXPECT_NE(refusal({{"max_bytes", (1 << 20) + 1}}).find(".max_bytes"), std::string::npos);
  EXPECT_NE(refusal({{"reads", json::object()}}).find(".reads must be an array"), std::string::npos);
  EXPECT_NE(refusal({{"reads", {1}}}).find(".reads[0] must be an object"), std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"read_handles", {"count"}}}}}}).find(".reads[0].block_id is missing"),
            std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", "fw"}}}}}).find(".reads[0].read_handles is missing"), std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", "fw"}, {"read_handles", json::array()}}}}})
                .find("read_handles must be a non-empty"),
            std::string::npos);
  EXPECT_NE(
      refusal({{"reads", {{{"block_id", ""}, {"read_handles", {"count"}}}}}}).find(".reads[0].block_id must be 1..256"),
      std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", std::string(257, 'x')}, {"read_handles", {"count"}}}}}}).find("block_id"),
            std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", "fw"}, {"read_handles", {"count", 3}}}}}})
                .find(".reads[0].read_handles[1] must be a string"),
            std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", "fw"}, {"read_handles", {"count", "count"}}}}}}).find("repeats 'count'"),
            std::string::npos);
  EXPECT_NE(refusal({{"reads",
                      {{{"block_id", "fw"}, {"read_handles", {"count"}}},
                       {{"block_id", "fw"}, {"read_handles", {"drops"}}}}}})
                .find(".reads[1].block_id repeats block 'fw'"),
            std::string::npos);
  EXPECT_NE(refusal({{"reads", {{{"block_id", "fw"}, {"read_handles", {"count"}}, {"extra", 1}}}}})
                .find(".reads[0].extra is unknown"),
            std::string::npos);
}

TEST(MetricsSubscription, Bounds) {
  EXPECT_EQ(refusal({{"reads", reads(MetricsSubscription::kMaxBlocks, 1)}}), "");
  EXPECT_NE(refusal({{"reads", reads(MetricsSubscription::kMaxBlocks + 1, 1)}}).find("more than 1024 blocks"),
            std::string::npos);
  EXPECT_EQ(refusal({{"reads", reads(MetricsSubscription::kMaxHandles / 8, 8)}}), "");
  EXPECT_NE(refusal({{"reads", reads(MetricsSubscription::kMaxHandles / 8 + 1, 8)}}).find("passes 4096 handles"),
            std::string::npos);
  EXPECT_EQ(refusal({{"interval", 1}, {"max_bytes", 1024}}), "");
  EXPECT_EQ(refusal({{"interval", 86400}, {"max_bytes", 1 << 20}}), "");
}

TEST(MetricsSubscription, AttachmentCarriesReadsErrorsAndStats) {
  MetricsSubscription s = MetricsSubscription::parse({{"id", 3},
                                                      {"reads",
                                                       {{{"block_id", "fw"}, {"read_handles", {"count", "no_match"}}},
                                                        {{"block_id", "in"}, {"read_handles", {"offloads"}}}}}});
  std::vector<std::string> asked;
  json m =
      obi::control::collect_metrics(s, {{"packets_in", 10}}, [&](const std::string& b, const std::string& h) -> json {
        asked.push_back(b + "/" + h);
        if (b == "in") throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "no handle 'offloads'");
        return h == "count" ? json::array({4, 5}) : json(1);
      });
  EXPECT_EQ(asked, (std::vector<std::string>{"fw/count", "fw/no_match", "in/offloads"}));
  EXPECT_EQ(m["subscription"], 3);
  EXPECT_EQ(m["stats"], json({{"packets_in", 10}}));
  EXPECT_EQ(m["reads"], json({{"fw", {{"count", {4, 5}}, {"no_match", 1}}}}));
  ASSERT_EQ(m["errors"].size(), 1u);
  EXPECT_EQ(m["errors"][0]["block_id"], "in");
  EXPECT_EQ(m["errors"][0]["read_handle"], "offloads");
  EXPECT_EQ(m["errors"][0]["error_subtype"], "ILLEGAL_ARGUMENT");
  EXPECT_EQ(m["omitted"], 0);
  // without global_stats: no stats
  s.global_stats = false;
  EXPECT_FALSE(
      obi::control::collect_metrics(s, {{"packets_in", 10}}, [](auto&, auto&) { return json(1); }).contains("stats"));
}

TEST(MetricsSubscription, AttachmentStaysUnderMaxBytes) {
  // 64 blocks x 8 handles, each answering an array of 64 counters (~700 bytes): far over 4 KiB
  MetricsSubscription s = MetricsSubscription::parse({{"max_bytes", 4096}, {"reads", reads(64, 8)}});
  json big = json::array();
  for (int i = 0; i < 64; ++i) big.push_back(1000000000 + i);
  json m = obi::control::collect_metrics(s, {{"packets_in", 1}}, [&](auto&, auto&) { return big; });
  EXPECT_LE(m.dump().size(), 4096u);
  const uint64_t omitted = m["omitted"].get<uint64_t>();
  size_t kept = 0;
  for (const auto& [b, hs] : m["reads"].items()) kept += hs.size();
  EXPECT_GT(kept, 0u);
  EXPECT_GT(omitted, 0u);
  EXPECT_EQ(kept + omitted, 64u * 8u);
  // the same with small values: everything fits
  json small = obi::control::collect_metrics(MetricsSubscription::parse({{"reads", reads(64, 8)}}), json::object(),
                                             [](auto&, auto&) { return json(7); });
  EXPECT_EQ(small["omitted"], 0);
  EXPECT_LE(small.dump().size(), MetricsSubscription::kDefaultMaxBytes);
}

TEST(MetricsSubscription, ParameterIsAllOrNothingAndNullCancels) {
  obi::control::Parameters p;
  p.set({{"metrics_subscription", {{"id", 1}, {"interval", 5}}}});
  ASSERT_TRUE(p.values().metrics_subscription);
  EXPECT_EQ(p.values().metrics_subscription->interval, 5);
  EXPECT_EQ(p.get({"metrics_subscription"})["metrics_subscription"]["id"], 1);
  // a bad subscription beside a good parameter changes neither
  EXPECT_THROW(p.set({{"keepalive_interval", 3}, {"metrics_subscription", {{"interval", 0}}}}), openbox::ProtocolError);
  EXPECT_EQ(p.values().keepalive_interval, 10);
  EXPECT_EQ(p.values().metrics_subscription->id, 1u);
  p.set({{"metrics_subscription", nullptr}});
  EXPECT_FALSE(p.values().metrics_subscription);
  EXPECT_TRUE(p.get({"metrics_subscription"})["metrics_subscription"].is_null());
}
