// InputSpec: one INPUTSPEC of Ipv4AddressTranslator (spec 5.13), parsed.
//
//   discard                                  drop packets without a mapping
//   pass OUT                                 send them to OUT, install nothing
//   keep FOUT ROUT                           map the flow to itself (FOUT) and its reply (ROUT)
//   pattern SADDR SPORT DADDR DPORT FOUT ROUT
//       rewrite to the pattern; '-' keeps a field; SPORT may be 'L-H' (a free port of the
//       range, the packet's own preferred), 'L-H#' (sequential) or 'L-H?' (random).
// "drop" is accepted for "discard" and "nochange" for "pass".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace obi::blocks {

struct InputSpec {
  enum class Kind : uint8_t { kDiscard, kPass, kKeep, kPattern } kind = Kind::kDiscard;
  enum class PortMode : uint8_t { kKeep, kFixed, kRange } sport_mode = PortMode::kKeep;
  enum class Pick : uint8_t { kPreferSource, kSequential, kRandom } pick = Pick::kPreferSource;
  uint16_t fout = 0, rout = 0;  // pass uses fout
  bool set_saddr = false, set_daddr = false, set_dport = false;
  uint32_t saddr = 0, daddr = 0;
  uint16_t dport = 0;
  uint16_t sport_lo = 0, sport_hi = 0;  // kFixed: lo == hi

  uint16_t max_output() const;
};

// Parses `text`; on error returns false and sets `error` to what is wrong.
bool parse_input_spec(std::string_view text, InputSpec& out, std::string& error);

}  // namespace obi::blocks
