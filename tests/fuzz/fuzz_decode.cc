// libFuzzer target: the OBI's message decoder on arbitrary bytes: decode(), as the REST
// server runs it (a graph request in the controllers' form read without a tree of the
// whole body), against the two steps it stands for (parse_json_body, decode_json of the
// tree it hands over), plus salvage_xid(). Both must give the same message (to the number
// kinds, and the match lists kept in Block::match) or the same error; a decoded message
// must encode and decode again to the same JSON, and decoding a tree the decoder owns must
// give what decoding a tree it only reads gives. Anything but a ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/messages)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

namespace {

// A decoded message as JSON, with what Block::match kept per block (not on the wire).
nlohmann::json with_matches(const openbox::Message& m) {
  nlohmann::json out = openbox::encode(m);
  if (auto* g = std::get_if<openbox::SetProcessingGraphRequest>(&m)) {
    nlohmann::json kept = nlohmann::json::array();
    for (const openbox::Block& b : g->blocks) kept.push_back(b.match ? static_cast<long>(b.match->size()) : -1);
    out["kept_matches"] = std::move(kept);
  }
  return out;
}

std::string error_of(const openbox::ProtocolError& e) {
  return std::string(openbox::to_string(e.subtype())) + e.what();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)openbox::salvage_xid(body);
  // decode() as the REST server runs it.
  std::optional<json> direct;
  std::string direct_error;
  try {
    direct = with_matches(openbox::decode(body));
  } catch (const openbox::ProtocolError& e) {
    direct_error = error_of(e);
  }
  json tree;
  try {
    tree = openbox::parse_json_body(body);
  } catch (const openbox::ProtocolError& e) {
    if (direct || direct_error != error_of(e)) std::abort();
    return 0;
  }
  // The decoder reading a tree it owns (moving strings and configs out of it) and one it
  // only reads must agree: the same message, or the same error.
  std::optional<json> kept;
  std::string kept_error;
  try {
    kept = openbox::encode(openbox::decode_json(static_cast<const json&>(tree)));
  } catch (const openbox::ProtocolError& e) {
    kept_error = error_of(e);
  }
  try {
    openbox::Message m = openbox::decode_json(std::move(tree));
    json out = openbox::encode(m);
    if (!kept || *kept != out) std::abort();
    if (!direct || !openbox::same_json(*direct, with_matches(m))) std::abort();
    json again = openbox::encode(openbox::decode(out.dump()));
    if (again != out) std::abort();  // a valid message must round-trip
  } catch (const openbox::ProtocolError& e) {
    if (kept || kept_error != error_of(e) || direct || direct_error != kept_error) std::abort();
  }
  return 0;
}
