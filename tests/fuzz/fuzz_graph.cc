// libFuzzer target: the graph compiler on arbitrary bytes, as a SetProcessingGraphRequest
// reaches it ({"blocks", "connectors"}): depth check, parse, compile_graph with the real
// blocks (header and payload classifiers build their lookups and Hyperscan databases),
// under small limits so one input stays cheap. A graph that compiles is compiled again
// with itself as the previous graph (the swap path: carried elements, take_over, fusion
// plans), and its to_json() must compile as well. Sources are replaced by an element
// that opens nothing, so no input reaches a file or a device. Anything but a
// ProtocolError is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: graphs of protocol/vectors)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "engine/graph.hh"
#include "openbox/messages.hh"

namespace {

class QuietSource final : public obi::Element {
 public:
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  bool poll(obi::Batch&, obi::Context&) override { return false; }
  void push(uint16_t, obi::Batch& batch, obi::Context& ctx, const obi::Outputs&) override { ctx.drop(batch); }
};

obi::CompileOptions options() {
  obi::CompileOptions o;
  o.workers = 2;
  o.limits.max_blocks = 256;
  o.limits.max_depth = 128;
  o.limits.max_rules = 256;
  o.limits.max_patterns = 32;
  o.limits.max_pattern_bytes = 2048;
  o.replace_source = [](const obi::BlockSpec&) -> std::unique_ptr<obi::Element> {
    return std::make_unique<QuietSource>();
  };
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nlohmann::json;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  static const obi::CompileOptions opt = options();
  try {
    openbox::check_json_depth(body);
    json graph = json::parse(body.begin(), body.end(), nullptr, false);
    if (graph.is_discarded()) return 0;
    std::unique_ptr<obi::CompiledGraph> g = obi::compile_graph(graph, opt);
    const json again = g->to_json();
    obi::CompileOptions swap = opt;
    swap.previous = g.get();
    std::unique_ptr<obi::CompiledGraph> next = obi::compile_graph(again, swap);
    if (next->to_json() != again) std::abort();  // a compiled graph gives back what it was given
  } catch (const openbox::ProtocolError&) {}
  return 0;
}
