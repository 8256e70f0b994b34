// One-pass parse of an untrusted JSON body into a tree, with the nesting bound of the codec
// (kMaxJsonDepth) enforced while it parses instead of by a separate scan first:
//
//   nlohmann::json body = openbox::parse_json_body(req.body);   // throws openbox::ProtocolError
//
// The tree is the one nlohmann::json::parse builds (same values, same number kinds, same
// duplicate-key rule: the last wins). simdjson (libsimdjson-dev) finds the structure and
// the values (a 3.1 MB graph request is parsed and decoded in 0.8 of the time nlohmann's
// parser alone takes); a tree builder takes them in document order with its own stack of
// at most `max_depth` containers. Any body simdjson refuses, or that it would read
// differently (a NUL byte, the number -0), goes to the reference: nlohmann's SAX parser
// feeding the same builder. Neither parser recurses on the input; the tree returned is at
// most `max_depth` deep, so neither do its destructor and visitors.
//
// Errors (ILLEGAL_ARGUMENT), the same answers as check_json_depth followed by parse:
//   "body nests arrays/objects deeper than 64 levels"   nesting over max_depth (checked first,
//                                                        also when the body is invalid JSON)
//   "body is not valid JSON"                             anything nlohmann's parser refuses,
//                                                        and a body holding a NUL byte (which
//                                                        nlohmann's lexer would take for the end)
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "openbox/messages.hh"

namespace openbox {

nlohmann::json parse_json_body(std::string_view body, std::size_t max_depth = kMaxJsonDepth);

// The two paths of parse_json_body. The fast one returns false, leaving `out` alone, for
// every body it does not answer; the reference gives every error. Tests and the fuzz
// target hold the two to the same trees (same_json).
bool parse_json_body_fast(std::string_view body, std::size_t max_depth, nlohmann::json& out);
nlohmann::json parse_json_body_reference(std::string_view body, std::size_t max_depth = kMaxJsonDepth);

// The common case of the largest message, without the tree of its body: a
// SetProcessingGraphRequest whose objects hold no key twice and no field the codec
// ignores, at every level above the block configurations, which decode_json would accept.
// Its blocks and connectors are read straight from simdjson's parse into `out`; only the
// block configurations become trees (for a merged graph, mostly a few nodes per Alert
// block, where the whole tree had some twenty per block and connector). Any other body
// returns false, leaving `out` alone, for parse_json_body + decode_json to answer. The
// message is the one decode_json gives (tests and fuzz_decode hold the two to it).
bool decode_graph_request_fast(std::string_view body, std::optional<MessageType> expected, std::size_t max_depth,
                               SetProcessingGraphRequest& out);

// Equal trees whose numbers are also of the same kinds (nlohmann's == takes 0u == 0).
bool same_json(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace openbox
