// Header-match values: field table, value grammar (lists, ranges, masks), prerequisites
// and the canonical form. protocol/README.md is the contract; the vectors under
// protocol/vectors/header-match check this parser and the Java one alike.
#include "openbox/header_match.hh"

#include <array>
#include <optional>

namespace openbox {
namespace {

using S = FieldSyntax;

constexpr std::array<FieldInfo, static_cast<size_t>(MatchField::kCount)> kFields{{
    {"ETH_DST", 48, S::kMac, true},           {"ETH_SRC", 48, S::kMac, true},
    {"ETH_TYPE", 16, S::kInteger, true},      {"VLAN_VID", 12, S::kInteger, true},
    {"VLAN_PCP", 3, S::kInteger, true},       {"IP_PROTO", 8, S::kInteger, true},
    {"IP_DSCP", 6, S::kInteger, false},       {"IP_ECN", 2, S::kInteger, false},
    {"IPV4_SRC", 32, S::kIpv4, true},         {"IPV4_DST", 32, S::kIpv4, true},
    {"TCP_SRC", 16, S::kInteger, true},       {"TCP_DST", 16, S::kInteger, true},
    {"UDP_SRC", 16, S::kInteger, true},       {"UDP_DST", 16, S::kInteger, true},
    {"SCTP_SRC", 16, S::kInteger, false},     {"SCTP_DST", 16, S::kInteger, false},
    {"ICMPV4_TYPE", 8, S::kInteger, false},   {"ICMPV4_CODE", 8, S::kInteger, false},
    {"ARP_OP", 16, S::kInteger, false},       {"ARP_SPA", 32, S::kIpv4, false},
    {"ARP_TPA", 32, S::kIpv4, false},         {"ARP_SHA", 48, S::kMac, false},
    {"ARP_THA", 48, S::kMac, false},          {"IPV6_SRC", 128, S::kIpv6, false},
    {"IPV6_DST", 128, S::kIpv6, false},       {"IPV6_FLABEL", 20, S::kInteger, false},
    {"IPV6_ND_TARGET", 128, S::kIpv6, false}, {"IPV6_ND_SLL", 48, S::kMac, false},
    {"IPV6_ND_TLL", 48, S::kMac, false},      {"IPV6_EXTHDR", 9, S::kInteger, false},
    {"ICMPV6_TYPE", 8, S::kInteger, false},   {"ICMPV6_CODE", 8, S::kInteger, false},
    {"MPLS_LABEL", 20, S::kInteger, false},   {"MPLS_TC", 3, S::kInteger, false},
    {"MPLS_BOS", 1, S::kInteger, false},      {"PBB_ISID", 24, S::kInteger, false},
    {"PBB_UCA", 1, S::kInteger, false},       {"TUNNEL_ID", 64, S::kInteger, false},
}};

// A prerequisite: `on` must be present and (unless `allowed` is empty) admit only
// exact values from `allowed`. (Held inline: it is looked up for every field of every rule.)
struct Prereq {
  bool has = false;
  MatchField on = MatchField::ETH_TYPE;
  struct Values {
    std::array<u128, 2> v{};
    size_t n = 0;
    Values() = default;
    Values(std::initializer_list<u128> list) {
      for (u128 x : list) v[n++] = x;
    }
    bool empty() const { return n == 0; }
    const u128* begin() const { return v.data(); }
    const u128* end() const { return v.data() + n; }
  } allowed;
};

Prereq prereq_of(MatchField f) {
  using F = MatchField;
  auto eth = [](Prereq::Values v) { return Prereq{true, F::ETH_TYPE, v}; };
  auto ipp = [](u128 v) { return Prereq{true, F::IP_PROTO, {v}}; };
  switch (f) {
    case F::VLAN_PCP: return Prereq{true, F::VLAN_VID, {}};
    case F::IP_PROTO:
    case F::IP_DSCP:
    case F::IP_ECN: return eth({0x0800, 0x86dd});
    case F::IPV4_SRC:
    case F::IPV4_DST: return eth({0x0800});
    case F::TCP_SRC:
    case F::TCP_DST: return ipp(6);
    case F::UDP_SRC:
    case F::UDP_DST: return ipp(17);
    case F::SCTP_SRC:
    case F::SCTP_DST: return ipp(132);
    case F::ICMPV4_TYPE:
    case F::ICMPV4_CODE: return ipp(1);
    case F::ARP_OP:
    case F::ARP_SPA:
    case F::ARP_TPA:
    case F::ARP_SHA:
    case F::ARP_THA: return eth({0x0806});
    case F::IPV6_SRC:
    case F::IPV6_DST:
    case F::IPV6_ND_TARGET:
    case F::IPV6_FLABEL:
    case F::IPV6_ND_SLL:
    case F::IPV6_ND_TLL:
    case F::IPV6_EXTHDR: return eth({0x86dd});
    case F::ICMPV6_TYPE:
    case F::ICMPV6_CODE: return ipp(58);
    case F::MPLS_LABEL:
    case F::MPLS_TC:
    case F::MPLS_BOS: return eth({0x8847, 0x8848});
    case F::PBB_ISID:
    case F::PBB_UCA: return eth({0x88e7});
    default: return Prereq{};
  }
}

u128 full_mask(unsigned width) { return width >= 128 ? ~u128{0} : ((u128{1} << width) - 1); }

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// --- scalars (return nullopt on a syntax error or overflow) ---

std::optional<u128> parse_integer(std::string_view s, unsigned width) {
  if (s.empty()) return std::nullopt;
  const u128 limit = full_mask(width);
  u128 v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (char c : s.substr(2)) {
      int d = hex_digit(c);
      if (d < 0) return std::nullopt;
      if (v > (limit >> 4)) return std::nullopt;
      v = (v << 4) | static_cast<unsigned>(d);
    }
  } else {
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      if (v > limit / 10) return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
  }
  if (v > limit) return std::nullopt;
  return v;
}

std::optional<u128> parse_mac(std::string_view s) {
  if (s.size() != 17) return std::nullopt;
  char sep = s[2];
  if (sep != ':' && sep != '-') return std::nullopt;
  u128 v = 0;
  for (int i = 0; i < 6; ++i) {
    int a = hex_digit(s[i * 3]), b = hex_digit(s[i * 3 + 1]);
    if (a < 0 || b < 0) return std::nullopt;
    if (i < 5 && s[i * 3 + 2] != sep) return std::nullopt;
    v = (v << 8) | static_cast<unsigned>(a * 16 + b);
  }
  return v;
}

std::optional<u128> parse_ipv4(std::string_view s) {
  u128 v = 0;
  int parts = 0;
  size_t i = 0;
  while (parts < 4) {
    size_t start = i;
    unsigned octet = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 3) octet = octet * 10 + (s[i++] - '0');
    if (i == start || octet > 255) return std::nullopt;
    if (i - start > 1 && s[start] == '0') return std::nullopt;  // no leading zeros
    v = (v << 8) | octet;
    ++parts;
    if (parts < 4) {
      if (i >= s.size() || s[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != s.size()) return std::nullopt;
  return v;
}

std::optional<u128> parse_ipv6(std::string_view s) {
  // Up to 8 groups of 1..4 hex digits, at most one "::", optionally ending in a dotted quad.
  std::vector<uint16_t> head, tail;
  bool compressed = false;
  auto* cur = &head;
  size_t i = 0;
  if (s.substr(0, 2) == "::") {
    compressed = true;
    cur = &tail;
    i = 2;
  } else if (!s.empty() && s[0] == ':') return std::nullopt;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && s[j] != ':') ++j;
    std::string_view group = s.substr(i, j - i);
    if (group.find('.') != std::string_view::npos) {
      if (j != s.size()) return std::nullopt;
      auto v4 = parse_ipv4(group);
      if (!v4) return std::nullopt;
      cur->push_back(static_cast<uint16_t>(*v4 >> 16));
      cur->push_back(static_cast<uint16_t>(*v4 & 0xffff));
      i = j;
      break;
    }
    if (group.empty() || group.size() > 4) return std::nullopt;
    unsigned g = 0;
    for (char c : group) {
      int d = hex_digit(c);
      if (d < 0) return std::nullopt;
      g = g * 16 + static_cast<unsigned>(d);
    }
    cur->push_back(static_cast<uint16_t>(g));
    if (j == s.size()) {
      i = j;
      break;
    }
    // j points at ':'
    if (j + 1 < s.size() && s[j + 1] == ':') {
      if (compressed) return std::nullopt;
      compressed = true;
      cur = &tail;
      i = j + 2;
    } else {
      if (j + 1 == s.size()) return std::nullopt;  // trailing single ':'
      i = j + 1;
    }
  }
  size_t n = head.size() + tail.size();
  if (compressed ? n > 7 : n != 8) return std::nullopt;
  u128 v = 0;
  for (auto g : head) v = (v << 16) | g;
  for (size_t k = n; k < 8; ++k) v <<= 16;
  for (auto g : tail) v = (v << 16) | g;
  return v;
}

std::optional<u128> parse_plain_scalar(std::string_view s, const FieldInfo& info) {
  switch (info.syntax) {
    case S::kInteger: return parse_integer(s, info.width);
    case S::kMac: return parse_mac(s);
    case S::kIpv4: return parse_ipv4(s);
    case S::kIpv6: return parse_ipv6(s);
  }
  return std::nullopt;
}

class ValueParser {
 public:
  ValueParser(const FieldInfo& info, std::string_view text) : info_(info), text_(text) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw ProtocolError(ErrorSubtype::BAD_HEADER_MATCH, std::string(info_.name) + " value \"" + shown() + "\": " + why);
  }
  // The value as quoted in an error: long values are cut (they may be hostile).
  std::string shown() const {
    constexpr size_t kShown = 80;
    return text_.size() <= kShown ? std::string(text_) : std::string(text_.substr(0, kShown)) + "...";
  }

