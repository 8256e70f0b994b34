// Store (spec 5.25, static): keeps a copy of the packet (its first packet_size bytes, up
// to the end of the IP packet, and its key-value metadata) in the OBI's packet store
// under the block's key and the packet's session; the packet passes through unchanged.
// Restore, with the same key, later puts the stored bytes back into a packet of the same
// session.
//
// Semantics: a record is identified by (key, session), the session being the packet's
// bidirectional IP 5-tuple, so a Store on requests and a Restore on the responses of the
// same connection meet; a newer packet of the session replaces its record. A record
// expires hard_timeout seconds after it was stored, or soft_timeout seconds (when
// positive) after it was last stored or restored. Frames without an IP header are not
// stored. The store lives in the OBI, one table per key and worker (both directions of a
// session run on one worker), of PacketStore::kRecords records: when the records a
// session hashes to are all live, the least recently used is replaced. The spec's
// buffer_size and buffer_timeout batch records on their way to an external storage server;
// here a record is in the store as soon as the packet passes, so both are checked and
// have no effect.
//
// Why: keep what one packet of a session said (a request, its metadata) for a later
// packet of the same session: answer with it, compare with it, or undo a rewrite.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/Store.json.
// Example: {"name": "keep", "type": "Store", "config": {"key": "req", "soft_timeout": 0,
//           "hard_timeout": 30, "packet_size": -1}}
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/element.hh"
#include "engine/metadata.hh"
#include "lib/counts.hh"
#include "lib/flow_table.hh"

namespace obi {

// The records of one key, shared by the Store and Restore blocks naming it (and kept as
// long as one of them exists, across graph swaps). One table per worker, touched only by
// that worker; records and their byte slots are allocated when the store is created.
class PacketStore {
 public:
  static constexpr uint32_t kRecords = 4096;  // per worker
  static constexpr unsigned kProbe = 8;

  struct Record {
    blocks::FlowKey flow;
    bool used = false;
    uint64_t stored_ns = 0, last_ns = 0;                           // the worker's monotonic clock
    uint64_t soft_ns = 0, hard_ns = 0;                             // soft 0: none
    uint32_t len = 0;                                              // bytes held
    uint16_t l3 = kNoOffset, l4 = kNoOffset, payload = kNoOffset;  // offsets in the bytes
    uint8_t ip_proto = 0;
    MetaStore values;
  };

  // The store of `key` for `workers` workers, created on first use.
  static std::shared_ptr<PacketStore> get(const std::string& key, unsigned workers);

  explicit PacketStore(unsigned workers);

  // The live record of `flow` (its last access set to now), or nullptr.
  Record* find(unsigned worker, const blocks::FlowKey& flow, uint64_t now);
  // The record to (re)write for `flow`: its own, a free or expired one, else the least
  // recently used of its probe window.
  Record* slot(unsigned worker, const blocks::FlowKey& flow, uint64_t now);
  uint8_t* bytes(unsigned worker, const Record& r);

 private:
  static bool expired(const Record& r, uint64_t now) {
    return now - r.stored_ns >= r.hard_ns || (r.soft_ns != 0 && now - r.last_ns >= r.soft_ns);
  }
  struct Table {
    std::unique_ptr<Record[]> records;
    std::unique_ptr<uint8_t[]> bytes;  // kRecords slots of kMaxFrame; not zeroed
  };
  std::vector<Table> tables_;
};

class StoreElement final : public Element {
 public:
  explicit StoreElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  enum { kCount, kBytes };
  std::shared_ptr<PacketStore> store_;
  uint64_t soft_ns_ = 0, hard_ns_ = 0;
  uint32_t packet_size_ = 64;
  blocks::Counts<2> counts_;
};

}  // namespace obi
