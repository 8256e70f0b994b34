// WriteMetadata, ReadMetadata, EncapsulateMetadata and DecapsulateMetadata on crafted
// frames: values written, classified on, carried in NSH and read back.
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

// Pushes `frames` into h, each packet starting with the metadata `m`.
Result push_with(ElementHarness& h, const std::vector<Bytes>& frames, const MetaStore& m) {
  Batch b;
  for (const Bytes& f : frames) {
    Packet* p = make_packet(h.pool(), f);
    p->values = m;
    b.add(p);
  }
  return h.push_batch(b);
}

MetaStore written(const json& values) {
  ElementHarness w("WriteMetadata", {{"values", values}});
  Result r = w.push({udp4("10.0.0.1", "10.0.0.2", 1, 2)});
  EXPECT_EQ(r.out[0].size(), 1u);
  return r.meta[0].at(0).values;
}

}  // namespace

TEST(WriteMetadata, WritesOverwritesAndCountsAFullStore) {
  ElementHarness h("WriteMetadata", {{"values", {{"app", "ips"}, {"mark", 3}}}});
  MetaStore start;
  start.set("mark", MetaValue::of(int64_t{9}));
  start.set("other", MetaValue::of("x"));
  Result r = push_with(h, {udp4("1.1.1.1", "2.2.2.2", 1, 2)}, start);
  ASSERT_EQ(r.out[0].size(), 1u);
  const MetaStore& m = r.meta[0][0].values;
  EXPECT_EQ(m.n, 3);
  ASSERT_NE(m.find("app"), nullptr);
  EXPECT_EQ(*m.find("app"), MetaValue::of("ips"));
  EXPECT_EQ(*m.find("mark"), MetaValue::of(int64_t{3}));  // overwritten
  EXPECT_EQ(*m.find("other"), MetaValue::of("x"));
  EXPECT_EQ(h.read("count").get<int>(), 1);

  MetaStore crowded;
  for (const char* k : {"a", "b", "c", "d"}) crowded.set(k, MetaValue::of(int64_t{1}));
  r = push_with(h, {udp4("1.1.1.1", "2.2.2.2", 1, 2)}, crowded);
  ASSERT_EQ(r.out[0].size(), 1u);  // passes on, without the new keys
  EXPECT_EQ(r.meta[0][0].values.find("app"), nullptr);
  EXPECT_EQ(h.read("full").get<int>(), 1);
  EXPECT_EQ(h.read("count").get<int>(), 1);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").get<int>(), 0);
  EXPECT_EQ(h.read("full").get<int>(), 0);
  expect_illegal(h, "nope", 1);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(WriteMetadata, FreshPacketsStartWithoutMetadata) {
  // A packet the pool hands out again must not keep the values of its last use.
  ElementHarness h("WriteMetadata", {{"values", {{"app", "ips"}}}}, "b", 1, 1);
  h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2)});
  Packet* p = make_packet(h.pool(), udp4("1.1.1.1", "2.2.2.2", 1, 2));
  EXPECT_EQ(p->values.n, 0);
  h.pool().free(p);
}

TEST(WriteMetadata, BadConfigs) {
  expect_bad_block("WriteMetadata", json::object(), "values");
  expect_bad_block("WriteMetadata", {{"values", json::object()}}, "values");
  expect_bad_block("WriteMetadata", {{"values", json::array({1})}}, "values");
  expect_bad_block("WriteMetadata", {{"values", {{"k", 1.5}}}},
                   "field 'values.k': expected an integer or a string, got 1.5");
  expect_bad_block("WriteMetadata", {{"values", {{"k", true}}}}, "field 'values.k'");
  expect_bad_block("WriteMetadata", {{"values", {{"k", std::string(23, 'x')}}}}, "22 bytes");
  expect_bad_block("WriteMetadata", {{"values", {{std::string(16, 'k'), 1}}}}, "1..15 bytes");
  expect_bad_block("WriteMetadata", {{"values", {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}}}}, "at most 4");
  expect_bad_block("WriteMetadata", {{"values", {{"a", 1}}}, {"value", 1}}, "value");
}

