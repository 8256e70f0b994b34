#include "common/match_config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

openbox::HeaderMatch parse_rule(const nlohmann::json& rule, const std::string& where) {
  if (!rule.is_object()) throw ProtocolError(ErrorSubtype::BAD_HEADER_MATCH, where + ": must be an object");
  try {
    return openbox::parse_header_match(rule);
  } catch (const ProtocolError& e) {
    throw ProtocolError(e.subtype(), where + ": " + e.what());
  }
}

}  // namespace obi::blocks
