// Store and Restore on crafted TCP and UDP frames: a record per (key, session), restore
// from a protocol or an offset with lengths and checksums recomputed, metadata carried,
// timeouts, misses on output 1, handles and bad configs.
#include <gtest/gtest.h>

#include <string>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

constexpr uint64_t kSec = 1000000000ull;

json store_cfg(const std::string& key, double soft, double hard, int size = -1) {
  return {{"key", key}, {"soft_timeout", soft}, {"hard_timeout", hard}, {"packet_size", size}};
}

Bytes request() {
  return with_checksums(tcp4("192.0.2.10", "198.51.100.5", 40000, 80, "GET /index.html HTTP/1.1\r\n\r\n"));
}
Bytes response(const std::string& body) { return with_checksums(tcp4("198.51.100.5", "192.0.2.10", 80, 40000, body)); }

std::string payload_of(const Bytes& b) {
  Offsets o = offsets(b);
  const size_t at = o.l4 + (o.proto == 6 ? size_t(b[o.l4 + 12] >> 4) * 4 : 8);
  return std::string(b.begin() + at, b.begin() + o.l3 + (be16(b, o.l3 + 2)));
}

}  // namespace

TEST(StoreRestore, RestoresTheSessionsPayloadIntoTheOtherDirection) {
  ElementHarness store("Store", store_cfg("srt-payload", 0, 30));
  ElementHarness restore("Restore", {{"key", "srt-payload"}, {"protocol", "payload"}});
  MetaStore m;
  m.set("app", MetaValue::of("cache"));
  Batch b;
  Packet* req = make_packet(store.pool(), request());
  req->values = m;
  b.add(req);
  Result r = store.push_batch(b);
  ASSERT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.out[0][0], request());  // Store leaves the packet alone
  EXPECT_EQ(store.read("count").get<int>(), 1);
  EXPECT_EQ(store.read("bytes").get<size_t>(), request().size());

  // The response of the same connection gets the request's payload; another session misses.
  r = restore.push({response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
                    with_checksums(tcp4("198.51.100.5", "192.0.2.99", 80, 40000, "other"))});
  ASSERT_EQ(r.out[0].size(), 1u);
  ASSERT_EQ(r.out[1].size(), 1u);
  const Bytes& got = r.out[0][0];
  EXPECT_EQ(payload_of(got), "GET /index.html HTTP/1.1\r\n\r\n");
  Offsets o = offsets(got);
  EXPECT_EQ(be16(got, o.l4), 80);                // the response's own headers
  EXPECT_EQ(be32(got, o.l3 + 12), 0xc6336405u);  // 198.51.100.5
  EXPECT_EQ(got.size(), o.l3 + be16(got, o.l3 + 2));
  EXPECT_TRUE(ipv4_checksum_ok(got));
  EXPECT_TRUE(l4_checksum_ok(got));
  ASSERT_NE(r.meta[0][0].values.find("app"), nullptr);
  EXPECT_EQ(*r.meta[0][0].values.find("app"), MetaValue::of("cache"));
  EXPECT_EQ(payload_of(r.out[1][0]), "other");  // unchanged
  EXPECT_EQ(restore.read("count").get<int>(), 1);
  EXPECT_EQ(restore.read("bytes").get<int>(), 28);
  restore.write("reset", nullptr);
  store.write("reset", nullptr);
  EXPECT_EQ(restore.read("count").get<int>(), 0);
  EXPECT_EQ(store.read("bytes").get<int>(), 0);
  expect_illegal(restore, "reset_counts", nullptr);
  EXPECT_EQ(store.pool().available(), store.pool().capacity());
  EXPECT_EQ(restore.pool().available(), restore.pool().capacity());
}

