// FromDevice (spec 5.1): reads packets from a network interface. A source: no inputs,
// one output.
//
// devname is a Linux interface ("eth0", "veth1"), read through AF_PACKET with a
// receive ring per worker (kernel fanout by flow hash), or "dpdk:N": DPDK ethdev port N,
// RX queue w for worker w (RSS). AF_PACKET always leaves frames to the host stack too, so
// sniffer false behaves like true. rx_ring picks the AF_PACKET ring: "block" (default;
// TPACKET_V3, frames packed in blocks the kernel hands over when full or 1 ms after their
// first frame: deepest, cheapest per frame) or "frame" (TPACKET_V2: each frame handed
// over at once, so a lone frame does not wait for the block timer; 2048 frames deep,
// frames over 16 KiB counted as drops); DPDK ports ignore it.
// Offloads: frames a veth/virtio sender left for the device to finish (partial TCP/UDP
//          checksum, TCP/UDP super-frames up to 64 KiB) are finished on receipt
//          (io/offload.hh): checksums completed, super-frames cut into segments of the
//          sender's segment size, so every block and ToDevice sees ordinary frames.
// Config keys, handles and port counts: blocks/catalogue/FromDevice.json.
// Swaps: a FromDevice whose name, type and config are unchanged is carried into the new
//          graph with its sockets, rings and counters. One rebuilt under the same name with
//          another config on the same interface (e.g. promisc changed) shares its
//          predecessor's sockets and rings (promiscuous mode switched on the socket), so
//          the frames already in the rings are read by the new graph; its count and rates
//          start at 0, its drops (the rings') go on. A DPDK port and its RX queues stay configured for the life of the process,
//          so a rebuilt FromDevice reads on from the same queues.
//          A rebuilt FromDevice with another rx_ring opens new sockets instead.
// Example: { "type": "FromDevice", "name": "in", "config": { "devname": "veth1" } }
//          { "type": "FromDevice", "name": "in", "config": { "devname": "veth1", "rx_ring": "frame" } }
#pragma once

#include <memory>
#include <string>

#include "engine/element.hh"
#include "io/afpacket.hh"
#include "lib/block_spec.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class FromDevice final : public Element {
 public:
  explicit FromDevice(const ElementArgs& args);
  ~FromDevice() override;
  uint16_t input_count() const override { return spec::FromDevice::kInputs.count; }
  bool is_source() const override { return true; }
  bool poll(Batch& batch, Context& ctx) override;
  void push(uint16_t, Batch& batch, Context& ctx, const Outputs&) override { ctx.drop(batch); }
  void activate() override;
  void deactivate() override;
  void take_over(Element& previous) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::string devname_;
  bool promisc_;
  io::RxRing ring_ = io::RxRing::kBlock;
  bool dpdk_ = false;
  uint16_t port_ = 0;
  uint16_t queues_ = 0;
  unsigned workers_;
  std::vector<std::shared_ptr<io::AfPacketRx>> rx_;       // one per worker
  std::vector<std::shared_ptr<io::AfPacketRx>> adopted_;  // the predecessor's, until activate()
  FromDevice* predecessor_ = nullptr;                     // set by take_over, until activate()
  int restore_promisc_ = -1;                              // adopted rings: the predecessor's promisc (0/1), else -1
  bool handed_over_ = false;                              // a successor runs on this element's rings
  uint64_t predecessor_drop_base_ = 0;
  std::atomic<bool> active_{false};
  mutable uint64_t drop_base_ = 0;
  blocks::OutputStats meter_;  // one output: what the block emits
};

}  // namespace obi::blocks
