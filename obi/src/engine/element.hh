// Element: the run-time form of one processing block.
//
// Elements follow Click's shape (input and output ports, read/write handlers) with
// FastClick/VPP-style batched push and run-to-completion:
//   * push(port, batch, ctx, out) is called with a batch arriving on input `port`; the
//     element processes it and passes (parts of) it on with out.emit(output, batch, ctx),
//     or drops packets with ctx.drop(). Every packet of the batch must be emitted or dropped.
//   * One element object serves all workers at once. Mutable per-packet-path state lives in
//     PerWorker<T> slots indexed by ctx.worker, so the data path takes no locks and no
//     allocations; handles sum the slots on read.
//   * Pushes nest (an element's push emits into the next element's push) only up to
//     kMaxPushDepth: a deeper emit hands its batch to the worker's pending stack, and the
//     outermost emit runs what is pending once it returns, so a chain or tree of any depth
//     runs in bounded stack, with no allocation (the stack lives in the worker's
//     PacketPool and holds at most the pool's packets). Graphs within that depth run
//     exactly as plain recursion would.
//   * An element object is independent of the graph's wiring (the Outputs it is handed),
//     so a graph swap can carry an unchanged element (same name, type, config) with its
//     counters and state into the new graph.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/module_abi.hh"  // generated: OBI_MODULE_ABI
#include "engine/packet.hh"
#include "openbox/error.hh"
#include "openbox/header_match.hh"

namespace obi {

class Element;
class HeaderFuser;
class HeaderLookups;
class PacketPool;
class EventSink;
struct Node;

// Everything a worker hands to the elements it runs.
struct Context {
  unsigned worker = 0;         // 0 .. workers-1
  PacketPool* pool = nullptr;  // this worker's packet buffers
  EventSink* events = nullptr;
  uint64_t now_ns = 0;         // monotonic clock, refreshed once per batch
  int64_t wall_offset_ns = 0;  // wall clock minus monotonic clock, refreshed about once a second
  uint64_t drops = 0;          // packets dropped by ctx.drop() (unconnected outputs, no-match, ...)
  uint64_t sent = 0;           // packets that left the OBI (ToDevice, ToDump): count_out()
  uint64_t sent_bytes = 0;
  uint32_t depth = 0;    // pushes nested on this thread's stack right now (Outputs::emit)
  uint32_t pending = 0;  // batches waiting in pool's pending stack

  void drop(Packet* p);  // return one packet to the pool
  void drop(Batch& b);   // return all packets of a batch; leaves b empty
  // Outputs::emit past kMaxPushDepth: keep the batch for later (leaves b empty) / run what
  // waits, each push starting at depth 1, until nothing does.
  void defer(Node* node, uint16_t port, Batch& b);
  void run_pending();
  // Output terminals call this for packets they hand to a device or file (before freeing).
  void count_out(uint64_t packets, uint64_t bytes) {
    sent += packets;
    sent_bytes += bytes;
  }
};

// A pass-through static's pass() in a form that runs from a few bytes copied out of the
// element (Element::static_site): `fn(site, batch, ctx)` does exactly what pass(batch, ctx)
// does, reading only `site`.
using StaticSiteFn = void (*)(const void* site, Batch& batch, Context& ctx);

// Where an element's output ports lead in the current graph. Pass-through statics
// (Element::passes_through) on the way are applied in place rather than pushed: the
// compiler folds a chain like classifier[7] -> Alert -> next into a link to `next` that
// carries the Alert, so the packets of many rules that each alert and then meet again
// stay one batch, and cost no push and no batch split of their own.
// A link that carries one static offering a site holds that site itself (site_fn, site):
// applying it then reads the link's two cache lines, which a classifier can prefetch by
// output number alone, instead of chasing the element object (a classifier with a
// per-rule Alert on each of thousands of outputs would otherwise miss on a scattered
// Alert object per rule hit).
struct alignas(64) Link {
  static constexpr std::size_t kSiteBytes = 96;
  Node* node = nullptr;  // nullptr: output not connected, packets are dropped
  uint16_t port = 0;     // input port of the destination
  uint16_t inlined = 0;  // statics applied, in order, before the packets reach `node`
  Element* const* statics = nullptr;
  StaticSiteFn site_fn = nullptr;  // set: the one inlined static runs as site_fn(site, ...)
  alignas(8) unsigned char site[kSiteBytes] = {};
  inline void pass_statics(Batch& batch, Context& ctx) const;
};
static_assert(sizeof(Link) == 128, "a link is two cache lines");

struct Outputs {
  const Link* links = nullptr;
  uint16_t count = 0;
  inline void emit(uint16_t output, Batch& batch, Context& ctx) const;
};

struct Node {
  Element* element = nullptr;
  Outputs outputs;
};

// Nesting of push calls on a worker's stack beyond which Outputs::emit defers (see the top
// of this file). An element's push frame takes at most a few KiB, so this bounds the
// data path's stack to well under a MiB.
inline constexpr uint32_t kMaxPushDepth = 48;

// Alerts and logs leave the data path through the worker's EventSink: a bounded,
// preallocated single-producer ring drained by the control plane. A full ring drops
// the event and counts it; it never blocks the worker.
class EventSink {
 public:
  enum class Kind : uint8_t { kAlert, kLog };
  virtual ~EventSink() = default;
  // packet_size < 0: the whole packet; 0: none. now_ns: the worker's monotonic clock
  // (Context::now_ns, read once per batch), 0 to have the sink read the clock itself.
  // An alert also carries the packet's header fields and timestamp (PacketFields), so
  // `p` is parsed here when no block before has done it.
  virtual void post(Kind kind, std::string_view origin_block, std::string_view app_id, std::string_view message,
                    int severity, Packet& p, int packet_size, unsigned worker, uint64_t now_ns) = 0;
};

class Element {
 public:
  virtual ~Element() = default;

