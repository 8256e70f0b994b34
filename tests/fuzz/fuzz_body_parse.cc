// libFuzzer target: the one-pass, depth-bounded body parse the REST server runs
// (openbox::parse_json_body, and its simdjson path alone) against the two steps it stands
// for: the depth scan (check_json_depth) and then nlohmann's parser. Both must accept the
// same bodies with the same tree (same number kinds too) and refuse the others with the
// same Error subtype and text; anything but a ProtocolError from either is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: protocol/vectors/messages)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

namespace {

struct Outcome {
  bool ok = false;
  nlohmann::json tree;
  openbox::ErrorSubtype subtype = openbox::ErrorSubtype::INTERNAL_ERROR;
  std::string message;
};

template <typename F>
Outcome run(F parse) {
  Outcome o;
  try {
    o.tree = parse();
    o.ok = true;
  } catch (const openbox::ProtocolError& e) {
    o.subtype = e.subtype();
    o.message = e.what();
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const Outcome one = run([&] { return openbox::parse_json_body(body); });
  const Outcome two = run([&] {
    openbox::check_json_depth(body);
    if (body.find('\0') != std::string_view::npos)  // nlohmann would stop reading there
      throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "body is not valid JSON");
    json t = json::parse(body.begin(), body.end(), nullptr, false);
    if (t.is_discarded())
      throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "body is not valid JSON");
    return t;
  });
  if (one.ok != two.ok) std::abort();
  if (one.ok && !openbox::same_json(one.tree, two.tree)) std::abort();
  // the fast path (simdjson) answers only what the reference accepts, with the same tree
  json fast;
  if (openbox::parse_json_body_fast(body, openbox::kMaxJsonDepth, fast) &&
      (!two.ok || !openbox::same_json(fast, two.tree)))
    std::abort();
  if (!one.ok && (one.subtype != two.subtype || one.message != two.message)) std::abort();
  // A small bound as well: every nesting level is a chance to stop mid-container.
  try {
    json t = openbox::parse_json_body(body, 3);
    if (!one.ok || openbox::json_depth(body, SIZE_MAX) > 3) std::abort();
  } catch (const openbox::ProtocolError&) {}
  return 0;
}
