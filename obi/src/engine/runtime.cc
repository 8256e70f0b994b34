// Runtime: worker threads, RCU-like graph swap, handles, stats, events.
//
// Swap protocol: set_graph compiles the new graph on the calling thread (holding only the
// swap lock, so handles, stats and events are served meanwhile), activates its new
// elements, then publishes it with one atomic store. Every worker announces the
// graph it runs in `epoch` (store, then re-check the published pointer, both seq_cst, so
// a worker can never start using a graph the control thread already saw it leave). The
// old graph is freed once no worker announces it any more.
#include "engine/runtime.hh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "catalogue/catalogue.hh"
#include "engine/events.hh"
#include "engine/graph.hh"
#include "engine/pool.hh"
#include "engine/worker.hh"
#include "io/dpdk.hh"
#include "openbox/error.hh"

namespace obi {

namespace {

struct Live {
  std::unique_ptr<CompiledGraph> g;
  std::unique_ptr<uint8_t[]> done;  // [worker * sources + k]
  // Elements of the previous graph that this one does not keep, in that graph's
  // topological order, with their outputs there: every worker hands on their held packets
  // through the previous graph's wiring when it moves to this graph. The previous graph
  // stays alive until every worker has done so (retire() waits for `acked`), then the
  // list is cleared.
  struct Removed {
    std::shared_ptr<Element> element;
    const Outputs* outputs;
  };
  std::vector<Removed> removed;
  uint64_t generation = 0;  // 1, 2, ... in publication order
  unsigned workers = 0;
  bool all_done() const {
    std::size_t n = std::size_t(workers) * g->sources.size();
    for (std::size_t i = 0; i < n; ++i)
      if (!std::atomic_ref<uint8_t>(done[i]).load(std::memory_order_relaxed)) return false;
    return true;
  }
};

struct alignas(64) Worker {
  unsigned id = 0;
  std::unique_ptr<PacketPool> pool;
  Context ctx;
  std::thread thread;
  std::atomic<Live*> epoch{nullptr};
  std::atomic<uint64_t> acked{0};  // generation whose removed elements this worker released
  uint64_t seen = 0;
  // Published copies of the Context counters (the control thread reads these).
  std::atomic<uint64_t> in{0}, in_bytes{0}, out{0}, out_bytes{0}, drops{0}, busy_ns{0};
};

// The elements of a graph: an element of the previous graph is kept by the new one when it
// is among them (elements are carried only under their own name).
std::unordered_set<const Element*> elements_of(const CompiledGraph& g) {
  std::unordered_set<const Element*> out;
  out.reserve(g.elements.size());
  for (const auto& e : g.elements) out.insert(e.get());
  return out;
}

}  // namespace

struct Runtime::Impl {
  RuntimeOptions opt;
  unsigned nworkers = 1;
  std::unique_ptr<RingEventSink> events;
  std::vector<std::unique_ptr<Worker>> workers;
  std::atomic<Live*> current{nullptr};
  std::atomic<bool> stopping{false};
  uint64_t generation = 0;
  bool running = false;
  std::mutex swap;             // serialises set_graph (held while a graph compiles)
  mutable std::mutex control;  // serialises the swap itself, read, write, start, stop
  std::chrono::steady_clock::time_point started;
  mutable uint64_t load_busy = 0;
  mutable std::chrono::steady_clock::time_point load_at;

  // What a swap took out of service, kept until release_retired() frees it (guarded by
  // `swap`): the previous graph and the elements only it held.
  std::vector<std::unique_ptr<Live>> retired;
  std::vector<Live::Removed> retired_elements;

