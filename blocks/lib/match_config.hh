// Header-match lists in block configs: parse each rule with the protocol's parser; an
// error (BAD_HEADER_MATCH) names the block, the rule and its match field:
// "block 'fw' (HeaderClassifier): field 'match[3].ipv4_src': IPV4_SRC value \"10.0.0\": bad IPv4 address".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/config.hh"
#include "openbox/header_match.hh"

namespace obi::blocks {

// One rule at `where`, e.g. c.where("match").at(3).
openbox::HeaderMatch parse_rule(const nlohmann::json& rule, const Where& where);

}  // namespace obi::blocks
