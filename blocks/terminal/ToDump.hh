// ToDump (spec 5.4): writes every packet it receives to a pcap file. A sink: one input,
// no outputs.
//
// The file is created (truncated if it exists) as a classic pcap: microsecond time
// stamps, LINKTYPE_ETHERNET.
// Config keys, handles and port counts: blocks/catalogue/ToDump.json.
// Example: { "type": "ToDump", "name": "out", "config": { "filename": "out.pcap" } }
//
// Workers copy packets into their own single-producer ring; one writer thread drains the
// rings into the file, so the data path does no file I/O. The file keeps each worker's
// packet order (with one worker: the order of arrival); packets of different workers are
// interleaved in the order the writer finds them. A full ring makes the worker wait for
// the writer (a dump must not lose packets). The file is opened when the graph is
// published and flushed and closed when the block leaves the running graph.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/element.hh"
#include "io/pcap.hh"
#include "lib/block_spec.hh"

namespace obi::blocks {

class ToDump final : public Element {
 public:
  explicit ToDump(const ElementArgs& args);
  ~ToDump() override;
  uint16_t output_count() const override { return spec::ToDump::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  void activate() override;
  void deactivate() override;
  nlohmann::json read(std::string_view handle) const override;

 private:
  static constexpr uint32_t kSlots = 512;
  struct Slot {
    uint32_t len;
    uint64_t ts_ns;
    uint8_t data[kMaxFrame];
  };
  struct alignas(64) Ring {
    std::atomic<uint64_t> head{0};
    alignas(64) std::atomic<uint64_t> tail{0};
    std::unique_ptr<Slot[]> slots;
  };
  bool drain_once();
  void writer_main();

  std::string filename_;
  std::vector<Ring> rings_;
  std::unique_ptr<io::PcapWriter> writer_;
  std::thread thread_;
  std::atomic<bool> open_{false};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> written_{0};
};

}  // namespace obi::blocks
