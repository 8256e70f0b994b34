// One round of a worker over a compiled graph: poll every source once (each source gives
// this worker its share of the traffic), push what came in through the graph to
// completion, then give every task element a turn. Shared by the Runtime's worker
// threads and by `obi bench`, so the benchmark measures the real data path.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

#include "engine/graph.hh"

namespace obi {

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// CPU time of the calling thread: what a control-path step cost, apart from the time
// other threads took the core meanwhile.
inline uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Wall clock minus monotonic clock: Context::wall_offset_ns, so that sources without a
// capture time stamp packets with wall time from the per-batch monotonic reading.
inline int64_t wall_offset_ns() {
  timespec m, w;
  clock_gettime(CLOCK_MONOTONIC, &m);
  clock_gettime(CLOCK_REALTIME, &w);
  return (int64_t(w.tv_sec) - int64_t(m.tv_sec)) * 1000000000 + (int64_t(w.tv_nsec) - int64_t(m.tv_nsec));
}

struct RoundResult {
  uint32_t packets = 0;
  uint64_t bytes = 0;
};

// `done` has one flag per source of g for this worker (set once the source is exhausted).
inline RoundResult run_round(const CompiledGraph& g, Context& ctx, uint8_t* done) {
  RoundResult r;
  const std::size_t ns = g.sources.size();
  for (std::size_t k = 0; k < ns; ++k) {
    if (done[k]) continue;
    const Node& node = g.nodes[g.sources[k]];
    Batch b;
    if (!node.element->poll(b, ctx)) std::atomic_ref<uint8_t>(done[k]).store(1, std::memory_order_relaxed);
    if (b.n) {
      r.packets += b.n;
      r.bytes += b.bytes();
      node.outputs.emit(0, b, ctx);
    }
  }
  for (uint32_t t : g.tasks) {
    const Node& node = g.nodes[t];
    node.element->run_task(ctx, node.outputs);
  }
  return r;
}

}  // namespace obi
