// Header-match lists in block configs: parse each rule with the protocol's parser and
// re-throw its error (BAD_HEADER_MATCH) prefixed with the block, config field and rule.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "openbox/header_match.hh"

namespace obi::blocks {

// One rule; `where` is e.g. "block 'fw' (HeaderClassifier), config 'match' rule 3".
openbox::HeaderMatch parse_rule(const nlohmann::json& rule, const std::string& where);

}  // namespace obi::blocks