  void parse(std::vector<MatchTerm>& out) {
    std::string_view s = trim(text_);
    if (s.empty()) fail("empty value");
    check_nesting(s);
    if (s.front() == '[') {
      if (s.back() != ']' || matching_close(s, 0) != s.size() - 1) fail("unbalanced brackets");
      bracket(s.substr(1, s.size() - 2), out);
    } else {
      out.push_back(single(s));
    }
  }

 private:
  // Balanced brackets nested at most kMaxMatchDepth deep. Each bracket level below scans
  // its content once, so with the depth bounded the whole parse is linear.
  void check_nesting(std::string_view s) const {
    unsigned depth = 0;
    for (char c : s) {
      if (c == '[') {
        if (++depth > kMaxMatchDepth) fail("brackets nested deeper than " + std::to_string(kMaxMatchDepth) + " levels");
      } else if (c == ']') {
        if (depth == 0) fail("unbalanced brackets");
        --depth;
      }
    }
    if (depth != 0) fail("unbalanced brackets");
  }

  // Index of the ']' closing the '[' at `open`, or npos.
  static size_t matching_close(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
      if (s[i] == '[') ++depth;
      else if (s[i] == ']' && --depth == 0) return i;
    }
    return std::string_view::npos;
  }

  // The content of one bracket: a range, or a list of elements.
  void bracket(std::string_view content, std::vector<MatchTerm>& out) {
    if (trim(content).empty()) fail("empty list");
    bool has_comma = false, has_nested = false;
    int depth = 0;
    for (char c : content) {
      if (c == '[') {
        ++depth;
        has_nested = true;
      } else if (c == ']') --depth;
      else if (c == ',' && depth == 0) has_comma = true;
    }
    if (!has_comma && !has_nested) {
      if (auto r = try_range(content)) {
        out.push_back(*r);
        return;
      }
    }
    // A list: split on top-level commas.
    size_t start = 0;
    depth = 0;
    for (size_t i = 0; i <= content.size(); ++i) {
      if (i < content.size()) {
        char c = content[i];
        if (c == '[') {
          ++depth;
          continue;
        }
        if (c == ']') {
          --depth;
          continue;
        }
        if (c != ',' || depth != 0) continue;
      }
      element(trim(content.substr(start, i - start)), out);
      start = i + 1;
    }
  }

  void element(std::string_view e, std::vector<MatchTerm>& out) {
    if (e.empty()) fail("empty list element");
    if (e.front() == '[') {
      if (e.back() != ']' || matching_close(e, 0) != e.size() - 1) fail("unbalanced brackets");
      bracket(e.substr(1, e.size() - 2), out);
      return;
    }
    out.push_back(single(e));
  }

  // A range "min:max" (either end may be empty; exactly one ':'), or nullopt when the
  // content is not one. Only integer and IPv4 fields have ranges: MAC and IPv6 scalars
  // contain ':', so a bracket group on those fields is always a list.
  std::optional<MatchTerm> try_range(std::string_view content) {
    if (info_.syntax != S::kInteger && info_.syntax != S::kIpv4) return std::nullopt;
    size_t colon = content.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    if (content.find(':', colon + 1) != std::string_view::npos) fail("a range has exactly one ':'");
    std::string_view lo = trim(content.substr(0, colon)), hi = trim(content.substr(colon + 1));
    std::optional<u128> lv = lo.empty() ? std::optional<u128>(0) : parse_plain_scalar(lo, info_);
    std::optional<u128> hv = hi.empty() ? std::optional<u128>(full_mask(info_.width)) : parse_plain_scalar(hi, info_);
    if (!lv || !hv) fail("bad range end (a range end is a plain " + syntax_name() + ")");
    if (*lv > *hv) fail("range minimum greater than maximum");
    MatchTerm t;
    t.kind = MatchTerm::Kind::kRange;
    t.min = *lv;
    t.max = *hv;
    return t;
  }

  // scalar ["%" scalar], or an address with "/len"; whitespace around the '%' is allowed
  // (the caller has already trimmed the element).
  MatchTerm single(std::string_view s) {
    MatchTerm t;
    const u128 full = full_mask(info_.width);
    size_t pct = s.find('%');
    std::string_view vtext = pct == std::string_view::npos ? s : s.substr(0, pct);
    std::string_view mtext = pct == std::string_view::npos ? std::string_view{} : s.substr(pct + 1);
    vtext = trim(vtext);
    mtext = trim(mtext);
    u128 value = 0, mask = full;
    size_t slash = vtext.find('/');
    if (slash != std::string_view::npos) {
      if (info_.syntax != S::kIpv4 && info_.syntax != S::kIpv6) fail("prefix length on a non-address field");
      if (pct != std::string_view::npos) fail("both a prefix length and a mask");
      std::string_view ltext = vtext.substr(slash + 1);
      unsigned len = 0;
      if (ltext.empty() || ltext.size() > 3) fail("bad prefix length");
      for (char c : ltext) {
        if (c < '0' || c > '9') fail("bad prefix length");
        len = len * 10 + static_cast<unsigned>(c - '0');
      }
      if (len > info_.width) fail("prefix length longer than the address");
      auto v = parse_plain_scalar(vtext.substr(0, slash), info_);
      if (!v) fail("bad " + syntax_name());
      value = *v;
      mask = len == 0 ? 0 : (full & ~full_mask(info_.width - len));
    } else {
      auto v = parse_plain_scalar(vtext, info_);
      if (!v) fail("bad " + syntax_name());
      value = *v;
    }
    if (pct != std::string_view::npos) {
      if (mtext.find('%') != std::string_view::npos) fail("more than one mask");
      auto m = parse_plain_scalar(mtext, info_);
      if (!m) fail("bad mask (must be a " + syntax_name() + ")");
      mask = *m;
    }
    t.kind = MatchTerm::Kind::kMasked;
    t.mask = mask;
    t.value = value & mask;
    return t;
  }

  std::string syntax_name() const {
    switch (info_.syntax) {
      case S::kInteger: return "integer (" + std::to_string(info_.width) + " bits)";
      case S::kMac: return "MAC address";
      case S::kIpv4: return "IPv4 address";
      case S::kIpv6: return "IPv6 address";
    }
    return "";
  }

  const FieldInfo& info_;
  std::string_view text_;
};