TEST(StoreRestore, UdpOffsetsPacketSizeAndProtocolMismatch) {
  Bytes big = udp4("10.1.0.1", "10.1.0.2", 5000, 6000, std::string(100, 'A'));
  fix_l4_checksum(big);
  Bytes reply = udp4("10.1.0.2", "10.1.0.1", 6000, 5000, std::string(10, 'b'));
  fix_l4_checksum(reply);
  {
    // The whole frame from the IP header on: the packet becomes the stored one.
    ElementHarness store("Store", store_cfg("srt-ip", 0, 30));
    ElementHarness restore("Restore", {{"key", "srt-ip"}, {"offset", 14}});
    store.push({big});
    Result r = restore.push({reply});
    ASSERT_EQ(r.out[0].size(), 1u);
    EXPECT_EQ(r.out[0][0], big);
  }
  {
    // 50 stored bytes restored as UDP: the UDP header and 8 payload bytes.
    ElementHarness store("Store", store_cfg("srt-udp", 0, 30, 50));
    ElementHarness restore("Restore", {{"key", "srt-udp"}, {"protocol", "udp"}});
    ElementHarness tcp("Restore", {{"key", "srt-udp"}, {"protocol", "tcp"}});
    store.push({big});
    EXPECT_EQ(store.read("bytes").get<int>(), 50);
    Result r = tcp.push({reply});
    EXPECT_EQ(r.out[1].size(), 1u);  // stored packet is not TCP
    r = restore.push({reply});
    ASSERT_EQ(r.out[0].size(), 1u);
    const Bytes& got = r.out[0][0];
    Offsets o = offsets(got);
    EXPECT_EQ(got.size(), 50u);
    EXPECT_EQ(be16(got, o.l4), 5000);    // the stored UDP header
    EXPECT_EQ(be16(got, o.l4 + 4), 16);  // its length fixed to 8 + 8
    EXPECT_EQ(be16(got, o.l3 + 2), 36);
    EXPECT_EQ(std::string(got.begin() + 42, got.end()), std::string(8, 'A'));
    EXPECT_TRUE(ipv4_checksum_ok(got));
    EXPECT_TRUE(l4_checksum_ok(got));
  }
  {
    // Non-IP frames are neither stored nor restored.
    Frame arp;
    arp.eth_type = 0x0806;
    arp.proto = 0;
    arp.payload = std::string(28, '\1');
    ElementHarness store("Store", store_cfg("srt-arp", 0, 30));
    ElementHarness restore("Restore", {{"key", "srt-arp"}, {"offset", 0}});
    Result r = store.push({build(arp)});
    EXPECT_EQ(r.out[0].size(), 1u);
    EXPECT_EQ(store.read("count").get<int>(), 0);
    EXPECT_EQ(restore.push({build(arp)}).out[1].size(), 1u);
  }
}

TEST(StoreRestore, HardAndSoftTimeouts) {
  ElementHarness store("Store", store_cfg("srt-time", 2, 10));
  ElementHarness restore("Restore", {{"key", "srt-time"}, {"protocol", "payload"}});
  store.set_now(100 * kSec);
  store.push({request()});
  // Read within the soft timeout at 101.5 s and 103 s: each read keeps it alive.
  for (uint64_t t : {uint64_t{101500000000}, 103 * kSec}) {
    restore.set_now(t);
    EXPECT_EQ(restore.push({response("x")}).out[0].size(), 1u) << t;
  }
  restore.set_now(105 * kSec + 1);  // 2 s idle: soft timeout
  EXPECT_EQ(restore.push({response("x")}).out[1].size(), 1u);

  store.set_now(200 * kSec);
  store.push({request()});
  for (uint64_t t = 201; t <= 209; t += 1) {
    restore.set_now(t * kSec);
    ASSERT_EQ(restore.push({response("x")}).out[0].size(), 1u) << t;
  }
  restore.set_now(210 * kSec);  // 10 s after storing: hard timeout
  EXPECT_EQ(restore.push({response("x")}).out[1].size(), 1u);
}

TEST(StoreRestore, BadConfigs) {
  expect_bad_block("Store", {{"soft_timeout", 0}, {"hard_timeout", 1}}, "key");
  expect_bad_block("Store", store_cfg("", 0, 1), "key");
  expect_bad_block("Store", store_cfg("k", -1, 1), "soft_timeout");
  expect_bad_block("Store", store_cfg("k", 0, 0), "hard_timeout");
  expect_bad_block("Store", {{"key", "k"}, {"soft_timeout", 0}}, "hard_timeout");
  expect_bad_block("Store", {{"key", "k"}, {"soft_timeout", 0}, {"hard_timeout", 1}, {"buffer_timeout", -5}},
                   "buffer_timeout");
  expect_bad_block("Restore", {{"key", "k"}}, "offset");
  expect_bad_block("Restore", {{"key", "k"}, {"offset", 0}, {"protocol", "ip"}}, "protocol");
  expect_bad_block("Restore", {{"key", "k"}, {"protocol", "http2"}}, "protocol");
  expect_bad_block("Restore", {{"key", "k"}, {"offset", -1}}, "offset");
  expect_bad_block("Restore", {{"offset", 1}}, "key");
}
