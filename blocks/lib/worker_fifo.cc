#include "lib/worker_fifo.hh"

#include <algorithm>

namespace obi::blocks {

WorkerFifo::WorkerFifo(unsigned workers, uint32_t capacity) : capacity_(capacity), slots_(workers ? workers : 1) {
  for (unsigned w = 0; w < slots_.size(); ++w) slots_[w].ring.init(capacity_);
}

void WorkerFifo::release_some(Context& ctx, const Outputs& out, uint16_t port) {
  PacketRing& r = ring(ctx);
  uint32_t budget = kReleasePerTask;
  while (!r.empty() && budget > 0) {
    Batch b;
    while (!r.empty() && budget > 0 && !b.full()) {
      b.add(r.pop());
      --budget;
    }
    out.emit(port, b, ctx);
  }
}

void WorkerFifo::release_all(Context& ctx, const Outputs& out, uint16_t port) {
  PacketRing& r = ring(ctx);
  while (!r.empty()) {
    Batch b;
    while (!r.empty() && !b.full()) b.add(r.pop());
    out.emit(port, b, ctx);
  }
}

uint64_t WorkerFifo::length() const {
  uint64_t n = 0;
  slots_.for_each([&](const Slot& s) { n += s.ring.length(); });
  return n;
}

uint64_t WorkerFifo::drops() const {
  uint64_t n = 0;
  slots_.for_each([&](const Slot& s) { n += s.drops.get(); });
  return n;
}

uint32_t WorkerFifo::highwater() const {
  uint32_t m = 0;
  slots_.for_each([&](const Slot& s) { m = std::max(m, s.highwater.load(std::memory_order_relaxed)); });
  return m;
}

bool WorkerFifo::read_handle(std::string_view h, nlohmann::json& out) const {
  if (h == "length") out = length();
  else if (h == "drops") out = drops();
  else if (h == "highwater_length") out = highwater();
  else if (h == "capacity") out = capacity_;
  else return false;
  return true;
}

bool WorkerFifo::write_handle(std::string_view h) {
  if (h == "reset_counts") {
    for (unsigned w = 0; w < slots_.size(); ++w) {
      slots_[w].drops.reset();
      slots_[w].highwater.store(0, std::memory_order_relaxed);
    }
    return true;
  }
  if (h == "reset") {
    reset_gen_.fetch_add(1, std::memory_order_release);
    return true;
  }
  return false;
}

}  // namespace obi::blocks
