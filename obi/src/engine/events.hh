// RingEventSink: the EventSink of the runtime (and of block tests).
//
// One bounded single-producer/single-consumer ring per worker, with fixed-size slots
// allocated up front: post() copies the strings and the packet excerpt into the next slot
// (truncating what does not fit) and never allocates or blocks; a full ring drops the
// event and counts it. drain() runs on the control thread and turns slots into Events.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/element.hh"
#include "engine/runtime.hh"

namespace obi {

class RingEventSink final : public EventSink {
 public:
  static constexpr uint32_t kMaxMessage = 512;
  static constexpr uint32_t kMaxName = 64;
  static constexpr uint32_t kMaxPacket = 1600;

  RingEventSink(unsigned workers, uint32_t slots_per_worker);
  ~RingEventSink() override;

  void post(Kind kind, std::string_view origin_block, std::string_view app_id,
            std::string_view message, int severity, const Packet& p, int packet_size,
            unsigned worker) override;

  // Moves up to `max` events (oldest first per worker) into `out`; returns how many.
  std::size_t drain(std::vector<Event>& out, std::size_t max);
  uint64_t dropped() const;

 private:
  struct Slot {
    uint8_t kind;
    int32_t severity;
    double timestamp;
    uint16_t origin_len, app_len, msg_len, pkt_len;
    char origin[kMaxName];
    char app[kMaxName];
    char msg[kMaxMessage];
    uint8_t pkt[kMaxPacket];
  };
  struct alignas(64) Ring {
    std::atomic<uint64_t> head{0};   // written by the worker
    alignas(64) std::atomic<uint64_t> tail{0};   // written by the drainer
    alignas(64) std::atomic<uint64_t> dropped{0};
    std::unique_ptr<Slot[]> slots;
  };
  uint32_t size_;
  std::vector<Ring> rings_;
  uint64_t next_id_ = 1;
  unsigned next_ring_ = 0;
};

}  // namespace obi
