#include "lib/acl_classifier.hh"

#include "lib/flow_cache.hh"
#include "lib/headers.hh"

#include <rte_acl.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

namespace obi::blocks {

using openbox::FieldMatch;
using openbox::HeaderMatch;
using openbox::MatchTerm;

namespace {

constexpr size_t kFields = static_cast<size_t>(MatchField::kCount);

// Layers a rule can require: a field is present exactly when its layer is (fields.cc).
enum Presence : int {
  P_NEVER = -1,
  P_ETH,
  P_VLAN,
  P_IP,
  P_IPTC,
  P_IPV4,
  P_TCP,
  P_UDP,
  P_SCTP,
  P_ICMP4,
  P_ICMP6,
  P_ARP,
  P_IPV6,
  P_ND_TARGET,
  P_ND_SLL,
  P_ND_TLL,
  P_MPLS,
  P_PBB,
  P_ETYPE4,
  P_ETYPE6,
  P_COUNT
};

static_assert(P_COUNT < 31, "layer bits leave FlowCache's valid bit free");

int presence_of(MatchField f) {
  switch (f) {
    case MatchField::ETH_DST:
    case MatchField::ETH_SRC:
    case MatchField::ETH_TYPE: return P_ETH;
    case MatchField::VLAN_VID:
    case MatchField::VLAN_PCP: return P_VLAN;
    case MatchField::IP_PROTO: return P_IP;
    case MatchField::IP_DSCP:
    case MatchField::IP_ECN: return P_IPTC;
    case MatchField::IPV4_SRC:
    case MatchField::IPV4_DST: return P_IPV4;
    case MatchField::TCP_SRC:
    case MatchField::TCP_DST: return P_TCP;
    case MatchField::UDP_SRC:
    case MatchField::UDP_DST: return P_UDP;
    case MatchField::SCTP_SRC:
    case MatchField::SCTP_DST: return P_SCTP;
    case MatchField::ICMPV4_TYPE:
    case MatchField::ICMPV4_CODE: return P_ICMP4;
    case MatchField::ICMPV6_TYPE:
    case MatchField::ICMPV6_CODE: return P_ICMP6;
    case MatchField::ARP_OP:
    case MatchField::ARP_SPA:
    case MatchField::ARP_TPA:
    case MatchField::ARP_SHA:
    case MatchField::ARP_THA: return P_ARP;
    // the extension-header walk is present exactly when the fixed IPv6 header is
    case MatchField::IPV6_SRC:
    case MatchField::IPV6_DST:
    case MatchField::IPV6_FLABEL:
    case MatchField::IPV6_EXTHDR: return P_IPV6;
    case MatchField::IPV6_ND_TARGET: return P_ND_TARGET;
    case MatchField::IPV6_ND_SLL: return P_ND_SLL;
    case MatchField::IPV6_ND_TLL: return P_ND_TLL;
    case MatchField::MPLS_LABEL:
    case MatchField::MPLS_TC:
    case MatchField::MPLS_BOS: return P_MPLS;
    case MatchField::PBB_ISID:
    case MatchField::PBB_UCA: return P_PBB;
    case MatchField::TUNNEL_ID:
    case MatchField::kCount: return P_NEVER;
  }
  return P_NEVER;
}

// Fields that are never present together share a key slot (named by one of them).
MatchField slot_of(MatchField f) {
  switch (f) {
    case MatchField::UDP_SRC:
    case MatchField::SCTP_SRC: return MatchField::TCP_SRC;
    case MatchField::UDP_DST:
    case MatchField::SCTP_DST: return MatchField::TCP_DST;
    case MatchField::ICMPV6_TYPE: return MatchField::ICMPV4_TYPE;
    case MatchField::ICMPV6_CODE: return MatchField::ICMPV4_CODE;
    default: return f;
  }
}

// ETH_TYPE = one exact value that a presence bit stands for.
int etype_presence(const FieldMatch& fm) {
  if (fm.field != MatchField::ETH_TYPE || fm.terms.size() != 1) return P_NEVER;
  const MatchTerm& t = fm.terms[0];
  u128 v;
  if (t.kind == MatchTerm::Kind::kMasked) {
    if (t.mask != 0xffff) return P_NEVER;
    v = t.value;
  } else {
    if (t.min != t.max) return P_NEVER;
    v = t.min;
  }
  return v == kEthIpv4 ? P_ETYPE4 : v == kEthIpv6 ? P_ETYPE6 : P_NEVER;
}

inline u128 wmask(unsigned w) { return w >= 128 ? ~u128(0) : (u128(1) << w) - 1; }

// [lo, hi] over `width` bits as prefixes (value, mask).
void range_prefixes(u128 lo, u128 hi, unsigned width, std::vector<std::pair<u128, u128>>& out) {
  const u128 all = wmask(width);
  while (true) {
    // largest aligned block starting at lo that stays within hi
    unsigned k = 0;
    while (k < width) {
      u128 size = u128(1) << (k + 1);
      if ((lo & (size - 1)) != 0) break;
      u128 end = lo + (size - 1);
      if (end < lo || end > hi) break;
      ++k;
    }
    u128 block_mask = k >= width ? all : all & ~((u128(1) << k) - 1);
    out.emplace_back(lo, block_mask);
    u128 end = k >= width ? all : lo + ((u128(1) << k) - 1);
    if (end >= hi) return;
    lo = end + 1;
  }
}

// One ACL field: where it sits and what kind of match it carries.
struct AclField {
  uint8_t type, size;
  uint32_t offset;
  uint8_t input;
};

// Per-ACL-field constraint (BITMASK: value/mask; RANGE: lo/hi).
struct Cons {
  uint32_t a = 0, b = 0;
};

std::atomic<uint32_t> g_ctx_serial{0};

}  // namespace

std::unique_ptr<AclClassifier> AclClassifier::build(unsigned sets, const std::vector<uint32_t>& counts, RuleAt rule_at,
                                                    const void* rctx, std::string& why,
                                                    const std::atomic<bool>* cancel) {
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  if (sets > kMaxSets) {
    why = "more than 16 rule sets";
    return nullptr;
  }
  std::unique_ptr<AclClassifier> c(new AclClassifier());
  c->sets_ = sets;
  c->categories_ =
      sets <= 1 ? 1 : (sets + RTE_ACL_RESULTS_MULTIPLIER - 1) / RTE_ACL_RESULTS_MULTIPLIER * RTE_ACL_RESULTS_MULTIPLIER;

  // 1. Which slots, which slots need ranges, which layers each rule must see. Absent
  // fields are zero in the key, so a rule needs a presence bit for a field only when its
  // value accepts zero, or when the slot is shared and IP_PROTO does not tell the
  // protocols apart; ETH_TYPE = IPv4 is implied by an IPv4 address that excludes zero.
  // Bits every rule of a set needs are checked outside the ACL (per set, per packet).
  bool slot_used[kFields] = {}, slot_range[kFields] = {}, slot_odd_mask[kFields] = {};
  uint32_t max_count = 0;
  std::vector<std::vector<uint32_t>> req(sets);  // per rule: Presence bits; UINT32_MAX: never matches
  std::vector<std::vector<uint32_t>> sem(sets);  // per rule: every layer it needs to match
  uint32_t zmask = 0, tracked = 0;
  auto proto_pinned = [](const HeaderMatch& r, unsigned proto) {
    const FieldMatch* pm = r.find(MatchField::IP_PROTO);
    if (!pm) return false;
    for (const MatchTerm& t : pm->terms)
      if (t.kind == MatchTerm::Kind::kMasked ? !((t.mask & 0xff) == 0xff && t.value == proto)
                                             : !(t.min == proto && t.max == proto))
        return false;
    return true;
  };
  auto shared_proto = [](MatchField f) -> unsigned {
    switch (f) {
      case MatchField::TCP_SRC:
      case MatchField::TCP_DST: return 6;
      case MatchField::UDP_SRC:
      case MatchField::UDP_DST: return 17;
      case MatchField::SCTP_SRC:
      case MatchField::SCTP_DST: return 132;
      case MatchField::ICMPV4_TYPE:
      case MatchField::ICMPV4_CODE: return 1;
      case MatchField::ICMPV6_TYPE:
      case MatchField::ICMPV6_CODE: return 58;
      default: return 0;
    }
  };
  for (unsigned k = 0; k < sets; ++k) {
    max_count = std::max(max_count, counts[k]);
    req[k].assign(counts[k], 0);
    sem[k].assign(counts[k], 0);
    for (uint32_t i = 0; i < counts[k]; ++i) {
      const HeaderMatch& r = rule_at(rctx, k, i);
      uint32_t need = 0;
      bool never = false, v4_implied = false, v6_implied = false;
      for (const FieldMatch& fm : r.fields) {
        if (int e = etype_presence(fm); e != P_NEVER) {
          need |= 1u << e;
          sem[k][i] |= 1u << e;
          continue;
        }
        int p = presence_of(fm.field);
        if (p == P_NEVER || fm.terms.empty()) {
          never = true;
          break;
        }
        sem[k][i] |= 1u << p;
        const bool zero = fm.contains(0);
        if (zero || (shared_proto(fm.field) && !proto_pinned(r, shared_proto(fm.field)))) need |= 1u << p;
        if (!zero && (fm.field == MatchField::IPV4_SRC || fm.field == MatchField::IPV4_DST)) v4_implied = true;
        if (!zero && (fm.field == MatchField::IPV6_SRC || fm.field == MatchField::IPV6_DST)) v6_implied = true;
        size_t sl = static_cast<size_t>(slot_of(fm.field));
        slot_used[sl] = true;
        if (const unsigned w = openbox::field_info(fm.field).width; w <= 32)
          for (const MatchTerm& t : fm.terms) {
            if (t.kind == MatchTerm::Kind::kRange) {
              slot_range[sl] = true;
              continue;
            }
            u128 free_bits = ~t.mask & wmask(w);
            if (free_bits & (free_bits + 1)) slot_odd_mask[sl] = true;
          }
      }
      if (v4_implied) need &= ~(1u << P_ETYPE4);
      if (v6_implied) need &= ~(1u << P_ETYPE6);
      req[k][i] = never ? UINT32_MAX : need;
    }
  }
  for (unsigned k = 0; k < sets; ++k) {
    uint32_t common = UINT32_MAX;
    for (uint32_t i = 0; i < counts[k]; ++i)
      if (req[k][i] != UINT32_MAX) common &= sem[k][i];
    if (common == UINT32_MAX) common = 0;
    c->set_require_[k] = common;
    c->require_union_ |= common;
    tracked |= common;
    for (uint32_t& v : req[k])
      if (v != UINT32_MAX) {
        v &= ~common;
        zmask |= v;
      }
  }
  tracked |= zmask;
  int pres_index[P_COUNT];
  unsigned npres = 0;
  for (int p = 0; p < P_COUNT; ++p) pres_index[p] = (zmask >> p) & 1 ? static_cast<int>(npres++) : -1;
  const unsigned pres_bytes = (npres + 7) / 8;
  c->any_require_ = tracked != zmask;
  c->track_etype4_ = (tracked >> P_ETYPE4) & 1;
  c->track_etype6_ = (tracked >> P_ETYPE6) & 1;

  // 2. Layout. Byte 0 (input group 0): presence byte 0, or else a one-byte field, or else
  // a wildcard. Then 4-byte groups from offset 4: 1- and 2-byte items packed, gaps filled
  // with wildcard bytes, and one group per 4-byte part.
  std::vector<AclField> fields;
  struct Item {
    int kind;
    size_t slot;
    unsigned part;
    uint8_t size;
  };  // kind 0 presence byte, 1 slot part
  std::vector<Item> big, small;
  for (unsigned b = 0; b < pres_bytes; ++b) small.push_back({0, b, 0, 1});
  unsigned slot_parts[kFields] = {};
  uint8_t slot_part_size[kFields][4] = {};
  for (size_t s = 0; s < kFields; ++s) {
    if (!slot_used[s]) continue;
    unsigned w = openbox::field_info(static_cast<MatchField>(s)).width;
    std::vector<uint8_t> sizes;
    if (w <= 8) sizes = {1};
    else if (w <= 16) sizes = {2};
    else if (w <= 32) sizes = {4};
    else if (w <= 48) sizes = {2, 4};
    else if (w <= 64) sizes = {4, 4};
    else sizes = {4, 4, 4, 4};
    slot_parts[s] = static_cast<unsigned>(sizes.size());
    for (unsigned j = 0; j < sizes.size(); ++j) {
      slot_part_size[s][j] = sizes[j];
      (sizes[j] == 4 ? big : small).push_back({1, s, j, sizes[j]});
    }
  }
  std::stable_sort(small.begin(), small.end(), [](const Item& a, const Item& b) { return a.size > b.size; });
  // the first one-byte item (presence byte 0 when there is one) goes to input group 0
  std::optional<Item> first;
  for (size_t j = 0; j < small.size(); ++j)
    if (small[j].size == 1 && (!first || small[j].kind == 0)) {
      first = small[j];
      if (small[j].kind == 0) break;
    }
  if (first)
    for (size_t j = 0; j < small.size(); ++j)
      if (small[j].kind == first->kind && small[j].slot == first->slot && small[j].part == first->part) {
        small.erase(small.begin() + j);
        break;
      }
  // field index of each slot part / presence byte
  int slot_field[kFields][4];
  int pres_field[4] = {-1, -1, -1, -1};
  std::vector<int> field_slot_range;  // per ACL field: 1 when RANGE
  uint32_t offset = 0;
  uint8_t input = 0;
  auto add = [&](const Item& it, uint32_t off) {
    // prefixes only: MASK (what DPDK's own layouts use for addresses); ranges: RANGE
    bool one = it.kind == 1 && slot_parts[it.slot] == 1;
    uint8_t type = one && slot_range[it.slot]                      ? RTE_ACL_FIELD_TYPE_RANGE
                   : one && it.size > 1 && !slot_odd_mask[it.slot] ? RTE_ACL_FIELD_TYPE_MASK
                                                                   : RTE_ACL_FIELD_TYPE_BITMASK;
    fields.push_back({type, it.size, off, input});
    if (it.kind == 0) pres_field[it.slot] = static_cast<int>(fields.size() - 1);
    else slot_field[it.slot][it.part] = static_cast<int>(fields.size() - 1);
  };
  if (first) add(*first, 0);
  else fields.push_back({RTE_ACL_FIELD_TYPE_BITMASK, 1, 0, 0});
  offset = 4;
  input = 1;
  // first-fit packing of the small items, largest first (2-byte items land 2-aligned)
  std::vector<std::vector<Item>> groups;
  std::vector<unsigned> used_bytes;
  for (const Item& it : small) {
    size_t g = 0;
    while (g < groups.size() && used_bytes[g] + it.size > 4) ++g;
    if (g == groups.size()) {
      groups.emplace_back();
      used_bytes.push_back(0);
    }
    groups[g].push_back(it);
    used_bytes[g] += it.size;
  }
  // Trie order: byte-wide fields (protocols, presence) first, then the 4-byte values,
  // then 2-byte ones (ports): rte_acl builds much smaller tries for ClassBench-like sets
  // when exact small fields come before prefixes and ranges.
  auto emit_group = [&](const std::vector<Item>& grp) {
    uint32_t off = offset;
    for (const Item& it : grp) {
      add(it, off);
      off += it.size;
    }
    // every byte of a 4-byte input group must belong to a field: pad with wildcards
    while (off < offset + 4) {
      fields.push_back({RTE_ACL_FIELD_TYPE_BITMASK, 1, off, input});
      ++off;
    }
    offset += 4;
    ++input;
  };
  auto bytes_only = [](const std::vector<Item>& grp) {
    for (const Item& it : grp)
      if (it.size != 1) return false;
    return true;
  };
  for (const auto& grp : groups)
    if (bytes_only(grp)) emit_group(grp);
  for (const Item& it : big) emit_group({it});
  for (const auto& grp : groups)
    if (!bytes_only(grp)) emit_group(grp);
  if (fields.size() > RTE_ACL_MAX_FIELDS) {
    why = "rule sets use too many fields for rte_acl (" + std::to_string(fields.size()) + " > 64)";
    return nullptr;
  }
  c->key_len_ = offset;
  c->stride_ = (offset + 15) & ~15u;
  c->nfields_ = static_cast<unsigned>(fields.size());
  if (c->key_len_ > kMaxKeyBytes) {
    why = "key too long";
    return nullptr;
  }

  // Extracts for the key builder.
  for (size_t f = 0; f < kFields; ++f) {
    auto field = static_cast<MatchField>(f);
    int p = presence_of(field);
    size_t s = static_cast<size_t>(slot_of(field));
    if (p == P_NEVER || !slot_used[s]) continue;
    Extract e{};
    e.field = field;
    e.cls = static_cast<uint8_t>(p);
    e.kind = kGeneric;
    switch (field) {  // the 5-tuple, copied straight from the packet (already big-endian)
      case MatchField::IP_PROTO: e.kind = kProto; break;
      case MatchField::IPV4_SRC:
        e.kind = kV4;
        e.arg = 12;
        break;
      case MatchField::IPV4_DST:
        e.kind = kV4;
        e.arg = 16;
        break;
      case MatchField::TCP_SRC:
      case MatchField::UDP_SRC:
      case MatchField::SCTP_SRC:
      case MatchField::TCP_DST:
      case MatchField::UDP_DST:
      case MatchField::SCTP_DST:
        e.kind = kL4;
        e.arg = static_cast<uint8_t>(
            field == MatchField::TCP_SRC || field == MatchField::UDP_SRC || field == MatchField::SCTP_SRC ? 0 : 2);
        e.arg |= static_cast<uint8_t>(p == P_TCP ? 0 : p == P_UDP ? 4 : 8);  // bits 2-3: which protocol
        break;
      default: break;
    }
    e.presence_byte = static_cast<uint8_t>(pres_index[p] >= 0 ? fields[pres_field[pres_index[p] / 8]].offset : 0);
    e.presence_bit = static_cast<uint8_t>(pres_index[p] >= 0 ? 1u << (pres_index[p] % 8) : 0);
    e.nparts = static_cast<uint8_t>(slot_parts[s]);
    for (unsigned j = 0; j < slot_parts[s]; ++j) {
      e.part_off[j] = static_cast<uint8_t>(fields[slot_field[s][j]].offset);
      e.part_size[j] = slot_part_size[s][j];
    }
    c->extracts_.push_back(e);
  }
  // source and destination port of one protocol side by side in the key: one 4-byte copy
  for (size_t a = 0; a < c->extracts_.size(); ++a) {
    Extract& src = c->extracts_[a];
    if (src.kind != kL4 || (src.arg & 3) != 0) continue;
    for (size_t b = 0; b < c->extracts_.size(); ++b) {
      const Extract& dst = c->extracts_[b];
      if (dst.kind == kL4 && dst.arg == (src.arg | 2) && dst.part_off[0] == src.part_off[0] + 2 && dst.cls == src.cls &&
          dst.presence_byte == src.presence_byte && dst.presence_bit == src.presence_bit) {
        src.kind = kL4Pair;
        c->extracts_.erase(c->extracts_.begin() + static_cast<std::ptrdiff_t>(b));
        break;
      }
    }
  }
  auto pres_pos = [&](int p, int& byte_off, uint8_t& bit) {
    byte_off = pres_index[p] < 0 ? -1 : static_cast<int>(fields[pres_field[pres_index[p] / 8]].offset);
    bit = pres_index[p] < 0 ? 0 : static_cast<uint8_t>(1u << (pres_index[p] % 8));
  };
  pres_pos(P_ETYPE4, c->etype4_byte_, c->etype4_bit_);
  pres_pos(P_ETYPE6, c->etype6_byte_, c->etype6_bit_);
  c->five_tuple_ = c->etype4_byte_ < 0 && c->etype6_byte_ < 0;
  for (const Extract& e : c->extracts_) {
    if (e.presence_bit) c->five_tuple_ = false;
    else if (e.kind == kProto) c->proto_off_ = e.part_off[0];
    else if (e.kind == kV4) c->v4_off_[e.arg == 12 ? 0 : 1] = e.part_off[0];
    else if (e.kind == kL4Pair) c->ports_off_[e.arg >> 2] = e.part_off[0];
    else c->five_tuple_ = false;
  }

  // 3. Rules: each rule's alternatives (cross product of its fields' terms).
  const unsigned nf = static_cast<unsigned>(fields.size());
  const size_t rule_sz = RTE_ACL_RULE_SZ(nf);
  std::vector<uint8_t> acl_rules;
  uint32_t total = 0;
  std::vector<Cons> wildcard(nf);
  for (unsigned j = 0; j < nf; ++j)
    if (fields[j].type == RTE_ACL_FIELD_TYPE_RANGE)
      wildcard[j].b = fields[j].size == 1 ? 0xff : fields[j].size == 2 ? 0xffff : 0xffffffffu;
  std::vector<std::vector<Cons>> alts, next, term_alts;
  std::vector<std::pair<u128, u128>> prefixes;
  for (unsigned k = 0; k < sets; ++k) {
    for (uint32_t i = 0; i < counts[k]; ++i) {
      if ((i & 255) == 0 && cancelled()) {
        why = "cancelled";
        return nullptr;
      }
      const HeaderMatch& r = rule_at(rctx, k, i);
      if (req[k][i] == UINT32_MAX) continue;  // cannot match any packet
      uint32_t pres_bits = 0;
      for (int p = 0; p < P_COUNT; ++p)
        if ((req[k][i] >> p) & 1) pres_bits |= 1u << pres_index[p];
      alts.assign(1, wildcard);
      bool never = false;
      bool slot_taken[kFields] = {};
      for (const FieldMatch& fm : r.fields) {
        if (etype_presence(fm) != P_NEVER) continue;
        size_t s = static_cast<size_t>(slot_of(fm.field));
        if (slot_taken[s]) {
          never = true;
          break;
        }  // two exclusive fields: cannot match any packet
        slot_taken[s] = true;
        const unsigned w = openbox::field_info(fm.field).width;
        const u128 all = wmask(w);
        term_alts.clear();
        // one alternative = constraints on this slot's parts
        auto push_masked = [&](u128 value, u128 mask) {
          std::vector<Cons> a(slot_parts[s]);
          unsigned shift = 0;
          for (int j = static_cast<int>(slot_parts[s]) - 1; j >= 0; --j) {
            unsigned bits = slot_part_size[s][j] * 8u;
            u128 pm = (u128(1) << bits) - 1;
            a[j].a = static_cast<uint32_t>((value >> shift) & pm);
            a[j].b = static_cast<uint32_t>((mask >> shift) & pm);
            shift += bits;
          }
          term_alts.push_back(std::move(a));
        };
        for (const MatchTerm& t : fm.terms) {
          if (slot_parts[s] == 1 && slot_range[s]) {
            uint32_t lo, hi;
            if (t.kind == MatchTerm::Kind::kRange) {
              if (t.min > t.max) continue;
              lo = static_cast<uint32_t>(t.min);
              hi = static_cast<uint32_t>(std::min<u128>(t.max, all));
              term_alts.push_back({Cons{lo, hi}});
              continue;
            }
            // a mask on a RANGE field: one range per value of the mask's holes above its tail
            const u128 m = t.mask & all;
            unsigned tail = 0;
            while (tail < w && !((m >> tail) & 1)) ++tail;
            std::vector<unsigned> holes;
            for (unsigned b = tail; b < w; ++b)
              if (!((m >> b) & 1)) holes.push_back(b);
            if (holes.size() > 4) {
              why = "a non-prefix mask on a field that also has ranges";
              return nullptr;
            }
            for (uint32_t h = 0; h < (1u << holes.size()); ++h) {
              u128 v = t.value & m;
              for (size_t b = 0; b < holes.size(); ++b)
                if ((h >> b) & 1) v |= u128(1) << holes[b];
              u128 top = v | (tail ? ((u128(1) << tail) - 1) : 0);
              term_alts.push_back({Cons{static_cast<uint32_t>(v), static_cast<uint32_t>(top)}});
            }
          } else if (t.kind == MatchTerm::Kind::kMasked && slot_parts[s] == 1 && slot_part_size[s][0] > 1 &&
                     !slot_odd_mask[s]) {
            // MASK field: prefix length over the ACL field's bytes (bits above the
            // match field's width are zero in every key, so they join the prefix)
            const unsigned bits = slot_part_size[s][0] * 8u;
            const u128 m = (t.mask & all) | (((u128(1) << bits) - 1) & ~all);
            term_alts.push_back({Cons{static_cast<uint32_t>(t.value & t.mask & all),
                                      static_cast<uint32_t>(__builtin_popcountll(static_cast<uint64_t>(m)))}});
          } else if (t.kind == MatchTerm::Kind::kMasked) {
            push_masked(t.value & t.mask & all, t.mask & all);
          } else {
            if (t.min > t.max) continue;
            prefixes.clear();
            range_prefixes(t.min, std::min<u128>(t.max, all), w, prefixes);
            for (auto& [v, m] : prefixes) push_masked(v, m);
          }
        }
        if (term_alts.empty()) {
          never = true;
          break;
        }
        if (alts.size() * term_alts.size() > kMaxExpansionPerRule) {
          why = "rule " + std::to_string(i) + " of set " + std::to_string(k) + " expands to more than " +
                std::to_string(kMaxExpansionPerRule) + " ACL rules";
          return nullptr;
        }
        next.clear();
        for (const auto& a : alts)
          for (const auto& ta : term_alts) {
            next.push_back(a);
            for (unsigned j = 0; j < slot_parts[s]; ++j) next.back()[slot_field[s][j]] = ta[j];
          }
        alts.swap(next);
      }
      if (never) continue;
      for (unsigned b = 0; b < pres_bytes; ++b) {
        uint32_t v = (pres_bits >> (8 * b)) & 0xff;
        for (auto& a : alts) a[pres_field[b]] = Cons{v, v};
      }
      if (total + alts.size() > kMaxAclRules) {
        why = "more than " + std::to_string(kMaxAclRules) + " ACL rules after expansion";
        return nullptr;
      }
      for (const auto& a : alts) {
        size_t at = acl_rules.size();
        acl_rules.resize(at + rule_sz);
        auto* ar = reinterpret_cast<rte_acl_rule*>(acl_rules.data() + at);
        ar->data.category_mask = 1u << k;
        ar->data.priority = static_cast<int32_t>(max_count - i);
        ar->data.userdata = i + 1;
        for (unsigned j = 0; j < nf; ++j) {
          rte_acl_field& fl = ar->field[j];
          switch (fields[j].size) {
            case 1:
              fl.value.u8 = static_cast<uint8_t>(a[j].a);
              fl.mask_range.u8 = static_cast<uint8_t>(a[j].b);
              break;
            case 2:
              fl.value.u16 = static_cast<uint16_t>(a[j].a);
              fl.mask_range.u16 = static_cast<uint16_t>(a[j].b);
              break;
            default:
              fl.value.u32 = a[j].a;
              fl.mask_range.u32 = a[j].b;
              break;
          }
        }
        ++total;
      }
    }
  }
  c->acl_rules_ = total;
  if (max_count >= static_cast<uint32_t>(RTE_ACL_MAX_PRIORITY)) {
    why = "too many rules for rte_acl priorities";
    return nullptr;
  }
  if (total == 0) return c;  // nothing can match: answers -1 without a context
  if (cancelled()) {
    why = "cancelled";
    return nullptr;
  }

  // 4. rte_acl context.
  char name[RTE_ACL_NAMESIZE];
  std::snprintf(name, sizeof name, "obi%d_%u", static_cast<int>(getpid()), g_ctx_serial.fetch_add(1));
  rte_acl_param prm{};
  prm.name = name;
  prm.socket_id = SOCKET_ID_ANY;
  prm.rule_size = static_cast<uint32_t>(rule_sz);
  prm.max_rule_num = total;
  c->ctx_ = rte_acl_create(&prm);
  if (!c->ctx_) {
    why = std::string("rte_acl_create failed: ") + rte_strerror(rte_errno);
    return nullptr;
  }
  int rc = rte_acl_add_rules(c->ctx_, reinterpret_cast<const rte_acl_rule*>(acl_rules.data()), total);
  if (rc != 0) {
    why = std::string("rte_acl_add_rules failed: ") + rte_strerror(-rc);
    return nullptr;
  }
  acl_rules.clear();
  acl_rules.shrink_to_fit();
  rte_acl_config cfg{};
  cfg.num_categories = c->categories_;
  cfg.num_fields = nf;
  for (unsigned j = 0; j < nf; ++j) {
    cfg.defs[j].type = fields[j].type;
    cfg.defs[j].size = fields[j].size;
    cfg.defs[j].field_index = static_cast<uint8_t>(j);
    cfg.defs[j].input_index = fields[j].input;
    cfg.defs[j].offset = fields[j].offset;
  }
  cfg.max_size = 0;
  if (cancelled()) {
    why = "cancelled";
    return nullptr;
  }
  rc = rte_acl_build(c->ctx_, &cfg);
  if (rc != 0) {
    why = std::string("rte_acl_build failed: ") + rte_strerror(-rc);
    return nullptr;
  }
  rte_acl_reset_rules(c->ctx_);  // the built tries are all lookups need
  return c;
}

AclClassifier::~AclClassifier() {
  if (ctx_) rte_acl_free(ctx_);
}

namespace {

inline void store_part(uint8_t* at, unsigned size, uint32_t v) {
  switch (size) {
    case 1: at[0] = static_cast<uint8_t>(v); break;
    case 2: {
      uint16_t x = __builtin_bswap16(static_cast<uint16_t>(v));
      std::memcpy(at, &x, 2);
      break;
    }
    default: {
      uint32_t x = __builtin_bswap32(v);
      std::memcpy(at, &x, 4);
      break;
    }
  }
}

}  // namespace

uint32_t AclClassifier::build_key(Packet& p, uint8_t* key) const {
  for (unsigned o = 0; o < stride_; o += 16) std::memset(key + o, 0, 16);  // fixed-size stores, no call
  const Headers& h = p.headers();
  uint32_t layers = 0;
  if (p.len >= 14) {
    if (track_etype4_ && h.eth_type == kEthIpv4) {
      layers |= 1u << P_ETYPE4;
      if (etype4_byte_ >= 0) key[etype4_byte_] |= etype4_bit_;
    }
    if (track_etype6_ && h.eth_type == kEthIpv6) {
      layers |= 1u << P_ETYPE6;
      if (etype6_byte_ >= 0) key[etype6_byte_] |= etype6_bit_;
    }
  }
  const bool ip = (h.eth_type == kEthIpv4 || h.eth_type == kEthIpv6) && h.l3 != kNoOffset;
  const bool v4 = h.eth_type == kEthIpv4 && h.l3 != kNoOffset && h.l3 + 20u <= p.len;
  const bool l4 = ip && h.l4 != kNoOffset && h.l4 + 4u <= p.len;
  static constexpr uint8_t kL4Proto[3] = {kIpProtoTcp, kIpProtoUdp, kIpProtoSctp};
  for (const Extract& e : extracts_) {
    switch (e.kind) {
      case kProto:
        if (!ip) continue;
        key[e.part_off[0]] = h.ip_proto;
        layers |= 1u << e.cls;
        key[e.presence_byte] |= e.presence_bit;
        continue;
      case kV4:
        if (!v4) continue;
        std::memcpy(key + e.part_off[0], p.data + h.l3 + e.arg, 4);
        layers |= 1u << e.cls;
        key[e.presence_byte] |= e.presence_bit;
        continue;
      case kL4Pair:
        if (!l4 || h.ip_proto != kL4Proto[e.arg >> 2]) continue;
        std::memcpy(key + e.part_off[0], p.data + h.l4, 4);
        layers |= 1u << e.cls;
        key[e.presence_byte] |= e.presence_bit;
        continue;
      case kL4:
        if (!l4 || h.ip_proto != kL4Proto[e.arg >> 2]) continue;
        std::memcpy(key + e.part_off[0], p.data + h.l4 + (e.arg & 3), 2);
        layers |= 1u << e.cls;
        key[e.presence_byte] |= e.presence_bit;
        continue;
      default: break;
    }
    u128 v;
    if (!extract_field(p, e.field, v)) continue;
    layers |= 1u << e.cls;
    key[e.presence_byte] |= e.presence_bit;
    unsigned shift = 0;
    for (int j = e.nparts - 1; j >= 0; --j) {
      store_part(key + e.part_off[j], e.part_size[j], static_cast<uint32_t>(v >> shift));
      shift += e.part_size[j] * 8u;
    }
  }
  return layers;
}

uint32_t AclClassifier::build_key_5tuple(Packet& p, uint8_t* key) const {
  for (unsigned o = 0; o < stride_; o += 16) std::memset(key + o, 0, 16);  // fixed-size stores, no call
  const Headers& h = p.headers();
  uint32_t layers = 0;
  if (p.len >= 14) layers |= h.eth_type == kEthIpv4 ? 1u << P_ETYPE4 : h.eth_type == kEthIpv6 ? 1u << P_ETYPE6 : 0;
  if ((h.eth_type != kEthIpv4 && h.eth_type != kEthIpv6) || h.l3 == kNoOffset) return layers;
  layers |= 1u << P_IP;
  if (proto_off_ >= 0) key[proto_off_] = h.ip_proto;
  if (const auto ip = hdr::ipv4(p, h)) {
    layers |= 1u << P_IPV4;
    if (v4_off_[0] >= 0) std::memcpy(key + v4_off_[0], ip.src_bytes(), 4);  // network order, as the ACL wants
    if (v4_off_[1] >= 0) std::memcpy(key + v4_off_[1], ip.dst_bytes(), 4);
  }
  if (h.l4 != kNoOffset && h.l4 + 4u <= p.len) {  // the two ports of TCP, UDP and SCTP
    const int l4 = h.ip_proto == kIpProtoTcp ? 0 : h.ip_proto == kIpProtoUdp ? 1 : h.ip_proto == kIpProtoSctp ? 2 : -1;
    if (l4 >= 0) {
      layers |= 1u << (P_TCP + l4);
      if (ports_off_[l4] >= 0) std::memcpy(key + ports_off_[l4], p.data + h.l4, 4);
    }
  }
  return layers;
}

std::unique_ptr<FlowCache> AclClassifier::make_cache(uint32_t entries) const {
  if (!ctx_) return nullptr;
  return std::make_unique<FlowCache>(stride_, sets_, entries);
}

void AclClassifier::classify_batch(Packet* const* pkts, uint32_t n, int32_t* out, FlowCache* cache) const {
  if (!ctx_) {
    for (uint32_t i = 0; i < n * sets_; ++i) out[i] = -1;
    return;
  }
  alignas(64) uint8_t keys[kBatchSize * kMaxKeyBytes];
  const uint8_t* data[kBatchSize];
  uint32_t res[kBatchSize * kMaxSets];
  uint32_t layers[kBatchSize];
  auto answer = [&](uint32_t i, const uint32_t* r) {  // gate the ACL's results by the sets' layers
    for (unsigned k = 0; k < sets_; ++k)
      out[i * sets_ + k] = (layers[i] & set_require_[k]) == set_require_[k] ? static_cast<int32_t>(r[k]) - 1 : -1;
  };
  if (cache && cache->active(n)) {
    for (uint32_t i = 0; i < n; ++i) cache->prefetch(pkts[i]->flow_hash);
    for (uint32_t i = 0; i < n; ++i)
      layers[i] =
          five_tuple_ ? build_key_5tuple(*pkts[i], keys + i * stride_) : build_key(*pkts[i], keys + i * stride_);
    // The answer is a function of the key and of the layer bits the sets require: both
    // together are the cache's key.
    uint32_t miss[kBatchSize], m = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* key = keys + i * stride_;
      if (const int32_t* r = cache->find(pkts[i]->flow_hash, key, layers[i] & require_union_)) {
        for (unsigned k = 0; k < sets_; ++k) out[i * sets_ + k] = r[k];
      } else {
        miss[m] = i;
        data[m++] = key;
      }
    }
    if (m) {
      rte_acl_classify(ctx_, data, res, m, categories_);
      for (uint32_t j = 0; j < m; ++j) {
        const uint32_t i = miss[j];
        answer(i, res + j * categories_);
        cache->insert(pkts[i]->flow_hash, keys + i * stride_, layers[i] & require_union_, out + i * sets_);
      }
    }
    cache->account(n - m, m);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* key = keys + i * stride_;
    layers[i] = five_tuple_ ? build_key_5tuple(*pkts[i], key) : build_key(*pkts[i], key);
    data[i] = key;
  }
  rte_acl_classify(ctx_, data, res, n, categories_);
  for (uint32_t i = 0; i < n; ++i) answer(i, res + i * categories_);
}

}  // namespace obi::blocks
