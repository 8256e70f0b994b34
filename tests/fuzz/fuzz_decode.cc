// libFuzzer target: the OBI's message decoder on arbitrary bytes, as the REST server runs
// it (depth check, parse, decode_json) plus decode() and salvage_xid(). A decoded message
// must encode and decode again to the same JSON. Anything but a ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/messages)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "openbox/messages.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)openbox::salvage_xid(body);
  try {
    openbox::check_json_depth(body);
    json tree = json::parse(body.begin(), body.end(), nullptr, false);
    if (tree.is_discarded()) return 0;
    openbox::Message m = openbox::decode_json(tree);
    json out = openbox::encode(m);
    json again = openbox::encode(openbox::decode(out.dump()));
    if (again != out) std::abort();   // a valid message must round-trip
  } catch (const openbox::ProtocolError&) {
  }
  try {
    (void)openbox::decode(body);
  } catch (const openbox::ProtocolError&) {
  }
  return 0;
}
