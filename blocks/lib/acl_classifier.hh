// AclClassifier: first-match classification of several header rule sets at once with
// DPDK's rte_acl (multi-bit tries walked for a whole batch with SIMD).
//
// Rule set k becomes rte_acl category k; rule i of a set gets priority (max - i) so the
// first rule wins, and userdata i + 1 (0 = no match). Per packet a key is built from the
// parsed headers:
//   * one slot per field in network byte order; absent fields are zero, so a rule whose
//     values exclude zero cannot match a packet lacking the field; mutually exclusive
//     fields share a slot (TCP/UDP/SCTP ports, ICMPv4/ICMPv6 type and code);
//   * presence bytes, only where needed: one bit per "layer" (IPv4 header, TCP header,
//     ARP body, ...) that a rule requires with a BITMASK field because its values accept
//     zero or its shared slot is ambiguous. ETH_TYPE = 0x0800 / 0x86dd alone is a layer
//     too. Layers that every rule of a set requires are checked per set outside the
//     ACL, which keeps the key of a 5-tuple firewall as short as DPDK's 5-tuple layout;
//   * fields over 32 bits are cut into 4-byte (and one 2-byte) ACL fields; input group 0
//     is one byte (presence byte 0, else a byte-wide field), then 4-byte groups: small
//     fields packed (gaps padded with wildcard bytes, as every byte of a group must
//     belong to a field), then the 4-byte parts, byte-wide groups first (much smaller
//     tries on ClassBench sets).
// Value forms: prefixes -> MASK, other masks -> BITMASK; ranges -> RANGE (masks on such a
// field become one or a few ranges); on fields over 32 bits ranges become prefixes.
// Multi-term values and such splits expand one rule into several ACL rules with the same
// priority and userdata, within bounds. What cannot be expressed makes build() fail
// with a reason, and the caller keeps its bit-vector classifier.
//
// A FlowCache (lib/flow_cache.hh) may stand in front of the lookup: make_cache() gives
// one keyed by this classifier's key and layer bits; classify_batch() with it answers
// repeated flows from the cache and looks up only the rest, in one rte_acl call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/fields.hh"

struct rte_acl_ctx;

namespace obi::blocks {

class FlowCache;

class AclClassifier {
 public:
  static constexpr unsigned kMaxSets = 16;
  static constexpr unsigned kMaxKeyBytes = 256;
  static constexpr uint32_t kMaxExpansionPerRule = 1024;
  static constexpr uint32_t kMaxAclRules = 200000;

  // The rules of set k are rules[k][0 .. counts[k]). Needs an initialised EAL. Returns
  // null with `why` set when the sets cannot be expressed or rte_acl fails; `cancel`
  // (may be null) is polled between steps.
  using RuleAt = const openbox::HeaderMatch& (*)(const void* ctx, unsigned set, uint32_t i);
  static std::unique_ptr<AclClassifier> build(unsigned sets, const std::vector<uint32_t>& counts, RuleAt rule,
                                              const void* ctx, std::string& why,
                                              const std::atomic<bool>* cancel = nullptr);
  ~AclClassifier();
  AclClassifier(const AclClassifier&) = delete;
  AclClassifier& operator=(const AclClassifier&) = delete;

  // out[i * set_count() + k] = first rule of set k matching packet i, or -1 (n <= kBatchSize).
  // With a cache (one worker's, from make_cache() of this object): hits come from it,
  // misses are looked up and stored.
  void classify_batch(Packet* const* pkts, uint32_t n, int32_t* out, FlowCache* cache = nullptr) const;

  // A cache for one worker with `entries` entries; null when nothing can match (no ACL
  // context: every answer is -1 without a lookup).
  std::unique_ptr<FlowCache> make_cache(uint32_t entries) const;

  unsigned set_count() const { return sets_; }
  uint32_t acl_rules() const { return acl_rules_; }
  unsigned key_bytes() const { return key_len_; }
  unsigned acl_fields() const { return nfields_; }

 private:
  AclClassifier() = default;

  // One field the key builder extracts: where its value goes and which presence bit.
  struct Extract {
    MatchField field;
    uint8_t kind;                         // Kind: how the key builder reads it
    uint8_t arg;                          // kProto/kL4: protocol; kV4/kL4: offset in the header
    uint8_t cls;                          // its layer (bit of the packet's presence mask)
    uint8_t presence_byte, presence_bit;  // key bit when some rule needs it, else bit 0
    uint8_t nparts;
    uint8_t part_off[4];   // key offset of each part (most significant first)
    uint8_t part_size[4];  // bytes of each part
  };
  enum Kind : uint8_t { kGeneric, kProto, kV4, kL4, kL4Pair };  // kL4Pair: both ports, adjacent in the key
  // Presence bits that are not "field extracts": ETH_TYPE is IPv4 / IPv6.
  int etype4_byte_ = -1, etype6_byte_ = -1;
  uint8_t etype4_bit_ = 0, etype6_bit_ = 0;

  // Fills the key; returns the packet's layers (presence mask).
  uint32_t build_key(Packet& p, uint8_t* key) const;

  // The 5-tuple only (IP_PROTO, IPv4 addresses, port pairs) and no presence bytes: a key
  // builder without the per-field loop.
  uint32_t build_key_5tuple(Packet& p, uint8_t* key) const;
  bool five_tuple_ = false;
  int proto_off_ = -1, v4_off_[2] = {-1, -1}, ports_off_[3] = {-1, -1, -1};  // ports: TCP, UDP, SCTP

  uint32_t set_require_[kMaxSets] = {};  // layers every rule of the set needs (checked outside)
  uint32_t require_union_ = 0;           // all of them: with the key, what decides the answer
  bool any_require_ = false;
  bool track_etype4_ = false, track_etype6_ = false;

  rte_acl_ctx* ctx_ = nullptr;
  unsigned sets_ = 0, categories_ = 1;
  unsigned key_len_ = 0, stride_ = 0, nfields_ = 0;
  uint32_t acl_rules_ = 0;
  std::vector<Extract> extracts_;
};

}  // namespace obi::blocks
