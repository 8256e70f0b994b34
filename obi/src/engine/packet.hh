// Packets and batches: the unit of work of the OBI data path.
//
// A Packet owns no memory: its bytes live in a buffer of a per-worker PacketPool,
// with headroom in front so that modifiers can push headers (VLAN tags) in place.
// Header offsets are parsed once, lazily, and reused by every classifier on the path;
// a block that changes the layout calls invalidate_headers().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/metadata.hh"

namespace obi {

inline constexpr uint16_t kNoOffset = 0xffff;
inline constexpr uint32_t kHeadroom = 128;
inline constexpr uint32_t kMaxFrame = 9216;  // jumbo frames; longer input frames are dropped and counted
inline constexpr unsigned kBatchSize = 32;

// Offsets (from Packet::data) and key values of the parsed headers.
// Absent layers have offset kNoOffset.
struct Headers {
  uint16_t l3 = kNoOffset;       // IPv4 / IPv6 / ARP header
  uint16_t l4 = kNoOffset;       // TCP / UDP / SCTP / ICMP header (first fragment only)
  uint16_t payload = kNoOffset;  // first byte after the L4 header (or after L3 if no known L4)
  uint16_t eth_type = 0;         // after VLAN tags
  uint16_t vlan_tci = 0;         // outer tag
  uint8_t vlan_count = 0;
  uint8_t ip_proto = 0;
  bool fragment = false;  // IPv4 non-first fragment or IPv6 fragment header
};

// Per-packet metadata (spec 1.3.1): a small fixed area that travels with the packet
// through the graph, so one block can pass a value to the blocks after it. It is part of
// the Packet descriptor (no allocation) and zeroed when the pool hands the packet out;
// clone() copies it. Each field has one writer block, named here.
struct Metadata {
  uint64_t flow_id = 0;       // FlowTracker: id of the bidirectional flow (0: none / untracked)
  uint32_t flow_packets = 0;  // FlowTracker: packets of the flow so far, this one included
  uint8_t flow_reverse = 0;   // FlowTracker: 1 when the packet goes responder -> initiator
  uint8_t flow_new = 0;       // FlowTracker: 1 on the packet that started the flow
  uint16_t reserved = 0;

  void clear() { *this = Metadata{}; }
};
static_assert(sizeof(Metadata) == 16, "keep the metadata area small");

// Header lookups done ahead for one downstream block (fusion, design/merge.md step 3): a
// classifier that performs a later block's header lookups in its own pass leaves that
// block's first matches here. `block` names the element the results are for (nullptr:
// none); that element uses them once and clears them, and any other element ignores them.
// Zeroed when the pool hands the packet out; clone() copies it.
struct Precomputed {
  static constexpr unsigned kSets = 2;
  const void* block = nullptr;
  int32_t rule[kSets] = {-1, -1};  // first matching rule per rule set of `block`, -1 none
};
static_assert(sizeof(Precomputed) == 16, "keep the annotation small");

struct Packet {
  uint8_t* data = nullptr;    // first byte of the Ethernet frame
  uint32_t len = 0;           // frame length in bytes
  uint32_t flow_hash = 0;     // symmetric 5-tuple hash, set at input
  uint64_t timestamp_ns = 0;  // capture / arrival time
  uint8_t* buf = nullptr;     // start of the backing buffer (data - buf = headroom left)
  uint32_t buf_size = 0;
  uint16_t input = 0;  // index of the source that produced it
  bool parsed = false;
  Headers hdr;
  Metadata meta;
  Precomputed pre;
  MetaStore values;  // key-value metadata (engine/metadata.hh)
  // SetTimestamp: timestamp_ns as it was before the first SetTimestamp rewrote it (the
  // first stamp when it was 0); 0 while no SetTimestamp has run. SetTimestampDelta FIRST
  // measures from it.
  uint64_t first_timestamp_ns = 0;
  // BeginTransaction: a copy of this packet as it was when its innermost open transaction
  // began (nullptr: none). The copy's own `undo` is the next outer transaction's copy and
  // its `undo_tag` names its transaction. PacketPool::free frees the copies with the packet.
  Packet* undo = nullptr;
  uint64_t undo_tag = 0;

  const Headers& headers();  // parse on first use (defined in packet.cc)
  void invalidate_headers() { parsed = false; }

  // Grow the frame at the front by n bytes; returns the new data pointer or nullptr
  // when the headroom is exhausted.
  uint8_t* push_front(uint32_t n) {
    if (static_cast<uint32_t>(data - buf) < n) return nullptr;
    data -= n;
    len += n;
    parsed = false;
    return data;
  }
  // Shrink the frame at the front by n bytes.
  void pull_front(uint32_t n) {
    data += n;
    len -= n;
    parsed = false;
  }

  const uint8_t* payload_begin() {
    const Headers& h = headers();
    return h.payload == kNoOffset ? data + len : data + h.payload;
  }
  uint32_t payload_len() {
    const Headers& h = headers();
    return h.payload == kNoOffset ? 0 : len - h.payload;
  }
};

// Up to kBatchSize packets moving through the graph together.
struct Batch {
  Packet* pkts[kBatchSize];
  uint32_t n = 0;

  void clear() { n = 0; }
  bool full() const { return n == kBatchSize; }
  void add(Packet* p) { pkts[n++] = p; }
  uint64_t bytes() const {
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; ++i) b += pkts[i]->len;
    return b;
  }
};

}  // namespace obi
