// PacketPool: a worker's preallocated packet buffers.
//
// Every buffer is kHeadroom + kMaxFrame bytes; the Packet descriptors and the buffers are
// allocated once when the pool is built. alloc() and free() are a pointer push/pop on a
// freelist (one worker only, no locks); alloc() returns nullptr when the pool is empty,
// so a source simply produces fewer packets instead of blocking or allocating.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/packet.hh"

namespace obi {

struct Node;

class PacketPool {
 public:
  explicit PacketPool(uint32_t packets);
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  // A fresh packet: data = buf + kHeadroom, len 0, unparsed; nullptr when exhausted.
  Packet* alloc() {
    if (top_ == 0) return nullptr;
    Packet* p = free_[--top_];
    p->data = p->buf + kHeadroom;
    p->len = 0;
    p->flow_hash = 0;
    p->timestamp_ns = 0;
    p->input = 0;
    p->parsed = false;
    p->meta.clear();
    p->values.clear();
    p->pre.block = nullptr;
    p->first_timestamp_ns = 0;
    p->undo_tag = 0;
    return p;
  }
  // Returns p, and the transaction copies it carries (Packet::undo), to the freelist.
  void free(Packet* p) {
    do {
      Packet* next = p->undo;
      p->undo = nullptr;
      free_[top_++] = p;
      p = next;
    } while (p != nullptr);
  }

  // A packet holding a copy of `len` bytes (truncated to kMaxFrame); nullptr when exhausted.
  Packet* alloc_copy(const uint8_t* bytes, uint32_t len);
  // A copy of p (bytes and metadata, same headroom); nullptr when exhausted.
  Packet* clone(const Packet& p);

  // The worker's pending pushes (Context::defer): batches that wait, last in first out,
  // with the node and input port they go to. Only this pool's packets wait here, each once,
  // so capacity() entries and packets always suffice; false if they do not (the caller
  // drops the batch).
  bool defer(Node* node, uint16_t port, const Batch& b) {
    if (waiting_ == pending_.size() || pending_top_ + b.n > pending_pkts_.size()) return false;
    pending_[waiting_++] = {node, port, b.n};
    for (uint32_t i = 0; i < b.n; ++i) pending_pkts_[pending_top_++] = b.pkts[i];
    return true;
  }
  bool take_pending(Node*& node, uint16_t& port, Batch& b) {
    if (waiting_ == 0) return false;
    const Pending& p = pending_[--waiting_];
    node = p.node;
    port = p.port;
    b.n = p.count;
    pending_top_ -= p.count;
    for (uint32_t i = 0; i < p.count; ++i) b.pkts[i] = pending_pkts_[pending_top_ + i];
    return true;
  }

  uint32_t available() const { return top_; }
  uint32_t capacity() const { return static_cast<uint32_t>(packets_.size()); }
  bool owns(const Packet* p) const { return p >= packets_.data() && p < packets_.data() + packets_.size(); }

 private:
  std::vector<Packet> packets_;
  std::vector<Packet*> free_;
  uint32_t top_ = 0;
  std::unique_ptr<uint8_t[]> memory_;  // not zeroed: untouched pages cost no RSS
  struct Pending {
    Node* node;
    uint16_t port;
    uint32_t count;
  };
  std::vector<Pending> pending_;
  std::vector<Packet*> pending_pkts_;
  uint32_t waiting_ = 0, pending_top_ = 0;
};

// Symmetric hash of (src ip, dst ip, proto, src port, dst port): both directions of a
// flow land on the same worker. Parses the packet if needed; non-IP frames hash on MACs.
uint32_t flow_hash(Packet& p);

}  // namespace obi
