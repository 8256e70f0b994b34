// PacketRing: a bounded FIFO of packets owned by one worker (queues and shapers).
//
// The slots are allocated once when the block is built; push/pop never allocate.
// length() may be read by the control thread (published with a relaxed store).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "engine/packet.hh"

namespace obi::blocks {

class PacketRing {
 public:
  void init(uint32_t capacity) {
    slots_.reset(new Packet*[capacity ? capacity : 1]);
    cap_ = capacity;
  }
  uint32_t capacity() const { return cap_; }
  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  bool full() const { return n_ >= cap_; }
  uint32_t length() const { return published_.load(std::memory_order_relaxed); }

  void push(Packet* p) {  // caller checks full()
    uint32_t tail = head_ + n_;
    if (tail >= cap_) tail -= cap_;
    slots_[tail] = p;
    ++n_;
    publish();
  }
  Packet* front() const { return slots_[head_]; }
  Packet* pop() {  // caller checks empty()
    Packet* p = slots_[head_];
    if (++head_ == cap_) head_ = 0;
    --n_;
    publish();
    return p;
  }

 private:
  void publish() { published_.store(n_, std::memory_order_relaxed); }

  std::unique_ptr<Packet*[]> slots_;
  uint32_t cap_ = 0;
  uint32_t head_ = 0;
  uint32_t n_ = 0;
  std::atomic<uint32_t> published_{0};
};

}  // namespace obi::blocks
