// libFuzzer target: the OBI's message decoder on arbitrary bytes, as the REST server runs
// it (parse_json_body, decode_json of the tree it hands over) plus decode() and
// salvage_xid(). A decoded message must encode and decode again to the same JSON. Anything
// but a ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/messages)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)openbox::salvage_xid(body);
  try {
    json tree = openbox::parse_json_body(body);
    openbox::Message m = openbox::decode_json(std::move(tree));
    json out = openbox::encode(m);
    json again = openbox::encode(openbox::decode(out.dump()));
    if (again != out) std::abort();  // a valid message must round-trip
  } catch (const openbox::ProtocolError&) {}
  try {
    (void)openbox::decode(body);
  } catch (const openbox::ProtocolError&) {}
  return 0;
}
