// RingEventSink: the EventSink of the runtime (and of block tests).
//
// One bounded single-producer/single-consumer ring per worker, with fixed-size slots
// allocated up front: post() copies the strings and the packet excerpt into the next slot
// (truncating what does not fit) and never allocates or blocks; a full ring drops the
// event and counts it. drain() runs on the control thread and turns slots into Events.
// A slot's strings and excerpt are packed one after the other from its start, so an
// alert with a short message and no excerpt writes one or two cache lines, not the whole
// slot. Timestamps come from the worker's per-batch monotonic clock, turned into wall
// time with the offset between the clocks as the drainer reads it: no clock read per event.
// An alert's slot also holds the packet's timestamp and header fields (PacketFields, a
// fixed copy out of the headers the classifiers already parsed); a log's does not.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/element.hh"
#include "engine/packet_fields.hh"
#include "engine/runtime.hh"

namespace obi {

class RingEventSink final : public EventSink {
 public:
  static constexpr uint32_t kMaxMessage = 512;
  static constexpr uint32_t kMaxName = 64;
  static constexpr uint32_t kMaxPacket = 1600;

  RingEventSink(unsigned workers, uint32_t slots_per_worker);
  ~RingEventSink() override;

  void post(Kind kind, std::string_view origin_block, std::string_view app_id, std::string_view message, int severity,
            Packet& p, int packet_size, unsigned worker, uint64_t now_ns) override;

  // Moves up to `max` events (oldest first per worker) into `out`; returns how many.
  std::size_t drain(std::vector<Event>& out, std::size_t max);
  uint64_t dropped() const;

 private:
  // 256-byte slots hold the packed strings and excerpt when they fit (the usual alert or
  // log); longer ones go to the slot's share of a larger area the ring keeps beside it.
  static constexpr uint32_t kInline = 256 - 26 - sizeof(PacketFields);  // what is left after the header
  static constexpr uint32_t kLarge = kMaxName * 2 + kMaxMessage + kMaxPacket;
  struct alignas(256) Slot {
    uint64_t mono_ns;
    uint64_t packet_ns;  // Packet::timestamp_ns (alerts)
    uint8_t kind;
    uint8_t severity;
    uint16_t origin_len, app_len, msg_len;
    uint16_t pkt_len;
    PacketFields fields;  // alerts only
    char bytes[kInline];  // origin, app, message, packet, packed
  };
  static_assert(sizeof(Slot) == 256, "one slot, four cache lines");
  struct alignas(64) Ring {
    std::atomic<uint64_t> head{0};              // written by the worker
    alignas(64) std::atomic<uint64_t> tail{0};  // written by the drainer
    alignas(64) std::atomic<uint64_t> dropped{0};
    std::unique_ptr<Slot[]> slots;
    std::unique_ptr<char[]> large;  // kLarge bytes per slot, touched only when used
  };
  // Where slot `index`'s strings and excerpt are (its lengths set): in the slot, or its
  // share of the large area.
  char* bytes_of(Ring& r, Slot& s, uint64_t index) const;

  uint32_t size_;
  std::vector<Ring> rings_;
  uint64_t next_id_ = 1;
  unsigned next_ring_ = 0;
};

}  // namespace obi
