// MultiClassifier: bit-vector structures at once, an rte_acl context built on a
// background thread and switched in atomically when ready.
#include "lib/multi_classifier.hh"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <thread>

#include "io/dpdk.hh"
#include "lib/acl_classifier.hh"
#include "lib/flow_cache.hh"
#include "lib/rule_classifier.hh"

namespace obi::blocks {

namespace {

enum class Mode { kAuto, kBitvector, kAcl };

// The flow caches: entries per worker (0: none) and the rte_acl rules a lookup needs to get
// them (an explicit size applies to every lookup).
struct CacheConfig {
  uint32_t entries = FlowCache::kDefaultEntries;
  uint32_t min_rules = FlowCache::kMinAclRules;
};

CacheConfig cache_config_from_env() {
  const char* v = std::getenv("OBI_FLOW_CACHE");
  if (!v || !*v) return {};
  if (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0) return {0, 0};
  char* end = nullptr;
  unsigned long n = std::strtoul(v, &end, 10);
  if (*end == '\0' && n >= 2 && n <= FlowCache::kMaxEntries) return {static_cast<uint32_t>(n), 0};
  static std::once_flag warned;
  std::call_once(warned, [v] {
    std::fprintf(stderr, "OBI_FLOW_CACHE=%s unknown (off, or entries 2..%u): using %u\n", v, FlowCache::kMaxEntries,
                 FlowCache::kDefaultEntries);
  });
  return {};
}

Mode mode_from_env() {
  const char* v = std::getenv("OBI_CLASSIFIER");
  if (!v || !*v || std::strcmp(v, "auto") == 0) return Mode::kAuto;
  if (std::strcmp(v, "bitvector") == 0) return Mode::kBitvector;
  if (std::strcmp(v, "acl") == 0) return Mode::kAcl;
  static std::once_flag warned;
  std::call_once(warned,
                 [v] { std::fprintf(stderr, "OBI_CLASSIFIER=%s unknown (auto, bitvector, acl): using auto\n", v); });
  return Mode::kAuto;
}

// The one thread of the process that builds ACL contexts, at low priority so that it
// does not compete with the workers. Jobs run in submission order.
class Builder {
 public:
  static Builder& get() {
    static Builder b;
    return b;
  }
  void submit(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  ~Builder() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      jobs_.clear();
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  Builder() : thread_([this] { run(); }) {}
  void run() {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      job = nullptr;  // release what the job held before waiting again
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

// What one compile() produced; shared with its background build, so that either side
// may go first.
struct MultiClassifierState {
  std::vector<RuleClassifier> bv;                   // immutable after compile()
  std::atomic<const AclClassifier*> live{nullptr};  // set once, when the ACL build succeeded
  std::atomic<bool> cancelled{false};
  unsigned workers = 1;
  uint32_t cache_entries = 0, cache_min_rules = 0;
  std::vector<std::unique_ptr<FlowCache>> caches;  // per worker; set before `live`
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;  // build over (whatever the outcome)
  std::string reason = "building";
  std::unique_ptr<AclClassifier> acl;
  double acl_build_ms = -1;
  uint32_t acl_rules = 0;
  unsigned key_bytes = 0;

  void finish(std::string why) {
    std::lock_guard<std::mutex> lock(mu);
    reason = std::move(why);
    done = true;
    cv.notify_all();
  }
};

namespace {

void build_acl(const std::shared_ptr<MultiClassifierState>& st, Mode mode) {
  if (st->cancelled.load()) return st->finish("cancelled");
  auto t0 = std::chrono::steady_clock::now();
  std::string why;
  if (!obi::io::dpdk_ensure_light(why)) {
    static std::once_flag noted;
    std::call_once(noted, [&] {
      std::fprintf(stderr, "classifier: %s; header classification stays on bit vectors\n", why.c_str());
    });
    if (mode == Mode::kAcl) std::fprintf(stderr, "classifier: OBI_CLASSIFIER=acl but %s\n", why.c_str());
    return st->finish(why);
  }
  std::vector<uint32_t> counts;
  for (const auto& c : st->bv) counts.push_back(c.rule_count());
  auto rule_at = [](const void* ctx, unsigned k, uint32_t i) -> const openbox::HeaderMatch& {
    return static_cast<const MultiClassifierState*>(ctx)->bv[k].rule(i);
  };
  auto acl = AclClassifier::build(static_cast<unsigned>(st->bv.size()), counts, rule_at, st.get(), why, &st->cancelled);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!acl) {
    if (mode == Mode::kAcl && !st->cancelled.load())
      std::fprintf(stderr, "classifier: ACL build failed: %s\n", why.c_str());
    return st->finish(why);
  }
  // one cache per worker, made here (not on the packet path) and published with `live`
  std::vector<std::unique_ptr<FlowCache>> caches;
  if (st->cache_entries && acl->acl_rules() >= st->cache_min_rules) {
    try {
      for (unsigned w = 0; w < st->workers; ++w)
        if (auto c = acl->make_cache(st->cache_entries)) caches.push_back(std::move(c));
    } catch (const std::bad_alloc&) {  // lookups go on without caches
      caches.clear();
      static std::once_flag noted;
      std::call_once(noted,
                     [] { std::fprintf(stderr, "classifier: no memory for flow caches; looking up every packet\n"); });
    }
  }
  std::unique_ptr<AclClassifier> discard;
  {
    std::lock_guard<std::mutex> lock(st->mu);
    st->done = true;
    if (st->cancelled.load()) {
      discard = std::move(acl);  // freed below, outside the lock
      st->reason = "cancelled";
    } else {
      st->acl_build_ms = ms;
      st->acl_rules = acl->acl_rules();
      st->key_bytes = acl->key_bytes();
      st->acl = std::move(acl);
      st->caches = std::move(caches);
      st->live.store(st->acl.get(), std::memory_order_release);
      st->reason.clear();
    }
    st->cv.notify_all();
  }
}

}  // namespace

struct MultiClassifier::Impl {
  std::shared_ptr<MultiClassifierState> st = std::make_shared<MultiClassifierState>();
  double compile_ms = 0;
  unsigned workers = 1;
  bool build_pending = false;  // compile(..., kOnStart) left the ACL build to start_build()
  Mode mode = Mode::kAuto;

  void retire() {
    // A build still running finds the flag and drops its result; the state (and an ACL
    // context already live) is freed when the last of this object and the build lets go.
    st->cancelled.store(true);
  }
};

MultiClassifier::MultiClassifier(unsigned workers) : impl_(std::make_unique<Impl>()) {
  impl_->workers = workers ? workers : 1;
  impl_->st->done = true;
  impl_->st->reason = "no rules";
}

MultiClassifier::~MultiClassifier() { impl_->retire(); }

void MultiClassifier::compile(std::vector<std::vector<openbox::HeaderMatch>> sets, Build build) {
  std::vector<openbox::SharedHeaderMatches> shared;
  shared.reserve(sets.size());
  for (auto& s : sets) shared.push_back(std::make_shared<const std::vector<openbox::HeaderMatch>>(std::move(s)));
  compile(std::move(shared), build);
}

void MultiClassifier::compile(std::vector<openbox::SharedHeaderMatches> sets, Build build) {
  auto t0 = std::chrono::steady_clock::now();
  impl_->retire();
  impl_->build_pending = false;
  auto st = std::make_shared<MultiClassifierState>();
  st->workers = impl_->workers;
  const CacheConfig cc = cache_config_from_env();
  st->cache_entries = cc.entries;
  st->cache_min_rules = cc.min_rules;
  st->bv.resize(sets.size());
  uint64_t total = 0;
  for (const auto& s : sets) total += s ? s->size() : 0;
  // The sets compile independently: with several (a fused lookup holds the rules of two
  // firewalls), every other one compiles on a helper thread meanwhile.
  auto compile_from = [&](size_t first) {
    for (size_t k = first; k < sets.size(); k += 2) st->bv[k].compile(std::move(sets[k]));
  };
  if (sets.size() < 2) {
    compile_from(0);
  } else {
    std::exception_ptr helper_error, own_error;
    std::thread helper([&] {
      try {
        compile_from(1);
      } catch (...) {
        helper_error = std::current_exception();
      }
    });
    try {
      compile_from(0);
    } catch (...) {
      own_error = std::current_exception();
    }
    helper.join();
    if (own_error) std::rethrow_exception(own_error);
    if (helper_error) std::rethrow_exception(helper_error);
  }
  impl_->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  impl_->st = st;
  const Mode mode = mode_from_env();
  if (mode == Mode::kBitvector) {
    st->done = true;
    st->reason = "disabled (OBI_CLASSIFIER=bitvector)";
    return;
  }
  if (total == 0 || sets.size() > kMaxSets) {
    st->done = true;
    st->reason = total ? "too many sets" : "no rules";
    return;
  }
  impl_->mode = mode;
  impl_->build_pending = true;
  if (build == Build::kNow) {
    start_build();
  } else {
    std::lock_guard<std::mutex> lock(st->mu);
    st->reason = "not started";
  }
}

void MultiClassifier::start_build() {
  if (!impl_->build_pending) return;
  impl_->build_pending = false;
  std::shared_ptr<MultiClassifierState> st = impl_->st;
  {
    std::lock_guard<std::mutex> lock(st->mu);
    st->reason = "building";
  }
  Builder::get().submit([st, mode = impl_->mode] { build_acl(st, mode); });
}

unsigned MultiClassifier::set_count() const { return static_cast<unsigned>(impl_->st->bv.size()); }
uint32_t MultiClassifier::rule_count(unsigned set) const { return impl_->st->bv[set].rule_count(); }
const openbox::HeaderMatch& MultiClassifier::rule(unsigned set, uint32_t i) const { return impl_->st->bv[set].rule(i); }

void MultiClassifier::classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const {
  const MultiClassifierState& st = *impl_->st;
  if (const AclClassifier* acl = st.live.load(std::memory_order_acquire)) {
    acl->classify_batch(pkts, n, out);
    return;
  }
  const unsigned k = static_cast<unsigned>(st.bv.size());
  if (k == 1) {
    st.bv[0].classify_batch(pkts, n, out);
    return;
  }
  int32_t one[kBatchSize];
  for (unsigned s = 0; s < k; ++s) {
    st.bv[s].classify_batch(pkts, n, one);
    for (uint32_t i = 0; i < n; ++i) out[i * k + s] = one[i];
  }
}

void MultiClassifier::classify_batch(Packet* const* pkts, uint32_t n, int32_t* out, unsigned worker) const {
  const MultiClassifierState& st = *impl_->st;
  if (const AclClassifier* acl = st.live.load(std::memory_order_acquire)) {
    acl->classify_batch(pkts, n, out, worker < st.caches.size() ? st.caches[worker].get() : nullptr);
    return;
  }
  classify_batch(pkts, n, out);
}

MultiClassifier::CacheStats MultiClassifier::cache_stats() const {
  const MultiClassifierState& st = *impl_->st;
  CacheStats s;
  if (!st.live.load(std::memory_order_acquire)) return s;  // the caches come with `live`
  for (const auto& c : st.caches) {
    FlowCache::Stats w = c->stats();
    s.entries = c->entries();
    s.hits += w.hits;
    s.misses += w.misses;
    s.bypassed += w.bypassed;
  }
  return s;
}

const char* MultiClassifier::engine() const {
  return impl_->st->live.load(std::memory_order_acquire) ? "acl" : "bitvector";
}

std::string MultiClassifier::engine_reason() const {
  std::lock_guard<std::mutex> lock(impl_->st->mu);
  return impl_->st->reason;
}

bool MultiClassifier::wait_ready(std::chrono::milliseconds timeout) const {
  MultiClassifierState& st = *impl_->st;
  std::unique_lock<std::mutex> lock(st.mu);
  st.cv.wait_for(lock, timeout, [&] { return st.done; });
  return st.live.load() != nullptr;
}

MultiClassifier::Stats MultiClassifier::stats() const {
  MultiClassifierState& st = *impl_->st;
  std::lock_guard<std::mutex> lock(st.mu);
  return Stats{impl_->compile_ms, st.acl_build_ms, st.acl_rules, st.key_bytes};
}

}  // namespace obi::blocks
