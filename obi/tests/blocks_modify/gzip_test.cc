// GzipDecompressor and GzipCompressor on crafted and captured HTTP segments: bodies
// inflated or deflated in place with valid lengths and checksums, bombs cut off and
// counted, everything else unchanged.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>

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

// What zlib inflates from `data`; with whole = false, data may stop inside the stream.
std::string gunzip(const std::string& data, bool whole = true) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  std::string out(1 << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, whole ? Z_FINISH : Z_SYNC_FLUSH);
  if (whole) {
    EXPECT_EQ(rc, Z_STREAM_END);
  }
  out.resize(z.total_out);
  inflateEnd(&z);
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
  Frame f6;
  f6.ipv6 = true;
  f6.src_ip = "2001:db8::1";
  f6.dst_ip = "2001:db8::2";
  f6.proto = 6;
  f6.src_port = 80;
  f6.payload = response(gzip(kPage), "x-gzip");
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
  std::string bomb = gzip(std::string(1 << 20, '\0'));  // 1 MiB of zeros in about 1 KiB
  ASSERT_LT(bomb.size(), 1500u);
  Result r = h.push({tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(bomb)),
                     tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gzip(std::string(4000, 'x'))))});
  ASSERT_EQ(r.out[0].size(), 1u);  // the 4000-byte body fits
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
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, gz),  // continuation
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000,
           "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + gz),
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

TEST(GzipDecompressor, RealHttpResponses) {
  // 682 HTTP response segments of a real capture: 98 open a gzip body that is not chunked
  // (27 more have no body in the segment, 23 are chunked); every one of the 98 inflates.
  std::ifstream f(std::string(OPENBOX_ROOT) + "/../shared/data/pcap/pcapplusplus-650HttpResponses.pcap",
                  std::ios::binary);
  std::vector<char> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GT(all.size(), 24u);
  std::vector<Bytes> frames;
  for (size_t off = 24; off + 16 <= all.size();) {
    uint32_t cap;
    std::memcpy(&cap, all.data() + off + 8, 4);
    if (off + 16 + cap > all.size()) break;
    frames.emplace_back(all.begin() + off + 16, all.begin() + off + 16 + cap);
    off += 16 + cap;
  }
  ASSERT_EQ(frames.size(), 682u);
  ElementHarness h("GzipDecompressor", json::object());
  Result r = h.push(frames);
  ASSERT_EQ(r.out[0].size(), frames.size());
  EXPECT_EQ(h.read("count").get<int>(), 98);
  EXPECT_EQ(h.read("failures").get<int>(), 0);
  EXPECT_EQ(h.read("oversize").get<int>(), 0);
  int changed = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (r.out[0][i] == frames[i]) continue;
    ++changed;
    const Bytes& o = r.out[0][i];
    EXPECT_TRUE(ipv4_checksum_ok(o)) << i;
    EXPECT_TRUE(l4_checksum_ok(o)) << i;
    std::string p = payload_of(o);
    EXPECT_EQ(p.find("Content-Encoding"), std::string::npos) << i;
    const std::string orig = payload_of(frames[i]);
    EXPECT_EQ(p.substr(p.find("\r\n\r\n") + 4), gunzip(orig.substr(orig.find("\r\n\r\n") + 4), false)) << i;
  }
  EXPECT_EQ(changed, 98);
}

TEST(GzipDecompressor, BadConfigs) {
  expect_bad_block("GzipDecompressor", {{"max_size", 10}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"max_size", 100000}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"max_size", "big"}}, "max_size");
  expect_bad_block("GzipDecompressor", {{"level", 1}}, "level");
}

TEST(GzipCompressor, CompressesTheBodyAndGzipDecompressorUndoesIt) {
  ElementHarness h("GzipCompressor", json::object());
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(kPage.size()) + "\r\n\r\n";
  Bytes in = tcp4("10.0.0.80", "10.0.0.1", 80, 40000, head + kPage);
  Frame f6;
  f6.ipv6 = true;
  f6.src_ip = "2001:db8::1";
  f6.dst_ip = "2001:db8::2";
  f6.proto = 6;
  f6.src_port = 80;
  f6.payload = head + kPage;
  Result r = h.push({in, build(f6)});
  ASSERT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(h.read("count").get<int>(), 2);
  const std::string want_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n";
  for (const Bytes& o : r.out[0]) {
    std::string p = payload_of(o);
    ASSERT_EQ(p.substr(0, want_head.size()), want_head);
    EXPECT_LT(p.size(), (head + kPage).size());
    EXPECT_EQ(gunzip(p.substr(want_head.size())), kPage);
    EXPECT_TRUE(l4_checksum_ok(o));
  }
  EXPECT_TRUE(ipv4_checksum_ok(r.out[0][0]));

  ElementHarness back("GzipDecompressor", json::object());
  Result d = back.push(r.out[0]);
  ASSERT_EQ(d.out[0].size(), 2u);
  for (const Bytes& o : d.out[0])
    EXPECT_EQ(payload_of(o), "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + kPage);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(GzipCompressor, LeavesOtherSegmentsAndIncompressibleBodiesUnchanged) {
  ElementHarness h("GzipCompressor", {{"min_size", 100}});
  std::string noise;
  uint32_t x = 12345;
  for (int i = 0; i < 1000; ++i) {
    x = x * 1103515245u + 12345u;
    noise.push_back(static_cast<char>(x >> 24));
  }
  std::vector<Bytes> same = {
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 200 OK\r\n\r\n" + std::string(99, 'a')),  // too short
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, response(gzip(kPage))),                             // encoded
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + kPage),
      tcp4("10.0.0.80", "10.0.0.1", 80, 40000, kPage),  // no head
      udp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 200 OK\r\n\r\n" + kPage),
  };
  Bytes random = tcp4("10.0.0.80", "10.0.0.1", 80, 40000, "HTTP/1.1 200 OK\r\n\r\n" + noise);
  std::vector<Bytes> all = same;
  all.push_back(random);
  Result r = h.push(all);
  ASSERT_EQ(r.out[0].size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(r.out[0][i], all[i]) << i;
  EXPECT_EQ(h.read("count").get<int>(), 0);
  EXPECT_EQ(h.read("incompressible").get<int>(), 1);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("incompressible").get<int>(), 0);
}

TEST(GzipCompressor, BadConfigs) {
  expect_bad_block("GzipCompressor", {{"level", 0}}, "level");
  expect_bad_block("GzipCompressor", {{"level", 10}}, "level");
  expect_bad_block("GzipCompressor", {{"min_size", -1}}, "min_size");
  expect_bad_block("GzipCompressor", {{"max_size", 1}}, "max_size");
}
