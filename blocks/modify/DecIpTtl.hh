// DecIpTtl (spec 5.12, modifier): decrements the IPv4 TTL / IPv6 hop limit.
//
// An IPv4 packet with TTL <= 1 (or IPv6 with hop limit <= 1) goes to output 1 unchanged;
// any other IP packet has its TTL decremented (IPv4 header checksum patched
// incrementally, RFC 1624) and goes to output 0. Frames without a complete IP header
// (non-IP, truncated) go to output 0 unchanged. With active = false the block passes
// every packet to output 0 unchanged.
//
// Ports:   1 input; output 0 (forwarded), output 1 (expired).
// Config keys, handles and port counts: blocks/catalogue/DecIpTtl.json.
// Example: {"name": "ttl", "type": "DecIpTtl", "config": {"active": true}}
#pragma once

#include <atomic>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/output_stats.hh"

namespace obi {

class DecIpTtlElement final : public Element {
 public:
  explicit DecIpTtlElement(const ElementArgs& args);

  uint16_t output_count() const override { return spec::DecIpTtl::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::atomic<bool> active_{true};
  blocks::OutputStats stats_;  // output 0 (forwarded), output 1 (expired)
};

}  // namespace obi
