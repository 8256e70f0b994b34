// Replay: a pcap preloaded in memory, and the source element that replays it forever.
//
// `obi bench` puts a ReplaySource at the position of every source block of a graph, so the
// graph runs on packets from memory and the benchmark measures the engine, not file or
// device I/O. Each worker replays the packets whose flow hash falls to it (as FromDump
// would give it), copying each into a pool buffer as a NIC would. By default each replayed
// packet then has its headers parsed and its flow hash computed on the packet path, as
// FromDevice does for a real frame; `preparsed` instead copies the parse and hash done at
// load time with the packet (cheaper than any real source: an upper bound).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/element.hh"

namespace obi {

struct Trace {
  struct Record {
    uint64_t offset;
    uint32_t len;
    uint32_t hash;
    Headers hdr;
  };
  std::vector<uint8_t> bytes;
  std::vector<Record> records;
  uint64_t total_bytes = 0;

  // Loads every record of a pcap (frames over kMaxFrame are skipped); throws std::runtime_error.
  static std::shared_ptr<const Trace> load(const std::string& path);
};

class ReplaySource final : public Element {
 public:
  ReplaySource(std::shared_ptr<const Trace> trace, unsigned workers, bool preparsed = false);
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  bool poll(Batch& batch, Context& ctx) override;
  void push(uint16_t, Batch& batch, Context& ctx, const Outputs&) override { ctx.drop(batch); }

 private:
  struct Share {
    std::vector<uint32_t> index;  // records of this worker
    std::size_t next = 0;
  };
  std::shared_ptr<const Trace> trace_;
  PerWorker<Share> share_;
  bool preparsed_;
};

}  // namespace obi
