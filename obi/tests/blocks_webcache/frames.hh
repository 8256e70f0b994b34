// Helpers for the HttpCacheResponder tests: HTTP requests as TCP frames and an
// independent check of a response segment (checksums summed from scratch).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/testing.hh"
#include "openbox/messages.hh"

namespace webtest {

using obi::testing::Bytes;
using obi::testing::Frame;

inline uint16_t be16(const Bytes& b, size_t o) { return uint16_t(b[o] << 8 | b[o + 1]); }
inline uint32_t be32(const Bytes& b, size_t o) { return uint32_t(be16(b, o)) << 16 | be16(b, o + 2); }
inline void set32(Bytes& b, size_t o, uint32_t v) {
  b[o] = uint8_t(v >> 24);
  b[o + 1] = uint8_t(v >> 16);
  b[o + 2] = uint8_t(v >> 8);
  b[o + 3] = uint8_t(v);
}

inline std::string b64(const std::string& s) { return openbox::base64_encode(s); }

struct Request {
  std::string target = "/index.html";
  std::string host = "www.example.com";  // empty: no Host header
  std::string method = "GET";
  std::string version = "HTTP/1.1";
  std::string extra;  // more header lines, each ending in CRLF
  std::string after;  // bytes after the head (body, pipelined request)
  uint32_t seq = 1000, ack = 5000;
  uint8_t flags = 0x18;  // PSH|ACK
  std::vector<uint16_t> vlans;
};

inline std::string head(const Request& r) {
  std::string s = r.method + " " + r.target + " " + r.version + "\r\n";
  if (!r.host.empty()) s += "Host: " + r.host + "\r\n";
  s += "User-Agent: test\r\nAccept: */*\r\n" + r.extra + "\r\n";
  return s + r.after;
}

// Client 10.0.0.1:40000 (MAC ..:01) -> server 10.0.0.2:80 (MAC ..:02).
inline Bytes request(const Request& r) {
  Frame f;
  f.proto = 6;
  f.src_port = 40000;
  f.dst_port = 80;
  f.tcp_flags = r.flags;
  f.vlans = r.vlans;
  f.payload = head(r);
  Bytes b = obi::testing::build(f);
  size_t l4 = 14 + 4 * r.vlans.size() + 20;
  set32(b, l4 + 4, r.seq);
  set32(b, l4 + 8, r.ack);
  return b;
}

inline uint16_t fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return uint16_t(s);
}
inline uint32_t words(const uint8_t* p, size_t n, uint32_t s = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  return s;
}

// One response segment `resp` to request `req`: addresses, ports, lengths and both
// checksums; returns its TCP payload and sets seq/ack/flags.
struct Segment {
  uint32_t seq = 0, ack = 0;
  uint8_t flags = 0, ttl = 0;
  std::string payload;
};

inline Segment check_segment(const Bytes& req, const Bytes& resp) {
  Segment s;
  size_t l2 = 12;
  while (be16(req, l2) == 0x8100) l2 += 4;
  l2 += 2;
  EXPECT_GE(resp.size(), l2 + 40);
  if (resp.size() < l2 + 40) return s;
  EXPECT_TRUE(std::equal(req.begin(), req.begin() + 6, resp.begin() + 6)) << "destination MAC = request source";
  EXPECT_TRUE(std::equal(req.begin() + 6, req.begin() + 12, resp.begin())) << "source MAC = request destination";
  EXPECT_TRUE(std::equal(req.begin() + 12, req.begin() + l2, resp.begin() + 12)) << "VLAN tags and ethertype kept";
  const size_t ip = l2, tcp = l2 + 20;
  EXPECT_EQ(resp[ip], 0x45);
  EXPECT_EQ(be16(resp, ip + 2), resp.size() - l2) << "IPv4 total length";
  EXPECT_EQ(be16(resp, ip + 6), 0x4000) << "DF, not a fragment";
  EXPECT_EQ(resp[ip + 9], 6);
  EXPECT_EQ(fold(words(resp.data() + ip, 20)), 0xffff) << "IPv4 header checksum";
  EXPECT_EQ(be32(resp, ip + 12), be32(req, ip + 16));
  EXPECT_EQ(be32(resp, ip + 16), be32(req, ip + 12));
  EXPECT_EQ(be16(resp, tcp), be16(req, ip + 20 + 2));
  EXPECT_EQ(be16(resp, tcp + 2), be16(req, ip + 20));
  EXPECT_EQ(resp[tcp + 12], 5 << 4) << "TCP header without options";
  const size_t seg_len = resp.size() - tcp;
  uint32_t pseudo = words(resp.data() + ip + 12, 8) + 6 + uint32_t(seg_len);
  EXPECT_EQ(fold(words(resp.data() + tcp, seg_len, pseudo)), 0xffff) << "TCP checksum";
  s.seq = be32(resp, tcp + 4);
  s.ack = be32(resp, tcp + 8);
  s.flags = resp[tcp + 13];
  s.ttl = resp[ip + 8];
  s.payload.assign(resp.begin() + tcp + 20, resp.end());
  return s;
}

inline std::string response_text(const std::string& type, const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\nX-Cache: HIT\r\n\r\n" + body;
}

}  // namespace webtest