TEST(ReadMetadata, ClassifiesByValueAndType) {
  ElementHarness h("ReadMetadata", {{"key", "app"}, {"values", {"ips", 7, "fw"}}});
  ASSERT_EQ(h.element().output_count(), 4);
  Bytes f = udp4("1.1.1.1", "2.2.2.2", 1, 2);
  MetaStore none, ips, seven, seven_text, fw, other_key;
  ips.set("app", MetaValue::of("ips"));
  seven.set("app", MetaValue::of(int64_t{7}));
  seven_text.set("app", MetaValue::of("7"));  // a string never equals an integer
  fw.set("x", MetaValue::of(int64_t{1}));
  fw.set("app", MetaValue::of("fw"));
  other_key.set("ap", MetaValue::of("ips"));
  EXPECT_EQ(push_with(h, {f}, none).out[0].size(), 1u);
  EXPECT_EQ(push_with(h, {f, f}, ips).out[1].size(), 2u);
  EXPECT_EQ(push_with(h, {f}, seven).out[2].size(), 1u);
  EXPECT_EQ(push_with(h, {f}, seven_text).out[0].size(), 1u);
  EXPECT_EQ(push_with(h, {f}, fw).out[3].size(), 1u);
  EXPECT_EQ(push_with(h, {f}, other_key).out[0].size(), 1u);
  EXPECT_EQ(h.read("count").dump(), "[3,2,1,1]");
  EXPECT_EQ(h.read("count_1").get<int>(), 2);
  EXPECT_EQ(h.read("byte_count_1").get<int>(), 2 * int(f.size()));
  h.write("reset_1", nullptr);
  EXPECT_EQ(h.read("count").dump(), "[3,0,1,1]");
  h.write("reset_all_counts", nullptr);
  EXPECT_EQ(h.read("count").dump(), "[0,0,0,0]");
  expect_illegal(h, "count_9", nullptr);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(ReadMetadata, BadConfigs) {
  expect_bad_block("ReadMetadata", {{"values", {1}}}, "key");
  expect_bad_block("ReadMetadata", {{"key", "k"}}, "values");
  expect_bad_block("ReadMetadata", {{"key", ""}, {"values", {1}}}, "key");
  expect_bad_block("ReadMetadata", {{"key", 5}, {"values", {1}}}, "key");
  expect_bad_block("ReadMetadata", {{"key", "k"}, {"values", json::array()}}, "values");
  expect_bad_block("ReadMetadata", {{"key", "k"}, {"values", {1, json::object()}}},
                   "field 'values[1]': expected an integer or a string, got {}");
  expect_bad_block("ReadMetadata", {{"key", "k"}, {"values", "a"}}, "values");
  expect_bad_block("ReadMetadata", {{"key", "k"}, {"values", {1}}, {"value", 1}}, "value");
}

TEST(EncapsulateMetadata, WritesNshThatDecapsulateMetadataReadsBack) {
  MetaStore m = written({{"app", "ips"}, {"mark", -3}, {"long_key_abcdef", std::string(22, 'z')}});
  ASSERT_EQ(m.n, 3);
  ElementHarness enc("EncapsulateMetadata", {{"spi", 0x123456}, {"si", 9}});
  Bytes inner = tcp4("10.1.1.1", "10.2.2.2", 4000, 80, "GET / HTTP/1.1\r\n\r\n");
  Result r = push_with(enc, {inner}, m);
  ASSERT_EQ(r.out[0].size(), 1u);
  const Bytes& o = r.out[0][0];
  // Outer Ethernet: same MACs, NSH EtherType; NSH base: version 0, TTL 63, MD type 2,
  // next protocol Ethernet; service path: SPI and SI.
  EXPECT_TRUE(std::equal(inner.begin(), inner.begin() + 12, o.begin()));
  EXPECT_EQ(be16(o, 12), 0x894f);
  EXPECT_EQ(o[14] >> 6, 0);
  EXPECT_EQ((o[14] & 0x3f) << 2 | o[15] >> 6, 63);
  uint32_t nsh_len = (o[15] & 0x3f) * 4u;
  // base 8 + TLVs: app (4 + pad(1+3+3)=8), mark (4 + pad(1+4+8)=16), long (4 + pad(1+15+22)=40)
  EXPECT_EQ(nsh_len, 8u + 12 + 20 + 44);
  EXPECT_EQ(o[16] & 0x0f, 2);
  EXPECT_EQ(o[17], 3);
  EXPECT_EQ(be32(o, 18), 0x123456u << 8 | 9);
  EXPECT_EQ(be16(o, 22), 0xfff6);  // first TLV: experimental class
  ASSERT_EQ(o.size(), inner.size() + 14 + nsh_len);
  EXPECT_TRUE(std::equal(inner.begin(), inner.end(), o.begin() + 14 + nsh_len));
  EXPECT_EQ(enc.read("count").get<int>(), 1);

  ElementHarness dec("DecapsulateMetadata", json::object());
  Result d = dec.push({o, inner});  // fresh packets: no metadata yet
  ASSERT_EQ(d.out[0].size(), 2u);
  EXPECT_EQ(d.out[0][0], inner);
  EXPECT_EQ(d.out[0][1], inner);  // not NSH: unchanged
  const MetaStore& got = d.meta[0][0].values;
  EXPECT_EQ(got.n, 3);
  EXPECT_EQ(*got.find("app"), MetaValue::of("ips"));
  EXPECT_EQ(*got.find("mark"), MetaValue::of(int64_t{-3}));
  EXPECT_EQ(*got.find("long_key_abcdef"), MetaValue::of(std::string(22, 'z')));
  EXPECT_EQ(d.meta[0][1].values.n, 0);
  EXPECT_EQ(dec.read("count").get<int>(), 1);
  EXPECT_EQ(dec.read("malformed").get<int>(), 0);
  EXPECT_EQ(enc.pool().available(), enc.pool().capacity());
  EXPECT_EQ(dec.pool().available(), dec.pool().capacity());
}

TEST(EncapsulateMetadata, CarriesOnlyTheKeysAskedFor) {
  MetaStore m = written({{"app", "ips"}, {"mark", 3}});
  ElementHarness enc("EncapsulateMetadata", {{"spi", 1}, {"keys", {"mark", "absent"}}});
  Bytes o = push_with(enc, {udp4("1.1.1.1", "2.2.2.2", 1, 2)}, m).out[0].at(0);
  ElementHarness dec("DecapsulateMetadata", json::object());
  Result d = dec.push({o});
  const MetaStore& got = d.meta[0].at(0).values;
  EXPECT_EQ(got.n, 1);
  EXPECT_EQ(*got.find("mark"), MetaValue::of(int64_t{3}));
  EXPECT_EQ(got.find("app"), nullptr);
}

TEST(EncapsulateMetadata, LongFramesMoveInTheirBufferOrAreDroppedWhenTheyCannotGrow) {
  MetaStore m = written({{"a", std::string(22, 'a')},
                         {"b", std::string(22, 'b')},
                         {"c", std::string(22, 'c')},
                         {"d", std::string(22, 'd')}});
  ElementHarness enc("EncapsulateMetadata", {{"spi", 7}});
  Frame f;
  f.payload = std::string(8000, 'p');
  Bytes big = build(f);
  Frame g;
  g.payload = std::string(9100, 'q');
  Bytes huge = build(g);
  Result r = push_with(enc, {big, huge}, m);
  ASSERT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(enc.read("dropped").get<int>(), 1);
  EXPECT_GT(r.out[0][0].size(), big.size() + 128);  // more than the headroom
  ElementHarness dec("DecapsulateMetadata", json::object());
  Result d = dec.push({r.out[0][0]});
  ASSERT_EQ(d.out[0].size(), 1u);
  EXPECT_EQ(d.out[0][0], big);
  EXPECT_EQ(d.meta[0][0].values.n, 4);
  EXPECT_EQ(enc.pool().available(), enc.pool().capacity());
}

TEST(DecapsulateMetadata, DropsMalformedNshAndCountsIt) {
  MetaStore m = written({{"app", "ips"}});
  ElementHarness enc("EncapsulateMetadata", {{"spi", 1}});
  Bytes inner = udp4("1.1.1.1", "2.2.2.2", 1, 2);
  Bytes good = push_with(enc, {inner}, m).out[0].at(0);
  std::vector<Bytes> bad;
  Bytes v = good;
  v[14] |= 0x40;
  bad.push_back(v);  // version 1
  v = good;
  v[17] = 1;
  bad.push_back(v);  // next protocol IPv4
  v = good;
  v[15] = (v[15] & 0xc0) | 63;
  bad.push_back(v);  // length past the frame
  v = good;
  v[15] = (v[15] & 0xc0) | 1;
  bad.push_back(v);  // shorter than the base header
  v = good;
  v[25] = 40;
  bad.push_back(v);  // TLV longer than the header
  v = good;
  v[26] = 0;
  bad.push_back(v);  // empty key
  v = good;
  v[24] = 9;
  bad.push_back(v);  // unknown metadata type
  v = Bytes(good.begin(), good.begin() + 20);
  bad.push_back(v);  // cut inside NSH
  ElementHarness dec("DecapsulateMetadata", json::object());
  Result d = dec.push(bad);
  EXPECT_EQ(d.out[0].size(), 0u);
  EXPECT_EQ(d.dropped, bad.size());
  EXPECT_EQ(dec.read("malformed").get<size_t>(), bad.size());
  EXPECT_EQ(dec.read("count").get<int>(), 0);
  // A TLV of another class is skipped.
  v = good;
  v[22] = 0x00;
  v[23] = 0x01;
  d = dec.push({v});
  ASSERT_EQ(d.out[0].size(), 1u);
  EXPECT_EQ(d.out[0][0], inner);
  EXPECT_EQ(d.meta[0][0].values.n, 0);
  dec.write("reset_counts", nullptr);
  EXPECT_EQ(dec.read("malformed").get<int>(), 0);
  EXPECT_EQ(dec.pool().available(), dec.pool().capacity());
}

TEST(EncapsulateMetadata, BadConfigs) {
  expect_bad_block("EncapsulateMetadata", json::object(), "spi");
  expect_bad_block("EncapsulateMetadata", {{"spi", 1 << 24}}, "spi");
  expect_bad_block("EncapsulateMetadata", {{"spi", -1}}, "spi");
  expect_bad_block("EncapsulateMetadata", {{"spi", 1}, {"si", 256}}, "si");
  expect_bad_block("EncapsulateMetadata", {{"spi", 1}, {"keys", "app"}}, "keys");
  expect_bad_block("EncapsulateMetadata", {{"spi", 1}, {"keys", {"ok", ""}}},
                   "field 'keys[1]': expected a metadata key");
  expect_bad_block("DecapsulateMetadata", {{"spi", 1}}, "spi");
}
