// SessionClassifier (spec 5.28): classifies packets by the values their flow's session
// holds (written by SessionStore on the same worker, either direction of the flow).
//
// Ports: 1 input; output 0 for packets that match no rule (or have no session), output
// i+1 for the first rule i that matches.
// Config:
//   match: array of rules (optional; none: everything leaves on output 0). A rule maps
//          session keys to conditions, all of which must hold:
//            "K": {"is_field": true, "value": "IPV4_DST"}   stored value == packet field
//                                                           (masked with the stored mask)
//            "K": {"is_field": false, "value": "10.0.0.0%255.0.0.0"}   a constant: an
//                 integer, MAC, IPv4 or IPv6 value, masked with '%', a range or a list
//                 (spec 5.7 value grammar)
//            "K": "80"                                      shorthand for is_field false
//          A rule may also be one condition written as a record (the form the Java API
//          writes): {"key": "K", "is_field": true, "value": "IPV4_DST"}; an object of
//          exactly the members key (a string), value and optionally is_field is read so.
//          A key the session does not hold fails the rule.
// Config keys, handles and port counts: blocks/catalogue/SessionClassifier.json.
// Example (after SessionStore {"IPV4_SRC": "client"}):
//   {"match": [{"client": {"is_field": true, "value": "IPV4_DST"}},
//              {"client": {"is_field": false, "value": "10.0.0.0%255.0.0.0"}}]}
//   output 1: replies to the client that opened the session; output 2: clients in 10/8.
#pragma once

#include <vector>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/output_stats.hh"
#include "lib/session_storage.hh"

namespace obi::blocks {

class SessionClassifierElement final : public Element {
 public:
  explicit SessionClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override {
    return static_cast<uint16_t>(spec::SessionClassifier::kOutputs.ports(rules_.size()));
  }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Cond {
    uint16_t key = 0;
    bool is_field = false;
    openbox::MatchField field{};   // is_field
    openbox::FieldMatch constant;  // !is_field
  };
  struct Rule {
    std::vector<Cond> conds;
  };

  uint16_t classify(Packet& p, const SessionValues& s) const;

  std::vector<Rule> rules_;
  SessionStorage& storage_;
  OutputStats stats_;
};

}  // namespace obi::blocks