[[noreturn]] void bad_match(const std::string& why) { throw ProtocolError(ErrorSubtype::BAD_HEADER_MATCH, why); }

}  // namespace

const FieldInfo& field_info(MatchField f) { return kFields[static_cast<size_t>(f)]; }

bool parse_field_name(std::string_view name, MatchField& out) {
  // Case-insensitive (ASCII) comparison with the table, without a copy of the name.
  auto same = [name](std::string_view field) {
    if (field.size() != name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
      const char c = name[i];
      if ((c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c) != field[i]) return false;
    }
    return true;
  };
  if (same("IPV4_PROTO")) {
    out = MatchField::IP_PROTO;
    return true;
  }
  for (size_t i = 0; i < kFields.size(); ++i) {
    if (same(kFields[i].name)) {
      out = static_cast<MatchField>(i);
      return true;
    }
  }
  return false;
}

FieldMatch parse_field_value(std::string_view field_name, const nlohmann::json& value) {
  FieldMatch m;
  if (!parse_field_name(field_name, m.field)) bad_match("unknown match field \"" + std::string(field_name) + "\"");
  const FieldInfo& info = field_info(m.field);
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    ValueParser(info, text).parse(m.terms);
    return m;
  }
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)) {
    if (info.syntax != S::kInteger) bad_match(std::string(info.name) + ": a number is only allowed for integer fields");
    uint64_t v = value.get<uint64_t>();
    if (u128{v} > full_mask(info.width))
      bad_match(std::string(info.name) + ": " + std::to_string(v) + " does not fit in " + std::to_string(info.width) +
                " bits");
    m.terms.push_back(MatchTerm{MatchTerm::Kind::kMasked, v, full_mask(info.width), 0, 0});
    return m;
  }
  bad_match(std::string(info.name) + ": value must be a string or a non-negative integer, got " + value.dump());
}

