// FromDump (spec 5.2): reads packets from a pcap file. A source: no inputs, one output.
//
// The file is a classic pcap of Ethernet frames.
// Config keys, handles and port counts: blocks/catalogue/FromDump.json.
// Example: { "type": "FromDump", "name": "in",
//            "config": { "filename": "trace.pcap", "timing": false } }
//
// With several workers every worker walks the (memory-mapped) file and keeps the packets
// whose flow hash falls to it, so each flow stays on one worker and in order. Frames
// longer than kMaxFrame are skipped and counted in the `oversize` read handle.
#pragma once

#include <atomic>
#include <memory>

#include "engine/element.hh"
#include "io/pcap.hh"
#include "lib/block_spec.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class FromDump final : public Element {
 public:
  explicit FromDump(const ElementArgs& args);
  uint16_t input_count() const override { return spec::FromDump::kInputs.count; }
  bool is_source() const override { return true; }
  bool poll(Batch& batch, Context& ctx) override;
  void push(uint16_t, Batch& batch, Context& ctx, const Outputs&) override { ctx.drop(batch); }
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Cursor {
    uint64_t offset = 0;
    uint64_t start_ns = 0;  // timing: when this worker emitted the first packet
    Counter oversize;
  };
  std::unique_ptr<io::PcapReader> reader_;
  unsigned workers_;
  bool timing_;
  std::atomic<bool> active_;
  uint64_t first_ts_ = 0;  // timestamp of the file's first packet
  PerWorker<Cursor> cursor_;
  blocks::OutputStats meter_;  // one output: what the block emits
};

}  // namespace obi::blocks
