// ToDevice (spec 5.3): sends packets out of a network interface. A sink: one input,
// no outputs.
//
// devname is a Linux interface, sent to through an AF_PACKET socket per worker with a
// TPACKET_V2 transmit ring (a batch copied into the ring and sent with one sendto;
// sendmmsg where the kernel refuses the ring), or "dpdk:N": TX queue w of DPDK port N for
// worker w.
// Config keys, handles and port counts: blocks/catalogue/ToDevice.json.
// Example: { "type": "ToDevice", "name": "out", "config": { "devname": "veth0" } }
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/element.hh"
#include "io/afpacket.hh"
#include "lib/block_spec.hh"

struct rte_mempool;

namespace obi::blocks {

class ToDevice final : public Element {
 public:
  explicit ToDevice(const ElementArgs& args);
  ~ToDevice() override;
  uint16_t output_count() const override { return spec::ToDevice::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  void activate() override;
  void deactivate() override;
  nlohmann::json read(std::string_view handle) const override;

 private:
  std::string devname_;
  bool dpdk_ = false;
  uint16_t port_ = 0;
  uint16_t queues_ = 0;
  ::rte_mempool* mbufs_ = nullptr;
  unsigned workers_;
  std::vector<std::unique_ptr<io::AfPacketTx>> tx_;
  std::atomic<bool> active_{false};
  PerWorker<Counter> sent_, dropped_;
};

}  // namespace obi::blocks
