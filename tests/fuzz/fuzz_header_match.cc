// libFuzzer target: the header-match parser. Input "FIELD=VALUE" parses VALUE as a value
// of FIELD (the grammar of protocol/README.md); any other input is parsed as a whole
// header-match object when it is JSON. A parsed value must give its canonical form.
// Anything but a ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/header-match)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "openbox/header_match.hh"
#include "openbox/messages.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  try {
    const size_t eq = in.find('=');
    if (eq != std::string_view::npos && eq < 32) {
      const std::string value(in.substr(eq + 1));
      openbox::FieldMatch m = openbox::parse_field_value(in.substr(0, eq), json(value));
      (void)openbox::to_canonical(m);
    } else if (openbox::json_depth(in) <= openbox::kMaxJsonDepth) {
      json tree = json::parse(in.begin(), in.end(), nullptr, false);
      if (!tree.is_discarded()) (void)openbox::parse_header_match(tree);
    }
  } catch (const openbox::ProtocolError&) {}
  return 0;
}
