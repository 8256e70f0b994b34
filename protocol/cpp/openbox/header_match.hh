// Header-match values (spec 4.1 and 5.7): field names, value grammar, prerequisites.
// The grammar and the canonical form are defined in protocol/README.md; the Java
// parser (org.openbox.protocol.match) obeys the same test vectors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "openbox/error.hh"

namespace openbox {

using u128 = unsigned __int128;

enum class FieldSyntax : uint8_t { kInteger, kMac, kIpv4, kIpv6 };

enum class MatchField : uint8_t {
  ETH_DST,
  ETH_SRC,
  ETH_TYPE,
  VLAN_VID,
  VLAN_PCP,
  IP_PROTO,
  IP_DSCP,
  IP_ECN,
  IPV4_SRC,
  IPV4_DST,
  TCP_SRC,
  TCP_DST,
  UDP_SRC,
  UDP_DST,
  SCTP_SRC,
  SCTP_DST,
  ICMPV4_TYPE,
  ICMPV4_CODE,
  ARP_OP,
  ARP_SPA,
  ARP_TPA,
  ARP_SHA,
  ARP_THA,
  IPV6_SRC,
  IPV6_DST,
  IPV6_FLABEL,
  IPV6_ND_TARGET,
  IPV6_ND_SLL,
  IPV6_ND_TLL,
  IPV6_EXTHDR,
  ICMPV6_TYPE,
  ICMPV6_CODE,
  MPLS_LABEL,
  MPLS_TC,
  MPLS_BOS,
  PBB_ISID,
  PBB_UCA,
  TUNNEL_ID,
  kCount
};

struct FieldInfo {
  std::string_view name;  // canonical upper-case name
  unsigned width;         // bits
  FieldSyntax syntax;
  bool required;  // spec 4.1.1 (true) or 4.1.2 optional (false)
};

const FieldInfo& field_info(MatchField f);
// Case-insensitive; accepts the alias IPV4_PROTO for IP_PROTO.
bool parse_field_name(std::string_view name, MatchField& out);

// One alternative of a field's value: a masked value (value already ANDed with mask;
// an exact value has the full-width mask) or an inclusive range.
struct MatchTerm {
  enum class Kind : uint8_t { kMasked, kRange } kind = Kind::kMasked;
  u128 value = 0, mask = 0;  // kMasked
  u128 min = 0, max = 0;     // kRange
  bool contains(u128 v) const { return kind == Kind::kMasked ? (v & mask) == value : (v >= min && v <= max); }
};

struct FieldMatch {
  MatchField field = MatchField::ETH_TYPE;
  std::vector<MatchTerm> terms;  // union, nested lists flattened in source order
  bool contains(u128 v) const {
    for (const auto& t : terms)
      if (t.contains(v)) return true;
    return false;
  }
};

// One rule: the conjunction of its fields (each field at most once).
struct HeaderMatch {
  std::vector<FieldMatch> fields;
  const FieldMatch* find(MatchField f) const {
    for (const auto& m : fields)
      if (m.field == f) return &m;
    return nullptr;
  }
};

// A rule list, never changed once built, shared by the block that read it and the
// lookups that use it (a fused lookup holds its targets' rules without copying them).
using SharedHeaderMatches = std::shared_ptr<const std::vector<HeaderMatch>>;

// Brackets in one value nest at most this deep (deeper: BAD_HEADER_MATCH, found by one
// linear scan before parsing, so parsing stays linear in the value's length).
inline constexpr unsigned kMaxMatchDepth = 32;

// Throw ProtocolError(BAD_HEADER_MATCH) with a message naming the field and the problem.
FieldMatch parse_field_value(std::string_view field_name, const nlohmann::json& value);
HeaderMatch parse_header_match(const nlohmann::json& match_object);  // also checks prerequisites

// {"field": "TCP_DST", "terms": [{"value": "0x50", "mask": "0xffff"}, {"min": ..., "max": ...}]}
nlohmann::json to_canonical(const FieldMatch& m);
std::string to_hex(u128 v);  // "0x0", "0x50", lower case, no leading zeros

}  // namespace openbox
