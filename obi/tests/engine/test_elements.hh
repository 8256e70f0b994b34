// Test-only block types for engine tests, added to the catalogue at run time:
//   TestSource  endless source; packet i of worker w carries (w, i) in its payload
//   TestPass    forwards everything (config "tag" makes distinct configs)
//   TestSink    checks per-worker sequence continuity, counts packets as sent
//   TestHold    holds packets until it leaves the graph
//   TestCounted forwards everything; TestCounted::alive() counts the instances that exist
//               (config "tag" makes distinct configs)
#pragma once

#include <atomic>
#include <cstring>

#include "catalogue/catalogue.hh"
#include "engine/element.hh"
#include "engine/pool.hh"
#include "engine/testing.hh"

namespace obi::testing {

class TestSource final : public Element {
 public:
  explicit TestSource(const ElementArgs& a) : seq_(a.workers), produced_(a.workers) {
    limit_ = a.config.value("limit", uint64_t(0));
    frame_ = udp4("10.0.0.1", "10.0.0.2", 1, 2, std::string(16, '\0'));
  }
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs&) override { ctx.drop(b); }
  bool poll(Batch& b, Context& ctx) override {
    uint64_t& s = seq_[ctx.worker];
    while (b.n < kBatchSize && (limit_ == 0 || s < limit_)) {
      Packet* p = ctx.pool->alloc_copy(frame_.data(), static_cast<uint32_t>(frame_.size()));
      if (!p) break;
      uint64_t w = ctx.worker;
      std::memcpy(p->data + 42, &w, 8);
      std::memcpy(p->data + 50, &s, 8);
      ++s;
      b.add(p);
    }
    produced_[ctx.worker].add(b.n);
    return limit_ == 0 || s < limit_;
  }
  nlohmann::json read(std::string_view h) const override {
    if (h == "count") {
      uint64_t n = 0;
      produced_.for_each([&](const Counter& c) { n += c.get(); });
      return n;
    }
    return Element::read(h);
  }

 private:
  PerWorker<uint64_t> seq_;
  PerWorker<Counter> produced_;
  uint64_t limit_ = 0;
  Bytes frame_;
};

class TestPass final : public Element {
 public:
  explicit TestPass(const ElementArgs&) {}
  void push(uint16_t, Batch& b, Context& ctx, const Outputs& out) override { out.emit(0, b, ctx); }
};

class TestSink final : public Element {
 public:
  explicit TestSink(const ElementArgs& a) : next_(a.workers), got_(a.workers) {}
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs&) override {
    uint64_t& next = next_[ctx.worker];
    for (uint32_t i = 0; i < b.n; ++i) {
      uint64_t w, s;
      std::memcpy(&w, b.pkts[i]->data + 42, 8);
      std::memcpy(&s, b.pkts[i]->data + 50, 8);
      if (w != ctx.worker || s != next) gaps_.fetch_add(1, std::memory_order_relaxed);
      next = s + 1;
      ctx.pool->free(b.pkts[i]);
    }
    ctx.count_out(b.n, b.bytes());
    got_[ctx.worker].add(b.n);
    b.n = 0;
  }
  nlohmann::json read(std::string_view h) const override {
    if (h == "count") {
      uint64_t n = 0;
      got_.for_each([&](const Counter& c) { n += c.get(); });
      return n;
    }
    if (h == "gaps") return gaps_.load();
    return Element::read(h);
  }

 private:
  PerWorker<uint64_t> next_;
  PerWorker<Counter> got_;
  std::atomic<uint64_t> gaps_{0};
};

// Holds up to 1000 packets per worker (drops the rest) until it leaves the graph, when
// release() drops them: a stand-in for queues and shapers.
class TestHold final : public Element {
 public:
  explicit TestHold(const ElementArgs& a) : held_(a.workers) {
    for (unsigned w = 0; w < a.workers; ++w) held_[w].reserve(1000);
  }
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs&) override {
    auto& v = held_[ctx.worker];
    for (uint32_t i = 0; i < b.n; ++i) {
      if (v.size() < 1000) v.push_back(b.pkts[i]);
      else ctx.drop(b.pkts[i]);
    }
    b.n = 0;
  }
  void release(Context& ctx, const Outputs&) override {
    for (Packet* p : held_[ctx.worker]) ctx.drop(p);
    held_[ctx.worker].clear();
  }

 private:
  PerWorker<std::vector<Packet*>> held_;
};

class TestCounted final : public Element {
 public:
  explicit TestCounted(const ElementArgs&) { alive().fetch_add(1); }
  ~TestCounted() override { alive().fetch_sub(1); }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs& out) override { out.emit(0, b, ctx); }
  void deactivate() override { deactivated().fetch_add(1); }
  static std::atomic<int>& alive() {
    static std::atomic<int> n{0};
    return n;
  }
  static std::atomic<int>& deactivated() {
    static std::atomic<int> n{0};
    return n;
  }
};

inline void register_test_elements() {
  static bool done = false;
  if (done) return;
  done = true;
  register_element("TestSource",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<TestSource>(a); });
  register_element("TestPass",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<TestPass>(a); });
  register_element("TestSink",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<TestSink>(a); });
  register_element("TestHold",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<TestHold>(a); });
  register_element("TestCounted",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<TestCounted>(a); });
  auto desc = [](const char* name, int in, int out, nlohmann::json config) {
    return nlohmann::json{{"name", name},
                          {"class", "terminal"},
                          {"spec", "extension"},
                          {"required", false},
                          {"description", "test"},
                          {"config", config},
                          {"read_handles", nlohmann::json::array({{{"name", "count"}, {"type", "integer"}}})},
                          {"write_handles", nlohmann::json::array()},
                          {"inputs", in},
                          {"outputs", out}};
  };
  Catalogue& c = Catalogue::builtin();
  c.add(Catalogue::parse(desc("TestSource", 0, 1, nlohmann::json::array({{{"name", "limit"}, {"type", "integer"}}}))));
  c.add(Catalogue::parse(desc("TestPass", 1, 1, nlohmann::json::array({{{"name", "tag"}, {"type", "integer"}}}))));
  c.add(Catalogue::parse(desc("TestSink", 1, 0, nlohmann::json::array())));
  c.add(Catalogue::parse(desc("TestHold", 1, 0, nlohmann::json::array())));
  c.add(Catalogue::parse(desc("TestCounted", 1, 1, nlohmann::json::array({{{"name", "tag"}, {"type", "integer"}}}))));
}

}  // namespace obi::testing
