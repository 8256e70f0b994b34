// libFuzzer target: the OBI's message decoder on arbitrary bytes, as the REST server runs
// it (parse_json_body, decode_json of the tree it hands over) plus decode() and
// salvage_xid(). A decoded message must encode and decode again to the same JSON, and
// decoding a tree the decoder owns must give what decoding a tree it only reads gives.
// Anything but a ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/messages)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)openbox::salvage_xid(body);
  json tree;
  try {
    tree = openbox::parse_json_body(body);
  } catch (const openbox::ProtocolError&) {
    return 0;
  }
  // The decoder reading a tree it owns (moving strings and configs out of it) and one it
  // only reads must agree: the same message, or the same error.
  std::optional<json> kept;
  std::string kept_error;
  try {
    kept = openbox::encode(openbox::decode_json(static_cast<const json&>(tree)));
  } catch (const openbox::ProtocolError& e) {
    kept_error = std::string(openbox::to_string(e.subtype())) + e.what();
  }
  try {
    openbox::Message m = openbox::decode_json(std::move(tree));
    json out = openbox::encode(m);
    if (!kept || *kept != out) std::abort();
    json again = openbox::encode(openbox::decode(out.dump()));
    if (again != out) std::abort();  // a valid message must round-trip
  } catch (const openbox::ProtocolError& e) {
    if (kept || kept_error != std::string(openbox::to_string(e.subtype())) + e.what()) std::abort();
  }
  try {
    (void)openbox::decode(body);
  } catch (const openbox::ProtocolError&) {}
  return 0;
}