  void worker_main(Worker& w);
  // Waits until no worker runs `old` and deactivates what `next` does not share; returns
  // `old`, whose memory the caller frees (or keeps for release_retired).
  std::unique_ptr<Live> retire(Live* old, const Live* next);
  void publish_counters(Worker& w);
  void wait_switched(const Live* next);
  SwapTiming last_swap;
};

void Runtime::Impl::publish_counters(Worker& w) {
  w.out.store(w.ctx.sent, std::memory_order_relaxed);
  w.out_bytes.store(w.ctx.sent_bytes, std::memory_order_relaxed);
  w.drops.store(w.ctx.drops, std::memory_order_relaxed);
}

void Runtime::Impl::worker_main(Worker& w) {
  uint64_t in = 0, in_bytes = 0, busy = 0, offset_at = 0;
  unsigned idle = 0;
  while (!stopping.load(std::memory_order_relaxed)) {
    Live* g = current.load();
    w.epoch.store(g);
    if (current.load() != g) continue;
    if (!g) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    if (g->generation != w.seen) {
      w.ctx.now_ns = monotonic_ns();
      for (const auto& r : g->removed) r.element->release(w.ctx, *r.outputs);
      w.seen = g->generation;
      w.acked.store(g->generation);
    }
    uint64_t t0 = monotonic_ns();
    w.ctx.now_ns = t0;
    if (t0 - offset_at >= 1000000000ull || offset_at == 0) {  // follow wall-clock steps (NTP)
      w.ctx.wall_offset_ns = wall_offset_ns();
      offset_at = t0;
    }
    uint8_t* done = g->done.get() + std::size_t(w.id) * g->g->sources.size();
    RoundResult r = run_round(*g->g, w.ctx, done);
    if (r.packets) {
      in += r.packets;
      in_bytes += r.bytes;
      busy += monotonic_ns() - t0;
      w.in.store(in, std::memory_order_relaxed);
      w.in_bytes.store(in_bytes, std::memory_order_relaxed);
      w.busy_ns.store(busy, std::memory_order_relaxed);
      idle = 0;
    } else if (++idle > 64 && !opt.busy_poll) {
      // Nothing to do: back off so idle workers leave the (shared) cores alone.
      std::this_thread::sleep_for(std::chrono::microseconds(idle > 1024 ? 1000 : 50));
    }
    publish_counters(w);
  }
  w.epoch.store(nullptr);
}

// Waits until every worker runs `next` and has released what it removed.
void Runtime::Impl::wait_switched(const Live* next) {
  if (!running) return;
  for (auto& w : workers)
    while (w->acked.load() != next->generation) std::this_thread::sleep_for(std::chrono::microseconds(20));
}

std::unique_ptr<Live> Runtime::Impl::retire(Live* old, const Live* next) {
  if (!old) return nullptr;
  if (running) {
    // set_graph is serialised, so every worker moves from `old` straight to `next`.
    for (auto& w : workers)
      while (w->epoch.load() == old || (next && w->acked.load() != next->generation))
        std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  const std::unordered_set<const Element*> kept = next ? elements_of(*next->g) : std::unordered_set<const Element*>{};
  for (const auto& e : old->g->elements)
    if (!kept.count(e.get())) e->deactivate();
  return std::unique_ptr<Live>(old);
}

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opt = std::move(options);
  m.nworkers = m.opt.workers ? m.opt.workers : std::max(1u, std::thread::hardware_concurrency());
  if (!m.opt.eal_args.empty()) io::dpdk_init(m.opt.eal_args);
  m.events = std::make_unique<RingEventSink>(m.nworkers, m.opt.event_ring);
  for (unsigned i = 0; i < m.nworkers; ++i) {
    auto w = std::make_unique<Worker>();
    w->id = i;
    w->pool = std::make_unique<PacketPool>(m.opt.pool_packets);
    w->ctx.worker = i;
    w->ctx.pool = w->pool.get();
    w->ctx.events = m.events.get();
    m.workers.push_back(std::move(w));
  }
}

Runtime::~Runtime() {
  stop();
  std::lock_guard<std::mutex> lock(impl_->control);
  impl_->retire(impl_->current.exchange(nullptr), nullptr);
  impl_->retired_elements.clear();
  impl_->retired.clear();
}

void Runtime::release_retired() {
  Impl& m = *impl_;
  std::vector<std::unique_ptr<Live>> graphs;
  std::vector<Live::Removed> elements;
  {
    std::lock_guard<std::mutex> swap_lock(m.swap);
    graphs = std::move(m.retired);
    elements = std::move(m.retired_elements);
    m.retired.clear();
    m.retired_elements.clear();
  }
  elements.clear();  // elements first: their Removed entries point into the graphs' wiring
  graphs.clear();
}

void Runtime::set_graph(nlohmann::json graph, const GraphHooks& hooks) {
  set_graph(graph_spec(std::move(graph), impl_->opt.limits), hooks);
}

void Runtime::set_graph(GraphSpec graph, const GraphHooks& hooks) {
  Impl& m = *impl_;
  // Only set_graph replaces the running graph, so `old` stays alive while the new graph
  // compiles against it without the control lock.
  std::lock_guard<std::mutex> swap_lock(m.swap);
  Live* old = m.current.load();
  CompileOptions co;
  co.workers = m.nworkers;
  co.previous = old ? old->g.get() : nullptr;
  co.devices = &m.opt.devices;
  co.limits = m.opt.limits;
  co.cancelled = hooks.cancelled;
  if (m.opt.replace_source) co.replace_source = [&m](const BlockSpec& b) { return m.opt.replace_source(b.type); };
  auto live = std::make_unique<Live>();
  const uint64_t t0 = monotonic_ns(), cpu0 = thread_cpu_ns();
  live->g = compile_graph(std::move(graph), co);
  const uint64_t t1 = monotonic_ns(), compile_cpu = thread_cpu_ns() - cpu0;
  live->workers = m.nworkers;
  live->done.reset(new uint8_t[std::size_t(m.nworkers) * live->g->sources.size() + 1]());
  std::lock_guard<std::mutex> lock(m.control);
  if (hooks.commit && !hooks.commit())
    throw openbox::ProtocolError(openbox::ErrorSubtype::BAD_GRAPH,
                                 "the compiled graph was abandoned before it was installed");
  // Open files and devices before publishing; on failure undo and keep the old graph.
  std::vector<Element*> activated;
  try {
    for (std::size_t i = 0; i < live->g->elements.size(); ++i) {
      if (live->g->carried[i]) continue;
      live->g->elements[i]->activate();
      activated.push_back(live->g->elements[i].get());
    }
  } catch (const openbox::ProtocolError&) {
    for (Element* e : activated) e->deactivate();
    throw;
  } catch (const std::exception& ex) {
    for (Element* e : activated) e->deactivate();
    throw openbox::ProtocolError(openbox::ErrorSubtype::BAD_BLOCK, ex.what());
  }
  if (old) {
    const std::unordered_set<const Element*> kept = elements_of(*live->g);
    for (uint32_t i : old->g->order)
      if (!kept.count(old->g->elements[i].get()))
        live->removed.push_back({old->g->elements[i], &old->g->nodes[i].outputs});
  }
  live->generation = ++m.generation;
  if (!m.running) {
    // No worker thread runs: hand the removed elements' packets on here, on each worker's
    // behalf (its pool, its counters), while the old graph is still alive.
    for (auto& w : m.workers) {
      w->ctx.now_ns = monotonic_ns();
      for (const auto& r : live->removed) r.element->release(w->ctx, *r.outputs);
      w->seen = live->generation;
      w->acked.store(live->generation);
      m.publish_counters(*w);
    }
  }
  Live* next = live.release();
  const uint64_t t2 = monotonic_ns();
  m.current.store(next);
  m.wait_switched(next);
  const uint64_t t3 = monotonic_ns();
  const auto live_at = std::chrono::steady_clock::now();
  const auto live_wall = std::chrono::system_clock::now();
  std::unique_ptr<Live> retired = m.retire(old, next);
  const uint64_t t4 = monotonic_ns();
  m.last_swap = {(t1 - t0) / 1e6, compile_cpu / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
                 (t4 - t3) / 1e6, (t4 - t0) / 1e6,   live_at,         live_wall};
  // Every worker has released the removed elements and runs `next` only: the old graph and
  // what only it held are freed by release_retired(), off the path to live and to the answer.
  // At most one retired graph is kept: one an earlier swap left unreleased goes now.
  m.retired_elements.clear();
  m.retired.clear();
  for (auto& r : next->removed) m.retired_elements.push_back(std::move(r));
  next->removed.clear();
  if (retired) m.retired.push_back(std::move(retired));
}

SwapTiming Runtime::last_swap() const {
  std::lock_guard<std::mutex> lock(impl_->control);
  return impl_->last_swap;
}

nlohmann::json Runtime::graph() const {
  std::lock_guard<std::mutex> lock(impl_->control);
  Live* g = impl_->current.load();
  return g ? g->g->to_json() : nlohmann::json::object();
}

void Runtime::start() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.control);
  if (m.running) return;
  m.stopping.store(false);
  m.running = true;
  m.started = m.load_at = std::chrono::steady_clock::now();
  for (auto& w : m.workers) {
    Worker* wp = w.get();
    w->thread = std::thread([&m, wp] { m.worker_main(*wp); });
  }
}

