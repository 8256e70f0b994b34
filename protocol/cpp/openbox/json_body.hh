// One-pass parse of an untrusted JSON body into a tree, with the nesting bound of the codec
// (kMaxJsonDepth) enforced while it parses instead of by a separate scan first:
//
//   nlohmann::json body = openbox::parse_json_body(req.body);   // throws openbox::ProtocolError
//
// The tree is the one nlohmann::json::parse builds (same values, same duplicate-key rule:
// the last wins). nlohmann's parser is iterative and the builder keeps its own stack of at
// most `max_depth` containers, so no step recurses on the input; the tree it returns is
// at most `max_depth` deep, so neither do its destructor and visitors.
//
// Errors (ILLEGAL_ARGUMENT), the same answers as check_json_depth followed by parse:
//   "body nests arrays/objects deeper than 64 levels"   nesting over max_depth (checked first,
//                                                        also when the body is invalid JSON)
//   "body is not valid JSON"                             anything nlohmann's parser refuses,
//                                                        and a body holding a NUL byte (which
//                                                        nlohmann's lexer would take for the end)
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "openbox/messages.hh"

namespace openbox {

nlohmann::json parse_json_body(std::string_view body, std::size_t max_depth = kMaxJsonDepth);

}  // namespace openbox
