// HttpCacheResponder on crafted frames: hits become well-formed responses, everything
// else passes untouched, handles count, config errors name the field.
#include <gtest/gtest.h>

#include "frames.hh"
#include "openbox/error.hh"

using namespace obi;
using namespace obi::testing;
using namespace webtest;
using nlohmann::json;

namespace {

const std::string kPage = "<html><body>cached</body></html>\n";

json config(json entries, json extra = json::object()) {
  json c = extra;
  c["entries"] = std::move(entries);
  return c;
}

json page_entry(std::string host = "www.example.com", std::string path = "/index.html", const std::string& body = kPage,
                std::string type = "text/html") {
  json e = {{"path", std::move(path)}, {"content_type", std::move(type)}, {"body", b64(body)}};
  if (!host.empty()) e["host"] = std::move(host);
  return e;
}

// Payloads of all segments in order, checked one by one against `req`.
std::string reassemble(const Bytes& req, const std::vector<Bytes>& segs, uint32_t first_seq) {
  std::string all;
  for (size_t i = 0; i < segs.size(); ++i) {
    Segment s = check_segment(req, segs[i]);
    EXPECT_EQ(s.seq, uint32_t(first_seq + all.size())) << "segment " << i;
    EXPECT_EQ(s.flags, i + 1 == segs.size() ? 0x19 : 0x18) << "segment " << i << ": ACK|PSH, FIN on the last";
    all += s.payload;
  }
  return all;
}

}  // namespace

