// GzipDecompressor on crafted HTTP segments: bodies inflated in place with valid
// lengths and checksums, bombs cut off and counted, everything else unchanged.
#include <gtest/gtest.h>

#include <zlib.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string response(const std::string& body, const std::string& encoding = "gzip") {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " + encoding +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nServer: t\r\n\r\n" + body;
}

std::string payload_of(const Bytes& b) {
  Offsets o = offsets(b);
  size_t start = o.l4 + (b[o.l4 + 12] >> 4) * 4u;
  size_t end = o.v6 ? o.l3 + 40 + be16(b, o.l3 + 4) : o.l3 + be16(b, o.l3 + 2);
  return std::string(b.begin() + start, b.begin() + end);
}

const std::string kPage = "<html><body>" + std::string(300, 'a') + "<script>evil()</script></body></html>";

}  // namespace

TEST(GzipDecompressor, InflatesTheBodyAndFixesLengthsAndChecksums) {
  ElementHarness h("GzipDecompressor", json::object());
  Bytes in = with_checksums(tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gzip(kPage))));
  Frame f6; f6.ipv6 = true; f6.src_ip = "2001:db8::1"; f6.dst_ip = "2001:db8::2"; f6.proto = 6;
  f6.src_port = 80; f6.payload = response(gzip(kPage), "x-gzip");
  Bytes in6 = with_checksums(build(f6));
  Result r = h.push({in, in6});
  ASSERT_EQ(r.out[0].size(), 2u);
  for (const Bytes& o : r.out[0]) {
    EXPECT_EQ(payload_of(o), "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nServer: t\r\n\r\n" + kPage);
    EXPECT_TRUE(l4_checksum_ok(o));
    EXPECT_EQ(o.size(), offsets(o).l4 + 20 + payload_of(o).size());
  }
  EXPECT_TRUE(ipv4_checksum_ok(r.out[0][0]));
  EXPECT_EQ(h.read("count").get<int>(), 2);
  EXPECT_EQ(h.read("failures").get<int>(), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(GzipDecompressor, ACutOffBodyYieldsWhatItHolds) {
  ElementHarness h("GzipDecompressor", json::object());
  std::string text;
  for (int i = 0; i < 400; ++i) text += "line " + std::to_string(i * 7919 % 1000) + " of the page\n";
  std::string gz = gzip(text);
  Bytes in = tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gz.substr(0, gz.size() / 2)));
  Result r = h.push({in});
  ASSERT_EQ(r.out[0].size(), 1u);
  std::string p = payload_of(r.out[0][0]);
  std::string body = p.substr(p.find("\r\n\r\n") + 4);
  ASSERT_GT(body.size(), 100u);
  EXPECT_EQ(body, text.substr(0, body.size()));
  EXPECT_TRUE(l4_checksum_ok(r.out[0][0]));
}

TEST(GzipDecompressor, ABombIsDroppedAndCounted) {
  ElementHarness h("GzipDecompressor", {{"max_size", 4096}});
  std::string bomb = gzip(std::string(1 << 20, '\0'));      // 1 MiB of zeros in about 1 KiB
  ASSERT_LT(bomb.size(), 1500u);
  Result r = h.push({tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(bomb)),
                     tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gzip(std::string(4000, 'x'))))});
  ASSERT_EQ(r.out[0].size(), 1u);                            // the 4000-byte body fits
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(h.read("oversize").get<int>(), 1);
  EXPECT_EQ(h.read("count").get<int>(), 1);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("oversize").get<int>(), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(GzipDecompressor, OtherSegmentsPassUnchanged) {
  ElementHarness h("GzipDecompressor", json::object());
  std::string gz = gzip(kPage);
  std::vector<Bytes> same = {
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(kPage, "identity")),
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, gz),                                   // continuation
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + gz),
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 304 Not Modified\r\nContent-Encoding: gzip\r\n\r\n"),
      udp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gz)),
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "SSH-2.0 Content-Encoding: gzip\r\n\r\n" + gz),
  };
  Bytes broken = tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response("not gzip at all"));
  std::vector<Bytes> all = same;
  all.push_back(broken);
  Result r = h.push(all);
  ASSERT_EQ(r.out[0].size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(r.out[0][i], all[i]) << i;
  EXPECT_EQ(h.read("failures").get<int>(), 1);
  EXPECT_EQ(h.read("count").get<int>(), 0);
}

TEST(GzipDecompressor, BadConfigs) {
  expect_bad_block("GzipDecompressor", {{"max_size", 10}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"max_size", 100000}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"max_size", "big"}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"level", 1}}, "level");
}