  // --- ports (fixed when the element is configured) ---
  virtual uint16_t input_count() const { return 1; }
  virtual uint16_t output_count() const { return 1; }

  // --- data path ---
  virtual void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) = 0;

  // Sources (FromDump, FromDevice) produce packets: fill `batch` with up to kBatchSize
  // packets from ctx.pool for this worker; return false once the source is exhausted.
  virtual bool is_source() const { return false; }
  virtual bool poll(Batch& batch, Context& ctx) {
    (void)batch;
    (void)ctx;
    return false;
  }

  // Elements that hold packets (queues, shapers) or buffer output get a task slot:
  // the worker calls run_task between polls so they can release packets on time.
  virtual bool has_task() const { return false; }
  virtual void run_task(Context& ctx, const Outputs& out) {
    (void)ctx;
    (void)out;
  }

  // Elements that hold packets (queues, shapers) hand them all on here, at once and in
  // order, ignoring rates and timers: emit them through `out` (the element's outputs in
  // the graph it is leaving) or ctx.drop() them; afterwards this worker's slot holds none.
  // The runtime calls it, on every worker (with that worker's Context), in topological
  // order of the graph so upstream holders drain into downstream ones:
  //   * at a swap, for each element the new graph does not carry over, once the worker has
  //     left the old graph and before deactivate() (carried elements keep their packets);
  //   * at Runtime::stop(), for every element of the running graph, so that at shutdown
  //     packets in = packets out + packets dropped (by rules or by a full queue).
  virtual void release(Context& ctx, const Outputs& out) {
    (void)ctx;
    (void)out;
  }
  // Packets held right now, summed over workers (control thread; 0 for most elements).
  virtual uint64_t held_packets() const { return 0; }

  // Called on the control thread after the graph holding this element is published /
  // before it is freed (open and close devices and files here, not in the constructor
  // if they must not happen for a graph that is never published).
  // Some elements switch to a faster structure built in the background after they are
  // constructed (HeaderClassifier's rte_acl lookup). Waits at most `timeout` for that to
  // settle; returns the name of what answers then ("" for elements without one). obi
  // bench calls it so that it measures what the element serves with in steady state.
  virtual std::string settle(std::chrono::milliseconds timeout) const {
    (void)timeout;
    return {};
  }

  virtual void activate() {}
  virtual void deactivate() {}

  // A swap that rebuilds a block under the same name and type (its config changed) offers
  // the new element the one it replaces, which still runs in the old graph, before
  // activate(). An element may share with it what must not be reopened (FromDevice keeps
  // the sockets and rings of its interface, so no frame is lost at the swap); both stay
  // usable, each worker moving from the old one to the new one.
  virtual void take_over(Element& previous) { (void)previous; }

  // --- pass-through statics (see Link) ---
  // True for a block with one input and one output that never changes, holds, drops or
  // reorders packets and whose only effect is its own (events, counters): Alert, Log.
  // Such a block implements pass(); its push must be pass() followed by emit(0).
  virtual bool passes_through() const { return false; }
  virtual void pass(Batch& batch, Context& ctx) {
    (void)batch;
    (void)ctx;
  }
  // Optionally, pass() as a site (see Link): writes at most `capacity` bytes to `site` and
  // returns the function that runs pass() from them, or nullptr (no site: the link calls
  // pass() on the element). Control thread, when a graph is compiled.
  virtual StaticSiteFn static_site(void* site, std::size_t capacity) const {
    (void)site;
    (void)capacity;
    return nullptr;
  }

