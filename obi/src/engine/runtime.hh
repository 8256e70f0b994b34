// Runtime: the OBI's data plane as the control plane and the CLI see it.
//
//   Runtime rt(options);
//   rt.set_graph(graph_json);     // validate + compile off the data path, publish atomically
//   rt.start();                   // worker threads (one per core by default)
//   rt.read("fw", "count"); rt.write("in", "active", true);
//   rt.drain_events(out, 256);    // alerts and logs for the controller
//
// set_graph either publishes the whole new graph or throws openbox::ProtocolError and
// leaves the running graph untouched (spec 3.2 transaction semantics). Workers switch
// at a batch boundary; the old graph is freed once every worker has left it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/graph.hh"
#include "engine/limits.hh"
#include "engine/packet_fields.hh"

namespace obi {

class Element;

struct RuntimeOptions {
  unsigned workers = 0;               // 0: one per online core
  std::vector<std::string> eal_args;  // DPDK EAL arguments; empty: DPDK not initialised
  uint32_t pool_packets = 4096;       // packet buffers per worker
  uint32_t event_ring = 4096;         // alert/log slots per worker
  // An idle worker (64 empty rounds) sleeps 50 us per round, 1 ms after 1024, leaving
  // shared cores to others at the price of up to that much latency for the next frame;
  // busy_poll: it never sleeps (lowest latency, one core per worker at 100 %).
  bool busy_poll = false;
  // Device names of graphs bound to this OBI's devices: "in" -> "veth1", "dpdk:0" or
  // "pcap:FILE" (FromDevice reads / ToDevice writes that pcap file).
  std::map<std::string, std::string> devices;
  GraphLimits limits;  // hard caps of every graph set_graph takes
  // Benchmarks only: called for every new source block (by block type); a non-null element
  // replaces it (e.g. a ReplaySource looping over packets preloaded in memory).
  std::function<std::unique_ptr<Element>(const std::string& type)> replace_source;
};

struct Event {  // one alert or log entry, as the protocol sends it
  bool alert = true;
  uint64_t id = 0;
  double timestamp = 0;         // seconds since the epoch, when the block raised it
  double packet_timestamp = 0;  // the packet's capture / arrival time (0: unknown)
  PacketFields fields;          // the packet's header fields
  std::string message;
  int severity = 1;
  std::string packet;  // raw bytes of the excerpt (the codec base64-encodes)
  std::string origin_block;
  std::string app_id;
};

struct RuntimeStats {
  uint64_t packets_in = 0, bytes_in = 0;
  uint64_t packets_out = 0, bytes_out = 0;
  uint64_t packets_dropped = 0;
  uint64_t events_dropped = 0;
  double current_load = 0;  // fraction of worker time spent on packets, [0,1]
};

// Where the time of the last successful set_graph went (milliseconds).
struct SwapTiming {
  double compile_ms = 0;      // validate + build the elements (compile_graph)
  double compile_cpu_ms = 0;  // CPU time of compile_graph's own thread (its helpers not counted)
  double activate_ms = 0;     // open the new elements' files and devices
  double switch_ms = 0;       // publish until every worker runs the new graph
  double retire_ms = 0;       // deactivate what the old graph does not share (freed later: release_retired)
  double total_ms = 0;
  std::chrono::steady_clock::time_point live_at;    // every worker runs the new graph
  std::chrono::system_clock::time_point live_wall;  // the same moment on the wall clock
};

// Hooks of one set_graph call, both called on its thread. cancelled: asked before each
// block is built; true abandons the compile. commit: asked once the graph is built, just
// before it is activated and published; false abandons it. Either way set_graph throws
// ProtocolError(BAD_GRAPH) and the running graph stays.
struct GraphHooks {
  std::function<bool()> cancelled;
  std::function<bool()> commit;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // `graph` has "blocks" and "connectors" (a graph file or a SetProcessingGraphRequest);
  // move a large graph in: its block configurations are then not copied.
  // Compiles holding only a lock of its own: read, write, stats and drain_events are served
  // meanwhile (from the running graph).
  // The graph it replaces (and its elements the new one does not keep) is deactivated, but
  // its memory, large for a big graph, is kept until release_retired(): call that once the
  // swap has been answered. At most one is kept: the next set_graph frees it at the latest
  // (after its own graph is live).
  void set_graph(GraphSpec graph, const GraphHooks& hooks = {});
  void set_graph(nlohmann::json graph, const GraphHooks& hooks = {});
  void release_retired();
  nlohmann::json graph() const;  // the running graph as given ({} when none)
  SwapTiming last_swap() const;

  void start();
  void stop();
  bool sources_done() const;  // every source of the running graph is exhausted

  nlohmann::json read(const std::string& block, const std::string& handle) const;
  void write(const std::string& block, const std::string& handle, const nlohmann::json& value);

  std::size_t drain_events(std::vector<Event>& out, std::size_t max);
  RuntimeStats stats() const;
  unsigned workers() const;

  // Block types this build implements (what Hello / ListCapabilities advertise).
  static std::vector<std::string> supported_blocks();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace obi
