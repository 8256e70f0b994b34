#include "engine/events.hh"

#include <time.h>

#include <algorithm>
#include <cstring>

namespace obi {

namespace {
int64_t read_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
int64_t wall_minus_monotonic() { return read_ns(CLOCK_REALTIME) - read_ns(CLOCK_MONOTONIC); }
}  // namespace

RingEventSink::RingEventSink(unsigned workers, uint32_t slots_per_worker)
    : size_(std::max<uint32_t>(slots_per_worker, 1)), rings_(std::max(workers, 1u)) {
  // Not value-initialised: the pages of the large area stay untouched until used.
  for (auto& r : rings_) {
    r.slots.reset(new Slot[size_]);
    r.large.reset(new char[std::size_t(size_) * kLarge]);
  }
}

RingEventSink::~RingEventSink() = default;

char* RingEventSink::bytes_of(Ring& r, Slot& s, uint64_t index) const {
  const uint32_t total = uint32_t(s.origin_len) + s.app_len + s.msg_len + s.pkt_len;
  return total <= sizeof(s.bytes) ? s.bytes : r.large.get() + index * kLarge;
}

void RingEventSink::post(Kind kind, std::string_view origin_block, std::string_view app_id, std::string_view message,
                         int severity, Packet& p, int packet_size, unsigned worker, uint64_t now_ns) {
  Ring& r = rings_[worker < rings_.size() ? worker : 0];
  uint64_t head = r.head.load(std::memory_order_relaxed);
  if (head - r.tail.load(std::memory_order_acquire) >= size_) {
    r.dropped.store(r.dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  const uint64_t index = head % size_;
  Slot& s = r.slots[index];
  s.mono_ns = now_ns ? now_ns : uint64_t(read_ns(CLOCK_MONOTONIC));
  s.kind = static_cast<uint8_t>(kind);
  s.severity = static_cast<uint8_t>(severity);
  if (kind == Kind::kAlert) {
    s.packet_ns = p.timestamp_ns;
    s.fields.capture(p);
  }
  s.origin_len = static_cast<uint16_t>(std::min<std::size_t>(origin_block.size(), kMaxName));
  s.app_len = static_cast<uint16_t>(std::min<std::size_t>(app_id.size(), kMaxName));
  s.msg_len = static_cast<uint16_t>(std::min<std::size_t>(message.size(), kMaxMessage));
  uint32_t want = packet_size < 0 ? p.len : std::min<uint32_t>(static_cast<uint32_t>(packet_size), p.len);
  s.pkt_len = static_cast<uint16_t>(p.data ? std::min(want, kMaxPacket) : 0);
  char* at = bytes_of(r, s, index);
  auto put = [&at](const void* from, uint16_t n) {
    if (n) std::memcpy(at, from, n);
    at += n;
  };
  put(origin_block.data(), s.origin_len);
  put(app_id.data(), s.app_len);
  put(message.data(), s.msg_len);
  put(p.data, s.pkt_len);
  r.head.store(head + 1, std::memory_order_release);
}

std::size_t RingEventSink::drain(std::vector<Event>& out, std::size_t max) {
  std::size_t taken = 0;
  // Read now, so that steps of the wall clock (NTP) show in the events that follow them.
  const int64_t offset = wall_minus_monotonic();
  // Round-robin over the rings so one busy worker cannot starve the others.
  for (std::size_t k = 0; k < rings_.size() && taken < max; ++k) {
    Ring& r = rings_[(next_ring_ + k) % rings_.size()];
    uint64_t tail = r.tail.load(std::memory_order_relaxed);
    uint64_t head = r.head.load(std::memory_order_acquire);
    while (tail < head && taken < max) {
      Slot& s = r.slots[tail % size_];
      Event e;
      e.alert = s.kind == static_cast<uint8_t>(Kind::kAlert);
      e.id = next_id_++;
      e.timestamp = double(int64_t(s.mono_ns) + offset) / 1e9;
      if (e.alert) {
        e.packet_timestamp = double(s.packet_ns) / 1e9;
        e.fields = s.fields;
      }
      const char* at = bytes_of(r, s, tail % size_);
      e.origin_block.assign(at, s.origin_len);
      at += s.origin_len;
      e.app_id.assign(at, s.app_len);
      at += s.app_len;
      e.message.assign(at, s.msg_len);
      at += s.msg_len;
      e.packet.assign(at, s.pkt_len);
      e.severity = s.severity;
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
