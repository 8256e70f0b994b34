// Header field extraction: the value of any header-match field (protocol/README.md
// field table) read from a packet's parsed headers.
//
// A field whose layer is missing, truncated or of another protocol is "absent":
// extract_field returns false, and a rule that constrains an absent field does not
// match (OpenFlow prerequisite semantics). Every read is bounds-checked against the
// frame length, so truncated frames are safe.
#pragma once

#include <cstdint>

#include "engine/packet.hh"
#include "openbox/header_match.hh"

namespace obi::blocks {

using openbox::MatchField;
using openbox::u128;

inline constexpr uint16_t kEthIpv4 = 0x0800;
inline constexpr uint16_t kEthArp = 0x0806;
inline constexpr uint16_t kEthIpv6 = 0x86dd;
inline constexpr uint16_t kEthMpls = 0x8847;
inline constexpr uint16_t kEthMplsMc = 0x8848;
inline constexpr uint16_t kEthPbb = 0x88e7;

// Big-endian loads (callers check bounds).
inline uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t load_be48(const uint8_t* p) { return uint64_t(load_be16(p)) << 32 | load_be32(p + 2); }
inline uint64_t load_be64(const uint8_t* p) { return uint64_t(load_be32(p)) << 32 | load_be32(p + 4); }
inline u128 load_be128(const uint8_t* p) { return u128(load_be64(p)) << 64 | load_be64(p + 8); }

// The value of `f` in packet `p` (parses headers on first use). False when absent.
bool extract_field(Packet& p, MatchField f, u128& out);

// Exact check of one header match (every field present and accepted), for the few
// rules a block checks one by one; RuleClassifier is the fast path for rule sets.
bool header_matches(Packet& p, const openbox::HeaderMatch& m);

// IPv6 extension-header pseudo field (OpenFlow OFPIEH_* bits), walking the chain
// after the fixed header; false when the packet is not IPv6.
bool ipv6_exthdr_bits(const Packet& p, const Headers& h, uint16_t& out);

}  // namespace obi::blocks
