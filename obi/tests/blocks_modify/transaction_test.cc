// BeginTransaction, CommitTransaction and RollbackTransaction in chains with real
// modifiers: commit keeps the changes, rollback and a failed commit bring the packet back
// as it was at Begin, nesting, packets dropped inside a transaction, and no leaked
// packet buffer in any case.
#include <gtest/gtest.h>

#include "checks.hh"
#include "pipeline.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

using Blocks = std::vector<std::pair<std::string, json>>;

json named(const char* n) { return {{"name", n}}; }
const std::pair<std::string, json> kTtl{"DecIpTtl", json::object()};

Bytes frame() { return with_checksums(udp4("10.0.0.1", "10.0.0.2", 1000, 53, "query")); }
uint8_t ttl(const Bytes& b) { return b[offsets(b).l3 + 8]; }

void expect_all_returned(Pipeline& pl) { EXPECT_EQ(pl.pool().available(), pl.pool().capacity()); }

}  // namespace

TEST(Transactions, CommitKeepsTheChanges) {
  Pipeline pl({{"BeginTransaction", named("t")}, kTtl, {"CommitTransaction", named("t")}});
  pl.push({frame(), frame()});
  const auto& ok = pl.exit(2, 0);
  ASSERT_EQ(ok.frames.size(), 2u);
  EXPECT_EQ(ttl(ok.frames[0]), 63);
  EXPECT_TRUE(ipv4_checksum_ok(ok.frames[0]));
  EXPECT_EQ(ok.meta[0].undo, nullptr);  // closed: no copy travels on
  EXPECT_EQ(pl.exit(2, 1).frames.size(), 0u);
  EXPECT_EQ(pl.element(0).read("count").get<int>(), 2);
  EXPECT_EQ(pl.element(2).read("count_success").get<int>(), 2);
  EXPECT_EQ(pl.element(2).read("count_failure").get<int>(), 0);
  expect_all_returned(pl);
  pl.element(0).write("reset", nullptr);
  pl.element(2).write("reset", nullptr);
  EXPECT_EQ(pl.element(0).read("count").get<int>(), 0);
  EXPECT_EQ(pl.element(2).read("count_success").get<int>(), 0);
}

TEST(Transactions, RollbackRestoresBytesMetadataAndTimestamp) {
  Pipeline pl({{"BeginTransaction", named("t")},
               kTtl,
               {"WriteMetadata", {{"values", {{"mark", 1}}}}},
               {"SetTimestamp", {{"timestamp", "5"}}},
               {"RollbackTransaction", named("t")}});
  Packet* p = make_packet(pl.pool(), frame());
  p->timestamp_ns = 42;
  p->values.set("app", MetaValue::of("ips"));
  pl.push(std::vector<Packet*>{p});
  const auto& out = pl.exit(4, 0);
  ASSERT_EQ(out.frames.size(), 1u);
  EXPECT_EQ(out.frames[0], frame());  // TTL 64 again
  EXPECT_EQ(out.meta[0].timestamp_ns, 42u);
  EXPECT_EQ(out.meta[0].first_timestamp_ns, 0u);
  EXPECT_EQ(out.meta[0].values.n, 1);
  EXPECT_EQ(out.meta[0].values.find("mark"), nullptr);
  EXPECT_EQ(*out.meta[0].values.find("app"), MetaValue::of("ips"));
  EXPECT_EQ(pl.element(4).read("count").get<int>(), 1);
  expect_all_returned(pl);
}

