// NetworkDirectionSwap (spec 5.15, modifier): swaps source and destination of the
// chosen layers, e.g. to send a reply back where a packet came from.
//
// ethernet swaps the MACs (frames >= 14 bytes); ipv4 / ipv6 swap the addresses of IPv4 /
// IPv6 packets; tcp / udp swap the ports of TCP / UDP packets (first fragments only).
// Packets lacking a layer pass with that layer untouched; none is dropped. A swap leaves
// every checksum valid as it is (one's-complement sums do not depend on word order), and
// the flow hash is symmetric, so nothing else needs updating.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/NetworkDirectionSwap.json.
// Example: {"name": "back", "type": "NetworkDirectionSwap",
//           "config": {"ethernet": true, "ipv4": true, "tcp": true}}
#pragma once

#include <atomic>

#include "engine/element.hh"

namespace obi {

class NetworkDirectionSwapElement final : public Element {
 public:
  explicit NetworkDirectionSwapElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::atomic<uint8_t> layers_{0};  // bit i: kLayerNames[i] is swapped
};

}  // namespace obi
