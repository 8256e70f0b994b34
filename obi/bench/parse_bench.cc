// parse_bench: CPU time of an OBI's work on a SetProcessingGraphRequest body until the graph
// is built: on the REST thread the codec's parse, validation and decode (openbox::decode)
// and the engine's graph of the message (obi::graph_of); on the graph thread the compile
// against the graph before it (compile_graph with `previous`, as a swap does).
//
//   parse_bench GRAPH.json [REPEATS] [--reread] [--tree]
//               (default 7 repeats; e.g. build/chains/bench/fw_fw.swap.json)
//
// GRAPH.json is a graph {"blocks", "connectors"}; it is sent as a SetProcessingGraphRequest
// body (compact JSON). The bodies alternate between GRAPH and its twin with every
// HeaderClassifier's rules in reverse order (control_bench's swaps), so each compile builds
// the classifiers anew and carries the other blocks over. --reread: the classifiers read
// their rules from their configs again instead of taking the lists the decoder read.
// --tree: the body is decoded from a tree of all of it (parse_json_body, then decode_json),
// the path of a graph request the fast decode does not take (decode_graph_request_fast). The
// sources are replaced by empty replays (no file or device is opened).
// CPU time of the calling thread (cpu_ms, compile_cpu_ms), which a loaded machine disturbs
// less than wall-clock time, and since the compile builds classifiers on a second thread,
// the process's CPU time and the wall-clock time too.
// One JSON line, medians and minima over the repeats:
//   {"bench":"parse","graph":..,"bytes":..,"blocks":..,"repeats":..,"reread":..,"tree":..,
//    "cpu_ms_median":..,"cpu_ms_min":..,"process_cpu_ms_median":..,"wall_ms_median":..,
//    "compile_cpu_ms_median":..,"compile_cpu_ms_min":..,"compile_process_cpu_ms_median":..,
//    "compile_wall_ms_median":..}
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifdef OBI_MIMALLOC
#include <mimalloc.h>
#endif

#include "engine/graph.hh"
#include "engine/replay.hh"
#include "engine/worker.hh"
#include "openbox/json_body.hh"
#include "openbox/messages.hh"

namespace {

using nlohmann::json;

double cpu_ms() { return obi::thread_cpu_ns() / 1e6; }
double process_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
double wall_ms() { return obi::monotonic_ns() / 1e6; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
#ifdef OBI_MIMALLOC
  mi_option_disable(mi_option_allow_decommit);  // as the OBI (main.cc): freed memory is kept
  mi_option_disable(mi_option_page_reset);
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  auto flag = [&args](const char* f) {
    const bool on = std::find(args.begin(), args.end(), f) != args.end();
    args.erase(std::remove(args.begin(), args.end(), f), args.end());
    return on;
  };
  const bool reread = flag("--reread");
  const bool whole_tree = flag("--tree");
  if (args.empty()) {
    std::fprintf(stderr, "usage: parse_bench GRAPH.json [REPEATS] [--reread] [--tree]\n");
    return 2;
  }
  std::ifstream in(args[0]);
  if (!in) {
    std::fprintf(stderr, "parse_bench: cannot read %s\n", args[0].c_str());
    return 2;
  }
  const int repeats = args.size() > 1 ? std::max(1, std::atoi(args[1].c_str())) : 7;
  std::stringstream text;
  text << in.rdbuf();
  json request = json::parse(text.str(), nullptr, false);
  if (!request.is_object() || !request.contains("blocks") || !request["blocks"].is_array()) {
    std::fprintf(stderr, "parse_bench: %s is not a graph with \"blocks\"\n", args[0].c_str());
    return 2;
  }
  request["type"] = "SetProcessingGraphRequest";
  request["xid"] = 1;
  const std::string body = request.dump();
  for (auto& b : request["blocks"])
    if (b.value("type", "") == "HeaderClassifier" && b.contains("config") && b["config"].contains("match"))
      std::reverse(b["config"]["match"].begin(), b["config"]["match"].end());
  const std::string twin = request.dump();

  std::vector<double> parse_ms, compile_ms, parse_pcpu, compile_pcpu, parse_wall, compile_wall;
  std::size_t blocks = 0;
  std::unique_ptr<obi::CompiledGraph> previous;
  for (int r = 0; r < repeats + 1; ++r) {  // the first compile has nothing to carry over: not counted
    try {
      const double t0 = cpu_ms(), p0 = process_cpu_ms(), w0 = wall_ms();
      const std::string& text = r % 2 ? twin : body;
      const auto type = openbox::MessageType::SetProcessingGraphRequest;
      openbox::Message m =
          whole_tree ? openbox::decode_json(openbox::parse_json_body(text), type) : openbox::decode(text, type);
      auto& req = std::get<openbox::SetProcessingGraphRequest>(m);
      blocks = req.blocks.size();
      obi::GraphSpec graph = obi::graph_of(req);  // as the OBI's handler hands it to the engine
      const double t1 = cpu_ms(), p1 = process_cpu_ms(), w1 = wall_ms();
      if (reread)
        for (obi::BlockSpec& b : graph.blocks) b.match = nullptr;
      obi::CompileOptions co;
      co.previous = previous.get();
      co.replace_source = [](const obi::BlockSpec&) -> std::unique_ptr<obi::Element> {  // no file opened
        return std::make_unique<obi::ReplaySource>(std::make_shared<const obi::Trace>(), 1);
      };
      const double t2 = cpu_ms(), p2 = process_cpu_ms(), w2 = wall_ms();
      std::unique_ptr<obi::CompiledGraph> g = obi::compile_graph(std::move(graph), co);
      const double t3 = cpu_ms(), p3 = process_cpu_ms(), w3 = wall_ms();
      if (r > 0) {
        parse_ms.push_back(t1 - t0);
        compile_ms.push_back(t3 - t2);
        parse_pcpu.push_back(p1 - p0);
        compile_pcpu.push_back(p3 - p2);
        parse_wall.push_back(w1 - w0);
        compile_wall.push_back(w3 - w2);
      }
      previous = std::move(g);
    } catch (const openbox::ProtocolError& e) {
      std::fprintf(stderr, "parse_bench: %s is refused: %s\n", args[0].c_str(), e.what());
      return 1;
    }
  }
  std::printf("%s\n", json{{"bench", "parse"},
                           {"graph", args[0]},
                           {"bytes", body.size()},
                           {"blocks", blocks},
                           {"repeats", repeats},
                           {"reread", reread},
                           {"tree", whole_tree},
                           {"cpu_ms_median", median(parse_ms)},
                           {"cpu_ms_min", *std::min_element(parse_ms.begin(), parse_ms.end())},
                           {"process_cpu_ms_median", median(parse_pcpu)},
                           {"wall_ms_median", median(parse_wall)},
                           {"compile_cpu_ms_median", median(compile_ms)},
                           {"compile_cpu_ms_min", *std::min_element(compile_ms.begin(), compile_ms.end())},
                           {"compile_process_cpu_ms_median", median(compile_pcpu)},
                           {"compile_wall_ms_median", median(compile_wall)}}
                          .dump()
                          .c_str());
  return 0;
}
