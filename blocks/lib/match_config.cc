#include "lib/match_config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;

openbox::HeaderMatch parse_rule(const nlohmann::json& rule, const Where& where) {
  Where w{ErrorSubtype::BAD_HEADER_MATCH, where.block, where.field};
  if (!rule.is_object()) w.expected("a header match object", rule);
  try {
    return openbox::parse_header_match(rule);
  } catch (const openbox::ProtocolError& e) {
    // A rule is read once; only a refused one is read again, field by field, so that the
    // error names the field it is about (the whole rule when each field alone is valid).
    for (const auto& [key, value] : rule.items()) {
      try {
        openbox::parse_field_value(key, value);
      } catch (const openbox::ProtocolError& fe) {
        Where{fe.subtype(), w.block, w.key(key).field}.fail(fe.what());
      }
    }
    Where{e.subtype(), w.block, w.field}.fail(e.what());
  }
}

}  // namespace obi::blocks
