// Test helpers for the modifier blocks: header offsets of crafted frames, checksums
// recomputed from scratch, config-rejection checks.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/testing.hh"
#include "openbox/error.hh"

namespace modtest {

using obi::testing::Bytes;

inline uint16_t be16(const Bytes& b, size_t o) { return uint16_t(b[o] << 8 | b[o + 1]); }
inline uint32_t be32(const Bytes& b, size_t o) { return uint32_t(be16(b, o)) << 16 | be16(b, o + 2); }

struct Offsets {
  size_t l3 = 0, l4 = 0, l4_len = 0;
  bool v6 = false;
  uint8_t proto = 0;
};

// Offsets of an Ethernet (+ 802.1Q tags) / IPv4 or IPv6 (no extension headers) frame.
inline Offsets offsets(const Bytes& b) {
  Offsets o;
  size_t off = 12;
  while (be16(b, off) == 0x8100 || be16(b, off) == 0x88a8 || be16(b, off) == 0x9100) off += 4;
  uint16_t type = be16(b, off);
  o.l3 = off + 2;
  if (type == 0x86dd) {
    o.v6 = true;
    o.proto = b[o.l3 + 6];
    o.l4 = o.l3 + 40;
    o.l4_len = be16(b, o.l3 + 4);
  } else {
    size_t ihl = (b[o.l3] & 0x0f) * 4u;
    o.proto = b[o.l3 + 9];
    o.l4 = o.l3 + ihl;
    o.l4_len = be16(b, o.l3 + 2) - ihl;
  }
  return o;
}

inline uint32_t add_words(uint32_t s, const uint8_t* p, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  return s;
}
inline uint16_t fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return uint16_t(s);
}

// The IPv4 header checksum as it should be (field taken as zero).
inline uint16_t ipv4_checksum(const Bytes& b) {
  Offsets o = offsets(b);
  Bytes h(b.begin() + o.l3, b.begin() + o.l3 + (b[o.l3] & 0x0f) * 4);
  h[10] = h[11] = 0;
  return uint16_t(~fold(add_words(0, h.data(), h.size())));
}
inline bool ipv4_checksum_ok(const Bytes& b) { return be16(b, offsets(b).l3 + 10) == ipv4_checksum(b); }

inline size_t l4_checksum_offset(const Offsets& o) { return o.l4 + (o.proto == 6 ? 16 : 6); }

// The TCP/UDP checksum as it should be (pseudo-header included, field taken as zero).
inline uint16_t l4_checksum(const Bytes& b) {
  Offsets o = offsets(b);
  uint32_t s = 0;
  if (o.v6) s = add_words(s, b.data() + o.l3 + 8, 32);
  else s = add_words(s, b.data() + o.l3 + 12, 8);
  s += o.proto;
  s += uint32_t(o.l4_len);
  s = add_words(s, b.data() + o.l4, o.l4_len);
  s += uint16_t(~be16(b, l4_checksum_offset(o)));  // take the field out: word + ~word = -0
  uint16_t r = uint16_t(~fold(s));
  if (o.proto == 17 && r == 0) r = 0xffff;
  return r;
}
inline void fix_l4_checksum(Bytes& b) {
  size_t at = l4_checksum_offset(offsets(b));
  uint16_t c = l4_checksum(b);
  b[at] = uint8_t(c >> 8);
  b[at + 1] = uint8_t(c);
}
inline bool l4_checksum_ok(const Bytes& b) { return be16(b, l4_checksum_offset(offsets(b))) == l4_checksum(b); }

// A frame with valid IPv4 and L4 checksums.
inline Bytes with_checksums(Bytes b) {
  fix_l4_checksum(b);
  return b;
}

// Builds `type` with `config` and expects ProtocolError(BAD_BLOCK) whose message names
// the block and contains `needle` (usually the field).
inline void expect_bad_block(const std::string& type, const nlohmann::json& config, const std::string& needle) {
  try {
    obi::testing::make_element(type, config, "blk");
    ADD_FAILURE() << type << " accepted " << config.dump();
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK) << e.what();
    std::string m = e.what();
    EXPECT_NE(m.find("'blk'"), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << "expected '" << needle << "' in: " << m;
  }
}

inline void expect_illegal(obi::testing::ElementHarness& h, const std::string& handle, const nlohmann::json& v) {
  try {
    h.write(handle, v);
    ADD_FAILURE() << "write " << handle << " = " << v.dump() << " accepted";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ILLEGAL_ARGUMENT) << e.what();
  }
}

}  // namespace modtest
