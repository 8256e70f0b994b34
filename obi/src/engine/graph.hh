// CompiledGraph: a validated processing graph turned into wired elements.
//
// compile_graph() checks a graph (GraphSpec: from a graph file's {"blocks", "connectors"}
// JSON, or from a decoded SetProcessingGraphRequest) against the block catalogue and the
// registered factories and builds every element; any problem throws
// openbox::ProtocolError with the spec's subtype and a message naming the block or
// connector:
//   UNSUPPORTED_BLOCK  type not in the catalogue or not built into this OBI
//   BAD_BLOCK          malformed block, duplicate name, config rejected by the catalogue
//                      or the block (BAD_HEADER_MATCH / BAD_PAYLOAD_MATCH from matches)
//   BAD_CONNECTOR      unknown block, port out of range, output connected twice
//   BAD_GRAPH          malformed graph, cycle, no source block, over a cap of GraphLimits
//                      (BAD_BLOCK for a classifier's rules, BAD_PAYLOAD_MATCH for patterns)
// Elements whose (name, type, config) equal one of `previous` are shared with it rather
// than rebuilt, so their counters and state survive a swap; one rebuilt under the same name
// and type is offered the element it replaces (Element::take_over).
// Fusion (engine/fusion.hh): after wiring, every block with a `fuse` list gets its plan
// (targets, and which of its outputs reach each target through static blocks only); an
// unknown or unfusable target is BAD_BLOCK. A carried fusing block whose plan differs
// from the one it runs (a target rebuilt or rewired) is rebuilt instead.
// Finally every link that leads to a pass-through static (Alert, Log) is redirected past
// it, carrying it (engine/element.hh, Link), so statics cost no push of their own.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "engine/limits.hh"
#include "openbox/messages.hh"

namespace obi {

// An operator's binding of the device names used in graphs (FromDevice / ToDevice devname)
// to this OBI's real devices: "in" -> "veth3" or "dpdk:0" renames the device, and
// "in" -> "pcap:FILE" reads (FromDevice) or writes (ToDevice) the pcap file FILE instead,
// so the same application graph runs on interfaces in production and on traces in tests.
// "in/rx" binds only the FromDevice side of "in", "in/tx" only the ToDevice side, and take
// precedence over "in": a graph that replies through its input device (a web cache
// answering clients) can read one trace and write its replies to another file.
using DeviceMap = std::map<std::string, std::string>;

// Parses "NAME=TARGET[,NAME=TARGET...]"; throws std::invalid_argument naming the bad item.
DeviceMap parse_device_map(const std::string& text);

struct BlockSpec {
  std::string name, type;
  nlohmann::json config;    // always an object (after device binding)
  nlohmann::json given;     // {"type", "config"} as the graph gave them, when binding changed them; else null
  bool has_config = false;  // the graph gave a "config" (to_json gives it back the same way)
  // A HeaderClassifier's config "match" as the protocol decoder read it (Block::match), or
  // null: the block takes it instead of reading its config's rules again (ElementArgs::match).
  openbox::SharedHeaderMatches match;
};

// A connector as the engine takes it (ports as given: a negative one is reported when
// the graph is wired, as out of range).
struct ConnectorSpec {
  std::string src;
  long src_port = 0;
  std::string dst;
  long dst_port = 0;
  std::string label() const;  // how errors name it: "connector a[0] -> b[0]"
};

// A graph as the engine takes it: its blocks and connectors in the order given. From a
// graph file's JSON (graph_spec) or from a decoded SetProcessingGraphRequest (graph_of).
struct GraphSpec {
  std::vector<BlockSpec> blocks;
  std::vector<ConnectorSpec> connectors;
};

// Hash of block names for maps that are searched with std::string_view too.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct CompiledGraph {
  std::vector<BlockSpec> specs;           // index = node index
  std::vector<ConnectorSpec> connectors;  // as given
  std::vector<std::shared_ptr<Element>> elements;
  std::vector<bool> carried;  // element shared with the previous graph
  std::vector<Node> nodes;
  std::vector<std::vector<Link>> links;  // backing store of nodes[i].outputs
  std::vector<Element*> folded;          // backing store of the links' statics
  std::vector<uint32_t> sources;         // nodes whose element is_source()
  std::vector<uint32_t> tasks;           // nodes whose element has_task()
  std::vector<uint32_t> order;           // every node, upstream before downstream
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> by_name;  // finds string_views too

  // The graph as it was given ({"blocks", "connectors"}), rebuilt on request: the
  // configurations live once, in `specs`. Every connector has both ports (a graph file
  // may leave a 0 out); fields the engine does not read are not kept.
  nlohmann::json to_json() const;

  Element* find(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : elements[it->second].get();
  }
};

struct CompileOptions {
  unsigned workers = 1;
  const CompiledGraph* previous = nullptr;
  // When set, called for every source block (catalogue: no inputs) before its factory; a
  // non-null result replaces the element (obi bench replays preloaded packets there).
  std::function<std::unique_ptr<Element>(const BlockSpec&)> replace_source;
  // Binds the graph's device names to this OBI's devices (see DeviceMap); may be null.
  const DeviceMap* devices = nullptr;
  // Fold pass-through statics into links (tests compare with the plain wiring).
  bool fold_statics = true;
  // Hard caps (engine/limits.hh), checked before any block is built (depth: once wired).
  GraphLimits limits;
  // When set, asked before each block is built; true abandons the compile (BAD_GRAPH).
  std::function<bool()> cancelled;
  // Threads that build the classifiers of the graph (their rule tables) when it has
  // several to build; the calling thread is one of them. 1: everything on the caller.
  unsigned build_threads = 2;
};

// Takes the graph by value: a caller that moves it in (a large merged graph) has its block
// configurations moved into the compiled graph rather than copied.
std::unique_ptr<CompiledGraph> compile_graph(GraphSpec graph, const CompileOptions& options);
// The same for a graph's JSON ({"blocks", "connectors"}): graph_spec, then the above.
std::unique_ptr<CompiledGraph> compile_graph(nlohmann::json graph, const CompileOptions& options);

// A graph's JSON as the engine takes it: its shape (BAD_GRAPH: not an object, no "blocks"
// array, "connectors" not an array; more blocks than the cap) and that of each block
// (BAD_BLOCK: not an object, no name or type) and connector (BAD_CONNECTOR: not an
// object, no src or dst, a port not an integer; a missing port is 0). Strings and
// configurations are moved out of `graph`.
GraphSpec graph_spec(nlohmann::json graph, const GraphLimits& limits);

// The graph of a decoded SetProcessingGraphRequest as the engine takes it, with exactly
// the fields the codec keeps (block type, name, config and the match list it read;
// connector ends), moved out of `r` (which keeps no block or connector afterwards):
// nothing is copied or parsed again.
GraphSpec graph_of(openbox::SetProcessingGraphRequest& r);

}  // namespace obi
