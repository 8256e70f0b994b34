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
#include "lib/bytes.hh"
#include "openbox/header_match.hh"

namespace obi::blocks {

using openbox::MatchField;
using openbox::u128;

// 128-bit big-endian load (callers check bounds); the narrower ones are in lib/bytes.hh.
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
