// HeaderPayloadClassifier (spec 5.43): classifies packets by header fields and payload
// regular expressions together.
//
// Ports: 1 input; one output per rule of `match`. A packet leaves on the output of the
// first rule whose header match holds and all of whose payload patterns match; a packet
// that matches no rule is dropped.
// Config:
//   match: array of Match objects
//     {"type": "HeaderPayloadMatch",                     (optional)
//      "header_match": {field: value, ...},              (spec 5.7 grammar; {} = any)
//      "payload_match": [{"type": "PayloadPattern", "pattern": "...",
//                         "is_regex": true, "from": 0, "to": 100}, ...]}
//     is_regex false: the pattern is a literal string. from/to bound the start offset
//     of the match within the scanned bytes (inclusive).
//   payload_only: bool, default true (extension): scan the payload after the network
//     layers; false scans the whole frame.
//   prefilter: bool, default true (extension): the two-stage scan below; false puts
//     every pattern in the first stage (one scan per packet, for comparison).
// Config keys, handles and port counts: blocks/catalogue/HeaderPayloadClassifier.json.
// Example (an IPS rule, then allow all other web traffic):
//   {"match": [
//     {"header_match": {"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": 80},
//      "payload_match": [{"pattern": "/etc/passwd", "is_regex": false}, {"pattern": "(?i)user-agent: evil"}]},
//     {"header_match": {"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": 80}, "payload_match": []}]}
//
// How it runs: a rule's payload patterns are split into a first stage (its pure
// literals of 4 bytes or more; else its literals; else all its patterns) and a second
// stage (its other patterns). All first-stage patterns of the block (deduplicated) are ONE Hyperscan
// database, scanned once per packet, and only when some rule with payload patterns has
// a matching header. Rules all of whose first-stage patterns were reported are the
// candidates (pattern -> rules index with per-packet hit counts); their headers are
// checked exactly in priority order, and only when a candidate also has second-stage
// expressions is the packet scanned once more, against the one database of all of them.
// Expensive expressions thus run only on the few packets that already carry all of a
// rule's literals (the prefilter scheme of signature IDSs). Rules without payload
// patterns are classified by a compiled RuleClassifier. Per-worker scratch and stamps:
// no allocation per packet.
//
// Fusion target (engine/fusion.hh): the block's header lookups are two rule sets, A =
// the headers of its rules without payload patterns (first match: the best plain rule),
// B = the headers of its rules with payload patterns (any match: a payload scan is
// needed). A HeaderClassifier upstream that fuses this block answers both in its own
// lookup; the payload is still scanned here, once, and only when B matched. Packets that
// arrive without those results are classified in full here.
#pragma once

#include <memory>
#include <vector>

#include "engine/element.hh"
#include "engine/fusion.hh"
#include "lib/block_spec.hh"
#include "lib/hs_database.hh"
#include "lib/output_stats.hh"
#include "lib/rule_classifier.hh"

namespace obi::blocks {

class HeaderPayloadClassifierElement final : public Element, public HeaderLookups {
 public:
  explicit HeaderPayloadClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override {
    return static_cast<uint16_t>(spec::HeaderPayloadClassifier::kOutputs.ports(rules_.size()));
  }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  HeaderLookups* header_lookups() override { return this; }
  std::vector<openbox::SharedHeaderMatches> header_sets() const override;

 private:
  struct Rule {
    openbox::HeaderMatch header;
    std::vector<uint32_t> first;  // first-stage pattern ids (empty: no payload patterns)
    std::vector<uint32_t> rest;   // second-stage pattern ids
  };
  struct Pattern {
    uint64_t from = 0, to = UINT64_MAX;
    bool bounded = false;
    bool in_main = false;  // in the first-stage database (else in the second)
  };
  struct Scratch {  // one per worker
    std::vector<uint32_t> pattern_gen, rule_gen, rule_hits;
    std::vector<uint32_t> matched, candidates;
    uint32_t gen = 0;
    Counter scans, second_scans;
  };

  // pre: the first matches of sets A and B when an upstream lookup brought them, else nullptr.
  int32_t classify(Packet& p, Scratch& s, unsigned worker, const int32_t* pre) const;
  template <typename Db>
  void scan(const Db& db, const std::vector<uint32_t>& ids, const uint8_t* data, uint32_t len, Scratch& s,
            unsigned worker, bool collect) const;

  std::vector<Rule> rules_;
  std::vector<Pattern> patterns_;
  std::vector<std::vector<uint32_t>> rules_of_first_;  // pattern id -> rules with it in the first stage
  std::vector<uint32_t> main_ids_, rest_ids_;          // database id -> pattern id
  std::vector<uint32_t> plain_index_;                  // plain_ rule i -> block rule index
  RuleClassifier plain_;                               // rules without payload patterns
  RuleClassifier payload_gate_;                        // headers of the rules with payload patterns
  std::unique_ptr<HsDatabase> main_db_, rest_db_;
  bool payload_only_ = true;
  OutputStats stats_;
  PerWorker<Scratch> scratch_;
};

}  // namespace obi::blocks