HeaderMatch parse_header_match(const nlohmann::json& match_object) {
  if (!match_object.is_object()) bad_match("a header match must be an object, got " + match_object.dump());
  HeaderMatch hm;
  for (const auto& [key, value] : match_object.items()) {
    FieldMatch fm = parse_field_value(key, value);
    if (hm.find(fm.field)) bad_match("field " + std::string(field_info(fm.field).name) + " given twice");
    hm.fields.push_back(std::move(fm));
  }
  for (const auto& fm : hm.fields) {
    const Prereq p = prereq_of(fm.field);
    if (!p.has) continue;
    const std::string_view name = field_info(fm.field).name, dep = field_info(p.on).name;
    const FieldMatch* d = hm.find(p.on);
    if (!d) bad_match(std::string(name) + " needs " + std::string(dep) + " in the same match");
    if (p.allowed.empty()) continue;
    const u128 full = full_mask(field_info(p.on).width);
    for (const auto& t : d->terms) {
      bool ok = t.kind == MatchTerm::Kind::kMasked && t.mask == full;
      if (ok) {
        ok = false;
        for (u128 a : p.allowed) ok = ok || t.value == a;
      }
      if (!ok) {
        std::string want;
        for (u128 a : p.allowed) want += (want.empty() ? "" : " or ") + to_hex(a);
        bad_match(std::string(name) + " needs " + std::string(dep) + " to be exactly " + want);
      }
    }
  }
  return hm;
}

nlohmann::json to_canonical(const FieldMatch& m) {
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : m.terms) {
    if (t.kind == MatchTerm::Kind::kMasked) terms.push_back({{"value", to_hex(t.value)}, {"mask", to_hex(t.mask)}});
    else terms.push_back({{"min", to_hex(t.min)}, {"max", to_hex(t.max)}});
  }
  return {{"field", std::string(field_info(m.field).name)}, {"terms", terms}};
}

std::string to_hex(u128 v) {
  if (v == 0) return "0x0";
  std::string digits;
  while (v) {
    digits.push_back("0123456789abcdef"[static_cast<unsigned>(v & 0xf)]);
    v >>= 4;
  }
  return "0x" + std::string(digits.rbegin(), digits.rend());
}

}  // namespace openbox