  // --- fusion (engine/fusion.hh): the roles this element can take, nullptr when none ---
  virtual HeaderLookups* header_lookups() { return nullptr; }
  virtual HeaderFuser* header_fuser() { return nullptr; }

  // --- handles (control thread; throw openbox::ProtocolError(ILLEGAL_ARGUMENT) for an
  // unknown handle or a bad value) ---
  virtual nlohmann::json read(std::string_view handle) const;
  virtual void write(std::string_view handle, const nlohmann::json& value);

  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  void set_identity(std::string name, std::string type) {
    name_ = std::move(name);
    type_ = std::move(type);
  }

 private:
  std::string name_;
  std::string type_;
};

inline void Link::pass_statics(Batch& batch, Context& ctx) const {
  if (site_fn) {
    site_fn(site, batch, ctx);
    return;
  }
  for (uint16_t k = 0; k < inlined; ++k) statics[k]->pass(batch, ctx);
}

inline void Outputs::emit(uint16_t output, Batch& batch, Context& ctx) const {
  if (batch.n == 0) return;
  if (output >= count) {
    ctx.drop(batch);
    return;
  }
  const Link& l = links[output];
  l.pass_statics(batch, ctx);
  if (l.node == nullptr) {
    ctx.drop(batch);
    return;
  }
  if (ctx.depth >= kMaxPushDepth) [[unlikely]] {
    ctx.defer(l.node, l.port, batch);
    return;
  }
  ++ctx.depth;
  l.node->element->push(l.port, batch, ctx, l.node->outputs);
  if (--ctx.depth == 0 && ctx.pending != 0) [[unlikely]]
    ctx.run_pending();
}

// Per-worker slots, each on its own cache line.
template <typename T>
class PerWorker {
 public:
  explicit PerWorker(unsigned workers) : slots_(workers) {}
  T& operator[](unsigned w) { return slots_[w].v; }
  const T& operator[](unsigned w) const { return slots_[w].v; }
  unsigned size() const { return static_cast<unsigned>(slots_.size()); }
  template <typename F>
  void for_each(F f) const {
    for (const auto& s : slots_) f(s.v);
  }

 private:
  struct alignas(64) Slot {
    T v{};
  };
  std::vector<Slot> slots_;
};

// A counter written by one worker only and read by the control thread: relaxed atomics
// compile to plain loads and stores on x86, so the data path pays no locked instruction.
struct Counter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t d) { v.store(v.load(std::memory_order_relaxed) + d, std::memory_order_relaxed); }
  uint64_t get() const { return v.load(std::memory_order_relaxed); }
  void reset() { v.store(0, std::memory_order_relaxed); }
};

// What a block factory receives.
struct ElementArgs {
  std::string name;
  std::string type;
  const nlohmann::json& config;  // the block's "config" object (may be empty)
  unsigned workers;              // number of workers that will run the element
  // A HeaderClassifier's config "match" as the protocol decoder read it, or null: the
  // block then reads it from `config`.
  openbox::SharedHeaderMatches match = nullptr;
};

// Factories register by block type name. A factory validates the config and throws
// openbox::ProtocolError (BAD_BLOCK for bad config, BAD_HEADER_MATCH / BAD_PAYLOAD_MATCH
// for bad matches) with a message that names the block and the field.
using ElementFactory = std::unique_ptr<Element> (*)(const ElementArgs&);

void register_element(std::string_view type, ElementFactory factory);
ElementFactory find_element(std::string_view type);  // nullptr when not built
// Removes the factory of `type` (an OBI started with --without-blocks: its Hello leaves the
// type out and its graphs may not use it); false when the type has none.
bool unregister_element(std::string_view type);
std::vector<std::string> registered_elements();

struct ElementRegistrar {
  ElementRegistrar(std::string_view type, ElementFactory f) { register_element(type, f); }
};

// In a block's .cc file:  OBI_REGISTER_ELEMENT(HeaderClassifier, HeaderClassifierElement)
// The block library is linked whole (an OBJECT library), so registrations are never dropped.
#define OBI_REGISTER_ELEMENT(TYPE, CLASS)                                         \
  static ::obi::ElementRegistrar obi_registrar_##TYPE(                            \
      #TYPE, [](const ::obi::ElementArgs& a) -> std::unique_ptr<::obi::Element> { \
        auto e = std::make_unique<CLASS>(a);                                      \
        e->set_identity(a.name, a.type);                                          \
        return e;                                                                 \
      })

// A custom module states, once, the engine ABI it was compiled against; the loader refuses
// a module whose fingerprint differs from the running OBI's (see obi/CMakeLists.txt).
#define OBI_MODULE_DECLARE_ABI() \
  extern "C" __attribute__((visibility("default"))) const char* obi_module_abi() { return OBI_MODULE_ABI; }

}  // namespace obi