TEST(Transactions, CommitWithoutTheTransactionFails) {
  Pipeline pl({kTtl, {"CommitTransaction", named("t")}});
  pl.push({frame()});
  ASSERT_EQ(pl.exit(1, 1).frames.size(), 1u);
  EXPECT_EQ(ttl(pl.exit(1, 1).frames[0]), 63);  // nothing to roll back to
  EXPECT_EQ(pl.element(1).read("count_failure").get<int>(), 1);

  Pipeline other(
      {{"BeginTransaction", named("a")}, kTtl, {"RollbackTransaction", named("b")}, {"CommitTransaction", named("a")}});
  other.push({frame()});
  ASSERT_EQ(other.exit(3, 0).frames.size(), 1u);  // b was never open: a commits
  EXPECT_EQ(ttl(other.exit(3, 0).frames[0]), 63);
  EXPECT_EQ(other.element(2).read("count").get<int>(), 0);
  expect_all_returned(pl);
  expect_all_returned(other);
}

TEST(Transactions, NestedTransactions) {
  // Inner b rolled back, outer a committed: only a's change stays.
  Pipeline ok({{"BeginTransaction", named("a")},
               kTtl,
               {"BeginTransaction", named("b")},
               kTtl,
               {"RollbackTransaction", named("b")},
               {"CommitTransaction", named("a")}});
  ok.push({frame()});
  ASSERT_EQ(ok.exit(5, 0).frames.size(), 1u);
  EXPECT_EQ(ttl(ok.exit(5, 0).frames[0]), 63);
  expect_all_returned(ok);

  // Committing a while b is still open fails: the packet is as it was at a's Begin.
  Pipeline bad({{"BeginTransaction", named("a")},
                kTtl,
                {"BeginTransaction", named("b")},
                kTtl,
                {"CommitTransaction", named("a")}});
  bad.push({frame()});
  ASSERT_EQ(bad.exit(4, 1).frames.size(), 1u);
  EXPECT_EQ(bad.exit(4, 1).frames[0], frame());
  EXPECT_EQ(bad.exit(4, 1).meta[0].undo, nullptr);
  EXPECT_EQ(bad.element(4).read("count_failure").get<int>(), 1);
  expect_all_returned(bad);

  // Rolling back the outer one closes the inner one too.
  Pipeline outer({{"BeginTransaction", named("a")},
                  kTtl,
                  {"BeginTransaction", named("b")},
                  kTtl,
                  {"RollbackTransaction", named("a")},
                  {"CommitTransaction", named("b")}});
  outer.push({frame()});
  ASSERT_EQ(outer.exit(5, 1).frames.size(), 1u);  // b is gone with a's rollback
  EXPECT_EQ(outer.exit(5, 1).frames[0], frame());
  expect_all_returned(outer);
}

TEST(Transactions, PacketsDroppedInsideFreeTheirCopies) {
  Pipeline pl({{"BeginTransaction", named("t")}, {"BeginTransaction", named("u")}, {"Discard", json::object()}});
  pl.push({frame(), frame(), frame()});
  EXPECT_EQ(pl.element(0).read("count").get<int>(), 3);
  expect_all_returned(pl);
}

TEST(Transactions, APacketThatCannotOpenItsTransactionIsDropped) {
  // Pool of 3: two packets, one copy; the second packet finds no buffer for its copy.
  Pipeline pl({{"BeginTransaction", named("t")}, {"CommitTransaction", named("t")}}, 3);
  pl.push({frame(), frame()});
  EXPECT_EQ(pl.exit(1, 0).frames.size(), 1u);
  EXPECT_EQ(pl.element(0).read("dropped").get<int>(), 1);
  EXPECT_EQ(pl.element(0).read("count").get<int>(), 1);
  expect_all_returned(pl);

  // Nesting past the limit.
  Blocks deep(9, {"BeginTransaction", named("n")});
  Pipeline nest(deep);
  nest.push({frame()});
  EXPECT_EQ(nest.element(8).read("dropped").get<int>(), 1);
  EXPECT_EQ(nest.element(7).read("count").get<int>(), 1);
  expect_all_returned(nest);
}

TEST(Transactions, BadConfigs) {
  for (const char* t : {"BeginTransaction", "CommitTransaction", "RollbackTransaction"}) {
    expect_bad_block(t, json::object(), "name");
    expect_bad_block(t, named(""), "name");
    expect_bad_block(t, {{"name", 3}}, "name");
  }
}