void Runtime::stop() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.control);
  if (!m.running) return;
  m.stopping.store(true);
  for (auto& w : m.workers)
    if (w->thread.joinable()) w->thread.join();
  m.running = false;
  // Shutdown: hand on what queues and shapers still hold, upstream first, so every packet
  // that came in has left or been counted as dropped.
  if (Live* g = m.current.load()) {
    for (auto& w : m.workers) {
      w->ctx.now_ns = monotonic_ns();
      for (uint32_t i : g->g->order) {
        const Node& node = g->g->nodes[i];
        node.element->release(w->ctx, node.outputs);
      }
      m.publish_counters(*w);
    }
  }
}

bool Runtime::sources_done() const {
  std::lock_guard<std::mutex> lock(impl_->control);  // the graph cannot be retired meanwhile
  Live* g = impl_->current.load();
  return g && g->all_done();
}

nlohmann::json Runtime::read(const std::string& block, const std::string& handle) const {
  std::lock_guard<std::mutex> lock(impl_->control);
  Live* g = impl_->current.load();
  Element* e = g ? g->g->find(block) : nullptr;
  if (!e) throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "no block named '" + block + "'");
  return e->read(handle);
}

void Runtime::write(const std::string& block, const std::string& handle, const nlohmann::json& value) {
  std::lock_guard<std::mutex> lock(impl_->control);
  Live* g = impl_->current.load();
  Element* e = g ? g->g->find(block) : nullptr;
  if (!e) throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "no block named '" + block + "'");
  e->write(handle, value);
}

