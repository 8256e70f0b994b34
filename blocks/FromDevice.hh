// FromDevice (spec 5.1): reads packets from a network interface. A source: no inputs,
// one output.
//
// Config:  devname (string, required)  a Linux interface ("eth0", "veth1"), read through
//                                      AF_PACKET with a TPACKET_V3 ring per worker
//                                      (kernel fanout by flow hash), or "dpdk:N" for
//                                      DPDK ethdev port N (RX queue w for worker w, RSS)
//          sniffer (bool, true)        AF_PACKET always leaves frames to the host stack
//                                      too, so false behaves like true (documented gap)
//          promisc (bool, false)       put the interface in promiscuous mode
// Handles: read  count, byte_count, rate, byte_rate, drops (frames the kernel or NIC
//                dropped before the OBI got them, an integer)
//          write reset_counts (null)
// Example: { "type": "FromDevice", "name": "in", "config": { "devname": "veth1" } }
#pragma once

#include <memory>
#include <string>

#include "engine/element.hh"
#include "engine/rate.hh"
#include "io/afpacket.hh"

namespace obi::blocks {

class FromDevice final : public Element {
 public:
  explicit FromDevice(const ElementArgs& args);
  ~FromDevice() override;
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  bool poll(Batch& batch, Context& ctx) override;
  void push(uint16_t, Batch& batch, Context& ctx, const Outputs&) override { ctx.drop(batch); }
  void activate() override;
  void deactivate() override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::string devname_;
  bool promisc_;
  bool dpdk_ = false;
  uint16_t port_ = 0;
  uint16_t queues_ = 0;
  unsigned workers_;
  std::vector<std::unique_ptr<io::AfPacketRx>> rx_;   // one per worker
  std::atomic<bool> active_{false};
  mutable uint64_t drop_base_ = 0;
  RateMeter meter_;
};

}  // namespace obi::blocks
