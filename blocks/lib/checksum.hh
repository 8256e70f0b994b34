// Incremental Internet checksum update (RFC 1624, eqn. 3):  HC' = ~(~HC + ~m + m')
//
// Rewriting blocks change a few 16-bit words of a header and patch the checksum that
// covers them instead of summing the whole header or segment again. Every helper keeps
// the one's-complement arithmetic exact, including the -0 / +0 corner RFC 1624 fixes.
#pragma once

#include <cstdint>

#include "lib/bytes.hh"

namespace obi::blocks {

// Full checksums: the one's-complement sum of n bytes as big-endian words (an odd last
// byte padded with zero) added to s, and the checksum of a folded sum.
inline uint32_t sum_words(uint32_t s, const uint8_t* p, uint32_t n) {
  for (uint32_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  return s;
}
inline uint16_t folded(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

// One's-complement sum accumulator for a checksum patch.
struct ChecksumDelta {
  uint32_t sum = 0;  // sum of ~m + m' over the changed words (folded when applied)

  void word(uint16_t old_word, uint16_t new_word) {
    sum += static_cast<uint16_t>(~old_word);
    sum += new_word;
  }
  void dword(uint32_t old_v, uint32_t new_v) {
    word(static_cast<uint16_t>(old_v >> 16), static_cast<uint16_t>(new_v >> 16));
    word(static_cast<uint16_t>(old_v), static_cast<uint16_t>(new_v));
  }
  bool empty() const { return sum == 0; }

  // The new checksum for an old checksum `hc` (both in host order).
  uint16_t apply(uint16_t hc) const {
    uint32_t s = static_cast<uint16_t>(~hc) + sum;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(~s);
  }
  // Patch the big-endian checksum field at `field`.
  void apply_at(uint8_t* field) const { store_be16(field, apply(load_be16(field))); }
  // UDP over IPv4: a zero checksum means "none" and stays zero; a computed zero is sent
  // as 0xffff (RFC 768).
  void apply_udp_at(uint8_t* field) const {
    uint16_t hc = load_be16(field);
    if (hc == 0) return;
    uint16_t n = apply(hc);
    store_be16(field, n == 0 ? 0xffff : n);
  }
};

}  // namespace obi::blocks
