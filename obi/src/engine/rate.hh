// Counters and rates for block handles (count, byte_count, rate, byte_rate).
//
// Each worker owns a slot: it adds packets and bytes, and about every 100 ms folds the
// packets seen since the last tick into an exponentially weighted moving average
// (weight 1/4 per tick). The control thread sums the slots; a reset records the current
// totals as the new zero, so it never races with the workers' plain stores.
#pragma once

#include <atomic>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "engine/element.hh"

namespace obi {

class RateMeter {
 public:
  explicit RateMeter(unsigned workers) : slots_(workers) {}

  void add(unsigned worker, uint64_t packets, uint64_t bytes, uint64_t now_ns) {
    Slot& s = slots_[worker];
    s.packets.add(packets);
    s.bytes.add(bytes);
    if (s.tick_ns == 0) { s.tick_ns = now_ns; s.tick_packets = s.packets.get(); s.tick_bytes = s.bytes.get(); return; }
    uint64_t dt = now_ns - s.tick_ns;
    if (dt < 100000000ull) return;
    double sec = dt / 1e9;
    fold(s.rate, (s.packets.get() - s.tick_packets) / sec);
    fold(s.byte_rate, (s.bytes.get() - s.tick_bytes) / sec);
    s.tick_ns = now_ns;
    s.tick_packets = s.packets.get();
    s.tick_bytes = s.bytes.get();
  }

  uint64_t count() const { uint64_t n = 0; slots_.for_each([&](const Slot& s) { n += s.packets.get(); }); return n - base_packets_; }
  uint64_t byte_count() const { uint64_t n = 0; slots_.for_each([&](const Slot& s) { n += s.bytes.get(); }); return n - base_bytes_; }
  double rate() const { double r = 0; slots_.for_each([&](const Slot& s) { r += s.rate.load(std::memory_order_relaxed); }); return r; }
  double byte_rate() const { double r = 0; slots_.for_each([&](const Slot& s) { r += s.byte_rate.load(std::memory_order_relaxed); }); return r; }

  void reset() {
    uint64_t p = 0, b = 0;
    slots_.for_each([&](const Slot& s) { p += s.packets.get(); b += s.bytes.get(); });
    base_packets_ = p;
    base_bytes_ = b;
    for (unsigned w = 0; w < slots_.size(); ++w) {
      slots_[w].rate.store(0, std::memory_order_relaxed);
      slots_[w].byte_rate.store(0, std::memory_order_relaxed);
    }
  }

  // Answers count / byte_count / rate / byte_rate; returns false for other handles.
  bool read(std::string_view handle, nlohmann::json& out) const {
    if (handle == "count") out = count();
    else if (handle == "byte_count") out = byte_count();
    else if (handle == "rate") out = rate();
    else if (handle == "byte_rate") out = byte_rate();
    else return false;
    return true;
  }

 private:
  static void fold(std::atomic<double>& ewma, double sample) {
    double v = ewma.load(std::memory_order_relaxed);
    ewma.store(v + (sample - v) * 0.25, std::memory_order_relaxed);
  }
  struct Slot {
    Counter packets, bytes;
    std::atomic<double> rate{0}, byte_rate{0};
    uint64_t tick_ns = 0, tick_packets = 0, tick_bytes = 0;
  };
  PerWorker<Slot> slots_;
  uint64_t base_packets_ = 0, base_bytes_ = 0;
};

}  // namespace obi
