#include "lib/output_stats.hh"

#include <chrono>
#include <cmath>
#include <string>

namespace obi::blocks {

uint64_t clock_now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

namespace {

// 1 - exp(-x) without the exp for small x (one per fold per output adds up on the data path)
inline double one_minus_exp(double x) { return x < 0.25 ? x * (1 - x * (0.5 - x / 6)) : 1.0 - std::exp(-x); }

// A rate last folded at worker time `last`, decayed to `now`. Decay applies only when
// `now` is on the workers' clock: within an hour after `last` (a test driving its own
// clock reads with the steady clock far from it).
double decay(double r, uint64_t last, uint64_t now, double tau_s) {
  constexpr uint64_t kHour = 3600ull * 1'000'000'000ull;
  if (last != 0 && now > last && now - last < kHour) r *= std::exp(-static_cast<double>(now - last) * 1e-9 / tau_s);
  return r;
}

}  // namespace

double ewma_fold(double r, double amount, double dt_s, double tau_s) {
  return r + one_minus_exp(dt_s / tau_s) * (amount / dt_s - r);
}

bool EwmaRate::add(double amount, uint64_t now_ns, double tau_s) {
  pending += amount;
  uint64_t last = last_ns.load(std::memory_order_relaxed);
  if (!started) {
    started = true;
    last_ns.store(now_ns, std::memory_order_relaxed);
    return false;
  }
  if (now_ns < last + kTickNs) return false;
  double dt = static_cast<double>(now_ns - last) * 1e-9;
  rate.store(ewma_fold(rate.load(std::memory_order_relaxed), pending, dt, tau_s), std::memory_order_relaxed);
  pending = 0;
  last_ns.store(now_ns, std::memory_order_relaxed);
  return true;
}

double EwmaRate::read(double tau_s) const {
  return decay(rate.load(std::memory_order_relaxed), last_ns.load(std::memory_order_relaxed), clock_now_ns(), tau_s);
}

void OutputStats::fold(Slot& s, uint64_t now_ns) const {
  if (!s.started) {
    s.started = true;
    s.last_ns.store(now_ns, std::memory_order_relaxed);
    return;
  }
  double dt = static_cast<double>(now_ns - s.last_ns.load(std::memory_order_relaxed)) * 1e-9;
  s.pps.store(ewma_fold(s.pps.load(std::memory_order_relaxed), s.pending_packets, dt, tau_s_),
              std::memory_order_relaxed);
  s.bps.store(ewma_fold(s.bps.load(std::memory_order_relaxed), s.pending_bytes, dt, tau_s_), std::memory_order_relaxed);
  s.pending_packets = s.pending_bytes = 0;
  s.last_ns.store(now_ns, std::memory_order_relaxed);
}

double OutputStats::decayed(const Slot& s, const std::atomic<double>& r, uint64_t now_ns) const {
  return decay(r.load(std::memory_order_relaxed), s.last_ns.load(std::memory_order_relaxed), now_ns, tau_s_);
}

OutputStats::OutputStats(uint32_t outputs, unsigned workers, double tau_s)
    : outputs_(outputs),
      tau_s_(tau_s),
      slots_(workers ? workers : 1),
      base_packets_(new std::atomic<uint64_t>[outputs ? outputs : 1]),
      base_bytes_(new std::atomic<uint64_t>[outputs ? outputs : 1]) {
  for (unsigned w = 0; w < slots_.size(); ++w) slots_[w].reset(new Slot[outputs ? outputs : 1]);
  for (uint32_t i = 0; i < outputs; ++i) {
    base_packets_[i] = 0;
    base_bytes_[i] = 0;
  }
}

uint64_t OutputStats::count(uint32_t o) const {
  uint64_t s = 0;
  slots_.for_each([&](const auto& w) { s += w[o].packets.get(); });
  return s - base_packets_[o].load(std::memory_order_relaxed);
}

uint64_t OutputStats::byte_count(uint32_t o) const {
  uint64_t s = 0;
  slots_.for_each([&](const auto& w) { s += w[o].bytes.get(); });
  return s - base_bytes_[o].load(std::memory_order_relaxed);
}

double OutputStats::rate(uint32_t o) const { return rate(o, clock_now_ns()); }

double OutputStats::byte_rate(uint32_t o) const { return byte_rate(o, clock_now_ns()); }

double OutputStats::rate(uint32_t o, uint64_t now_ns) const {
  double s = 0;
  slots_.for_each([&](const auto& w) { s += decayed(w[o], w[o].pps, now_ns); });
  return s;
}

double OutputStats::byte_rate(uint32_t o, uint64_t now_ns) const {
  double s = 0;
  slots_.for_each([&](const auto& w) { s += decayed(w[o], w[o].bps, now_ns); });
  return s;
}

void OutputStats::reset(uint32_t o) {
  base_packets_[o].store(0, std::memory_order_relaxed);
  base_bytes_[o].store(0, std::memory_order_relaxed);
  base_packets_[o].store(count(o), std::memory_order_relaxed);
  base_bytes_[o].store(byte_count(o), std::memory_order_relaxed);
  for (unsigned w = 0; w < slots_.size(); ++w) {
    slots_[w][o].pps.store(0, std::memory_order_relaxed);
    slots_[w][o].bps.store(0, std::memory_order_relaxed);
  }
}

void OutputStats::reset_all() {
  for (uint32_t o = 0; o < outputs_; ++o) reset(o);
}

bool split_indexed(std::string_view handle, std::string_view& prefix, uint32_t& index) {
  size_t us = handle.rfind('_');
  if (us == std::string_view::npos || us + 1 >= handle.size() || handle.size() - us > 10) return false;
  uint32_t v = 0;
  for (size_t i = us + 1; i < handle.size(); ++i) {
    char c = handle[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  prefix = handle.substr(0, us);
  index = v;
  return true;
}

bool OutputStats::read_handle(std::string_view h, nlohmann::json& out) const {
  auto all = [&](auto get) {
    out = nlohmann::json::array();
    for (uint32_t o = 0; o < outputs_; ++o) out.push_back(get(o));
    return true;
  };
  if (h == "count") return all([&](uint32_t o) { return count(o); });
  if (h == "byte_count") return all([&](uint32_t o) { return byte_count(o); });
  if (h == "rate") return all([&](uint32_t o) { return rate(o); });
  if (h == "byte_rate") return all([&](uint32_t o) { return byte_rate(o); });
  std::string_view prefix;
  uint32_t i;
  if (!split_indexed(h, prefix, i) || i >= outputs_) return false;
  if (prefix == "count") {
    out = count(i);
    return true;
  }
  if (prefix == "byte_count") {
    out = byte_count(i);
    return true;
  }
  if (prefix == "rate") {
    out = rate(i);
    return true;
  }
  if (prefix == "byte_rate") {
    out = byte_rate(i);
    return true;
  }
  return false;
}

bool OutputStats::read_scalar_handle(std::string_view h, nlohmann::json& out) const {
  if (outputs_ == 0) return false;
  if (h == "count") out = count(0);
  else if (h == "byte_count") out = byte_count(0);
  else if (h == "rate") out = rate(0);
  else if (h == "byte_rate") out = byte_rate(0);
  else return false;
  return true;
}

bool OutputStats::write_handle(std::string_view h, const nlohmann::json&) {
  if (h == "reset_counts" || h == "reset_all_counts") {
    reset_all();
    return true;
  }
  std::string_view prefix;
  uint32_t i;
  if (split_indexed(h, prefix, i) && prefix == "reset" && i < outputs_) {
    reset(i);
    return true;
  }
  return false;
}

}  // namespace obi::blocks
