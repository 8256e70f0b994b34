// parse_bench: CPU time of the REST server's work on a SetProcessingGraphRequest body before
// the graph is queued: the one-pass parse (openbox::parse_json_body) and the codec's
// validation and decode (decode_json of the tree it hands over).
//
//   parse_bench GRAPH.json [REPEATS]     (default 7; e.g. build/chains/bench/fw_fw.swap.json)
//
// GRAPH.json is a graph {"blocks", "connectors"}; it is sent as a SetProcessingGraphRequest
// body (compact JSON). Thread CPU time, so a loaded machine disturbs the figure less than
// wall-clock time. One JSON line:
//   {"bench":"parse","graph":..,"bytes":..,"blocks":..,"repeats":..,"cpu_ms_median":..,"cpu_ms_min":..}
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

namespace {

double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: parse_bench GRAPH.json [REPEATS]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "parse_bench: cannot read %s\n", argv[1]);
    return 2;
  }
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json request = nlohmann::json::parse(text.str(), nullptr, false);
  if (!request.is_object() || !request.contains("blocks")) {
    std::fprintf(stderr, "parse_bench: %s is not a graph with \"blocks\"\n", argv[1]);
    return 2;
  }
  request["type"] = "SetProcessingGraphRequest";
  request["xid"] = 1;
  const std::string body = request.dump();
  std::vector<double> ms;
  std::size_t blocks = 0;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = thread_cpu_ms();
    try {
      openbox::Message m =
          openbox::decode_json(openbox::parse_json_body(body), openbox::MessageType::SetProcessingGraphRequest);
      blocks = std::get<openbox::SetProcessingGraphRequest>(m).blocks.size();
    } catch (const openbox::ProtocolError& e) {
      std::fprintf(stderr, "parse_bench: %s is refused: %s\n", argv[1], e.what());
      return 1;
    }
    ms.push_back(thread_cpu_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s\n", nlohmann::json{{"bench", "parse"},
                                     {"graph", argv[1]},
                                     {"bytes", body.size()},
                                     {"blocks", blocks},
                                     {"repeats", repeats},
                                     {"cpu_ms_median", ms[ms.size() / 2]},
                                     {"cpu_ms_min", ms.front()}}
                          .dump()
                          .c_str());
  return 0;
}
