#include "engine/events.hh"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace obi {

RingEventSink::RingEventSink(unsigned workers, uint32_t slots_per_worker)
    : size_(std::max<uint32_t>(slots_per_worker, 1)), rings_(std::max(workers, 1u)) {
  for (auto& r : rings_) r.slots.reset(new Slot[size_]);
}

RingEventSink::~RingEventSink() = default;

namespace {
uint16_t copy_in(char* dst, std::string_view s, uint32_t cap) {
  uint32_t n = std::min<uint32_t>(static_cast<uint32_t>(s.size()), cap);
  std::memcpy(dst, s.data(), n);
  return static_cast<uint16_t>(n);
}
}  // namespace

void RingEventSink::post(Kind kind, std::string_view origin_block, std::string_view app_id,
                         std::string_view message, int severity, const Packet& p,
                         int packet_size, unsigned worker) {
  Ring& r = rings_[worker < rings_.size() ? worker : 0];
  uint64_t head = r.head.load(std::memory_order_relaxed);
  if (head - r.tail.load(std::memory_order_acquire) >= size_) {
    r.dropped.store(r.dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  Slot& s = r.slots[head % size_];
  s.kind = static_cast<uint8_t>(kind);
  s.severity = severity;
  s.timestamp = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  s.origin_len = copy_in(s.origin, origin_block, kMaxName);
  s.app_len = copy_in(s.app, app_id, kMaxName);
  s.msg_len = copy_in(s.msg, message, kMaxMessage);
  uint32_t want = packet_size < 0 ? p.len : std::min<uint32_t>(static_cast<uint32_t>(packet_size), p.len);
  want = std::min(want, kMaxPacket);
  if (want && p.data) std::memcpy(s.pkt, p.data, want);
  s.pkt_len = static_cast<uint16_t>(want);
  r.head.store(head + 1, std::memory_order_release);
}

std::size_t RingEventSink::drain(std::vector<Event>& out, std::size_t max) {
  std::size_t taken = 0;
  // Round-robin over the rings so one busy worker cannot starve the others.
  for (std::size_t k = 0; k < rings_.size() && taken < max; ++k) {
    Ring& r = rings_[(next_ring_ + k) % rings_.size()];
    uint64_t tail = r.tail.load(std::memory_order_relaxed);
    uint64_t head = r.head.load(std::memory_order_acquire);
    while (tail < head && taken < max) {
      const Slot& s = r.slots[tail % size_];
      Event e;
      e.alert = s.kind == static_cast<uint8_t>(Kind::kAlert);
      e.id = next_id_++;
      e.timestamp = s.timestamp;
      e.message.assign(s.msg, s.msg_len);
      e.severity = s.severity;
      e.packet.assign(reinterpret_cast<const char*>(s.pkt), s.pkt_len);
      e.origin_block.assign(s.origin, s.origin_len);
      e.app_id.assign(s.app, s.app_len);
      out.push_back(std::move(e));
      ++tail;
      ++taken;
    }
    r.tail.store(tail, std::memory_order_release);
  }
  next_ring_ = rings_.empty() ? 0 : (next_ring_ + 1) % rings_.size();
  return taken;
}

uint64_t RingEventSink::dropped() const {
  uint64_t d = 0;
  for (const auto& r : rings_) d += r.dropped.load(std::memory_order_relaxed);
  return d;
}

}  // namespace obi