std::size_t Runtime::drain_events(std::vector<Event>& out, std::size_t max) {
  std::lock_guard<std::mutex> lock(impl_->control);
  return impl_->events->drain(out, max);
}

RuntimeStats Runtime::stats() const {
  const Impl& m = *impl_;
  RuntimeStats s;
  uint64_t busy = 0;
  for (const auto& w : m.workers) {
    s.packets_in += w->in.load(std::memory_order_relaxed);
    s.bytes_in += w->in_bytes.load(std::memory_order_relaxed);
    s.packets_out += w->out.load(std::memory_order_relaxed);
    s.bytes_out += w->out_bytes.load(std::memory_order_relaxed);
    s.packets_dropped += w->drops.load(std::memory_order_relaxed);
    busy += w->busy_ns.load(std::memory_order_relaxed);
  }
  s.events_dropped = m.events->dropped();
  // Load over the interval since the previous stats() call.
  std::lock_guard<std::mutex> lock(m.control);
  auto now = std::chrono::steady_clock::now();
  double wall = std::chrono::duration<double, std::nano>(now - m.load_at).count() * m.nworkers;
  if (m.running && wall > 0) s.current_load = std::clamp(double(busy - m.load_busy) / wall, 0.0, 1.0);
  m.load_busy = busy;
  m.load_at = now;
  return s;
}

unsigned Runtime::workers() const { return impl_->nworkers; }

std::vector<std::string> Runtime::supported_blocks() {
  std::vector<std::string> out;
  for (const BlockDescriptor& d : Catalogue::builtin().all())
    if (find_element(d.name)) out.push_back(d.name);
  return out;
}

}  // namespace obi