TEST(HttpCacheResponder, HitIsAnsweredWithAWellFormedResponse) {
  ElementHarness h("HttpCacheResponder",
                   config({page_entry(), page_entry("", "/other.txt", "x", "text/plain")}, {{"ttl", 33}}));
  Request r;
  r.seq = 0xfffffff0;  // ack wraps around
  r.ack = 777;
  Bytes req = request(r);
  Result out = h.push({req});
  ASSERT_EQ(out.out[0].size(), 1u);
  EXPECT_TRUE(out.out[1].empty());
  Segment s = check_segment(req, out.out[0][0]);
  EXPECT_EQ(s.seq, 777u) << "seq = the request's ack";
  EXPECT_EQ(s.ack, uint32_t(0xfffffff0u + head(r).size())) << "ack = request seq + its payload length";
  EXPECT_EQ(s.flags, 0x19) << "FIN|PSH|ACK";
  EXPECT_EQ(s.ttl, 33);
  EXPECT_EQ(s.payload, response_text("text/html", kPage));
  EXPECT_EQ(h.read("count"), 1);
  EXPECT_EQ(h.read("segments"), 1);
  EXPECT_EQ(h.read("byte_count"), out.out[0][0].size());
  EXPECT_EQ(h.read("hits"), json::array({1, 0}));
  EXPECT_EQ(h.read("misses"), 0);
  EXPECT_EQ(h.read("passed"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity()) << "no packet leaked";
}

TEST(HttpCacheResponder, MissPassesUntouched) {
  ElementHarness h("HttpCacheResponder", config({page_entry()}));
  Request other;
  other.target = "/index.html?x=1";  // the query is part of the path
  Request elsewhere;
  elsewhere.host = "www.example.org";
  Request no_host;
  no_host.host = "";
  no_host.version = "HTTP/1.0";
  std::vector<Bytes> in = {request(other), request(elsewhere), request(no_host)};
  Result out = h.push(in);
  EXPECT_TRUE(out.out[0].empty());
  EXPECT_EQ(out.out[1], in);
  EXPECT_EQ(h.read("misses"), 3);
  EXPECT_EQ(h.read("passed"), 3);
  EXPECT_EQ(h.read("count"), 0);
  EXPECT_EQ(out.dropped, 0u);
}

TEST(HttpCacheResponder, HostMatchingAndFirstEntryWins) {
  json entries = {page_entry("www.example.com", "/a", "specific"), page_entry("", "/a", "any"),
                  page_entry("", "/b", "wild-first"), page_entry("www.example.com", "/b", "never")};
  ElementHarness h("HttpCacheResponder", config(entries));
  auto body_of = [&](Request r) {
    Bytes req = request(r);
    Result out = h.push({req});
    if (out.out[0].size() != 1) return std::string("<no response>");
    std::string p = check_segment(req, out.out[0][0]).payload;
    return p.substr(p.find("\r\n\r\n") + 4);
  };
  Request r;
  r.target = "/a";
  r.host = "WWW.Example.COM:80";
  EXPECT_EQ(body_of(r), "specific") << "case-insensitive host, port ignored";
  r.host = "other.example.com";
  EXPECT_EQ(body_of(r), "any") << "an entry without host matches any host";
  r.target = "http://www.example.com:8080/a";
  r.host = "ignored.example.net";
  EXPECT_EQ(body_of(r), "specific") << "absolute-form target: its host wins over the Host header";
  r.target = "/b";
  r.host = "www.example.com";
  EXPECT_EQ(body_of(r), "wild-first") << "first entry in order wins";
  EXPECT_EQ(h.read("hits"), json::array({2, 1, 1, 0}));
}

TEST(HttpCacheResponder, NonRequestsAndOddPacketsPassUntouched) {
  ElementHarness h("HttpCacheResponder", config({page_entry("", "/index.html")}));
  std::vector<Bytes> in;
  Request post;
  post.method = "POST";
  in.push_back(request(post));
  Request head_method;
  head_method.method = "HEAD";
  in.push_back(request(head_method));
  Request lower;
  lower.method = "get";
  in.push_back(request(lower));
  Request http2;
  http2.version = "HTTP/2.0";
  in.push_back(request(http2));
  Request incomplete;  // head continues in the next segment
  in.push_back(request(incomplete));
  in.back().resize(in.back().size() - 2);
  {
    Bytes& b = in.back();
    b[14 + 2] = 0;
    b[14 + 3] = uint8_t(b.size() - 14);
  }  // IP length matches
  Request pipelined;
  pipelined.after = "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n";
  in.push_back(request(pipelined));
  Request syn;
  syn.flags = 0x02;  // SYN with data (TCP Fast Open): not answered
  in.push_back(request(syn));
  Request no_ack;
  no_ack.flags = 0x08;
  in.push_back(request(no_ack));
  Request relative;
  relative.target = "index.html";
  in.push_back(request(relative));
  in.push_back(udp4("10.0.0.1", "10.0.0.2", 40000, 80, head(Request{})));
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "2001:db8::1";
  v6.dst_ip = "2001:db8::2";
  v6.proto = 6;
  v6.tcp_flags = 0x18;
  v6.payload = head(Request{});
  in.push_back(build(v6));
  Frame arp;
  arp.eth_type = 0x0806;
  in.push_back(build(arp));
  Bytes whole = request(Request{});
  for (size_t cut : {10u, 20u, 40u, 60u, 80u}) in.push_back(Bytes(whole.begin(), whole.begin() + cut));
  Bytes fragment = whole;  // more-fragments set: the rest of the datagram is elsewhere
  fragment[14 + 6] = 0x20;
  in.push_back(fragment);
  Bytes lying = whole;  // IPv4 total length beyond the frame
  lying[14 + 2] = 0x05;
  in.push_back(lying);
  Result out = h.push(in);
  EXPECT_TRUE(out.out[0].empty());
  ASSERT_EQ(out.out[1].size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out.out[1][i], in[i]) << "packet " << i;
  EXPECT_EQ(h.read("passed"), in.size());
  EXPECT_EQ(h.read("misses"), 0);
  EXPECT_EQ(h.read("count"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(HttpCacheResponder, EthernetPaddingAndFinAreNotPayload) {
  ElementHarness h("HttpCacheResponder", config({page_entry("", "/index.html")}));
  Request r;
  r.seq = 100;
  Bytes padded = request(r);
  padded.insert(padded.end(), 6, 0xee);  // trailer after the IPv4 datagram
  Request fin = r;
  fin.flags = 0x19;  // request with FIN: one more sequence number
  Result out = h.push({padded, request(fin)});
  ASSERT_EQ(out.out[0].size(), 2u);
  EXPECT_EQ(check_segment(padded, out.out[0][0]).ack, 100 + head(r).size());
  EXPECT_EQ(check_segment(request(fin), out.out[0][1]).ack, 100 + head(r).size() + 1);
}

TEST(HttpCacheResponder, VlanTaggedRequestKeepsItsTag) {
  ElementHarness h("HttpCacheResponder", config({page_entry()}));
  Request r;
  r.vlans = {0x2064};
  Bytes req = request(r);
  Result out = h.push({req});
  ASSERT_EQ(out.out[0].size(), 1u);
  EXPECT_EQ(check_segment(req, out.out[0][0]).payload, response_text("text/html", kPage));
}

TEST(HttpCacheResponder, LargeBodyLeavesAsConsecutiveSegments) {
  std::string body;
  for (int i = 0; body.size() < 5000; ++i) body += "line " + std::to_string(i) + " of the cached object\n";
  body.resize(5001);  // odd length: the last chunk's checksum pads a byte
  ElementHarness h("HttpCacheResponder", config({page_entry("", "/big.txt", body, "text/plain")}, {{"mss", 1000}}));
  Request r;
  r.target = "/big.txt";
  r.ack = 0xfffffc00;  // sequence numbers wrap inside the response
  Bytes req = request(r);
  Request miss;
  miss.target = "/nothing";
  Result out = h.push({request(miss), req, request(miss)});
  const std::string expect = response_text("text/plain", body);
  const size_t n = (expect.size() + 999) / 1000;
  ASSERT_EQ(out.out[0].size(), n);
  for (size_t i = 0; i + 1 < n; ++i) EXPECT_EQ(out.out[0][i].size(), 14u + 40 + 1000) << "full segment " << i;
  EXPECT_EQ(reassemble(req, out.out[0], r.ack), expect);
  EXPECT_EQ(out.out[1].size(), 2u);
  EXPECT_EQ(h.read("segments"), n);
  EXPECT_EQ(h.read("count"), 1);
  uint64_t bytes = 0;
  for (const Bytes& b : out.out[0]) bytes += b.size();
  EXPECT_EQ(h.read("byte_count"), bytes);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(HttpCacheResponder, ResponsesLongerThanABatchStayInOrder) {
  std::string body(5000, 'z');
  for (size_t i = 0; i < body.size(); i += 7) body[i] = char('a' + i % 26);
  ElementHarness h("HttpCacheResponder", config({page_entry("", "/z", body, "text/plain")}, {{"mss", 64}}));
  Request r;
  r.target = "/z";
  Bytes req = request(r);
  Result out = h.push({req, req});  // two answers in one push
  const std::string expect = response_text("text/plain", body);
  const size_t n = (expect.size() + 63) / 64;
  ASSERT_GT(n, kBatchSize);
  ASSERT_EQ(out.out[0].size(), 2 * n);
  std::vector<Bytes> first(out.out[0].begin(), out.out[0].begin() + n),
      second(out.out[0].begin() + n, out.out[0].end());
  EXPECT_EQ(reassemble(req, first, r.ack), expect);
  EXPECT_EQ(reassemble(req, second, r.ack), expect);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(HttpCacheResponder, TooFewBuffersPassesTheRequestToTheServer) {
  std::string body(3000, 'q');
  ElementHarness h("HttpCacheResponder", config({page_entry("", "/q", body, "text/plain")}, {{"mss", 100}}), "b", 1,
                   /*pool_packets=*/16);
  Request r;
  r.target = "/q";
  Bytes req = request(r);
  Result out = h.push({req});
  EXPECT_TRUE(out.out[0].empty());
  ASSERT_EQ(out.out[1].size(), 1u);
  EXPECT_EQ(out.out[1][0], req);
  EXPECT_EQ(h.read("no_buffer"), 1);
  EXPECT_EQ(h.read("passed"), 1);
  EXPECT_EQ(h.read("count"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(HttpCacheResponder, ResetCountsAndUnknownHandles) {
  ElementHarness h("HttpCacheResponder", config({page_entry()}));
  Request miss;
  miss.target = "/x";
  h.push({request(Request{}), request(miss), udp4("1.1.1.1", "2.2.2.2", 1, 2)});
  EXPECT_EQ(h.read("count"), 1);
  EXPECT_EQ(h.read("misses"), 1);
  EXPECT_EQ(h.read("passed"), 2);
  h.write("reset_counts", nullptr);
  for (const char* k : {"count", "byte_count", "segments", "misses", "passed", "no_buffer"})
    EXPECT_EQ(h.read(k), 0) << k;
  EXPECT_EQ(h.read("hits"), json::array({0}));
  h.push({request(Request{})});
  EXPECT_EQ(h.read("count"), 1);
  EXPECT_EQ(h.read("hits"), json::array({1}));
  try {
    h.read("rate");
    ADD_FAILURE() << "unknown handle accepted";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ILLEGAL_ARGUMENT);
  }
}

TEST(HttpCacheResponder, ConfigErrorsNameTheField) {
  struct Case {
    json config;
    const char* expect;  // substring of the message
  };
  json good = page_entry();
  auto with = [&](const char* key, json v) {
    json e = good;
    e[key] = std::move(v);
    return e;
  };
  json no_path = good;
  no_path.erase("path");
  json no_body = good;
  no_body.erase("body");
  std::vector<Case> cases = {
      {json::object(), "field 'entries': required, missing"},
      {config(json::array()), "field 'entries'"},
      {config({"just a string"}), "field 'entries[0]': expected an object"},
      {config({good, no_path}), "field 'entries[1].path': required, missing"},
      {config({no_body}), "field 'entries[0].body': required, missing"},
      {config({with("path", "index.html")}), "field 'entries[0].path': expected a path starting with '/'"},
      {config({with("path", "/a b")}),
       "field 'entries[0].path': expected a path starting with '/', printable ASCII without spaces, got \"/a b\""},
      {config({with("host", "www.example.com:80")}), "without port"},
      {config({with("body", "not base64!")}), "field 'entries[0].body': expected base64 text"},
      {config({with("content_type", "text/html\r\nX-Evil: 1")}), "content_type"},
      {config({with("expires", 10)}), "field 'entries[0].expires': unknown field"},
      {config({with("path", 5)}), "field 'entries[0].path': expected a string, got 5"},
      {config({with("body", b64(std::string(65535, 'x')))}), "expected a response of at most 65535 bytes"},
      {config({good}, {{"mss", 10}}), "field 'mss'"},
      {config({good}, {{"mss", 9001}}), "field 'mss'"},
      {config({good}, {{"ttl", 0}}), "field 'ttl'"},
      {config({good}, {{"mtu", 1500}}), "field 'mtu': unknown field"},
  };
  for (const Case& c : cases) {
    try {
      make_element("HttpCacheResponder", c.config, "cache");
      ADD_FAILURE() << "accepted " << c.config.dump().substr(0, 200);
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK) << e.what();
      EXPECT_NE(std::string(e.what()).find("block 'cache' (HttpCacheResponder)"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(make_element("HttpCacheResponder", config({with("body", "")})));  // empty object
}
