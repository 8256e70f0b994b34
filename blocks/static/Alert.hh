// Alert (spec 5.16, static): sends alerts to the controller for every packet; the
// packet passes through unchanged.
//
// Each packet posts every configured alert to the worker's EventSink (ctx.events), with
// the block's name as origin block and the alert's app_id, so the controller can route
// it to the owning application. The sink is a bounded ring: when it is full the event is
// dropped and counted by the sink, the packet is never held back. With each alert the sink
// keeps the packet's timestamp and header fields (addresses, protocol, ports or ICMP
// type/code; engine/packet_fields.hh), which the OBI sends in the Alert entry.
//
// The graph compiler applies it in place on the links that lead to it (it passes
// through: Element::passes_through), so the block costs no push or batch split of its own.
// A single alert whose origin, app id and message fit a link's site (Link::kSiteBytes
// less a 12-byte header) is copied into that link (static_site), so a classifier with an
// Alert per rule reads the alert from the link it prefetched, not from this object.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/Alert.json.
// Example: {"name": "warn", "type": "Alert", "config": {"alerts": [{"message": "telnet",
//           "severity": 4, "app_id": "fw"}], "attach_packet": true, "packet_size": 128}}
#pragma once

#include <string>
#include <vector>

#include "engine/element.hh"

namespace obi {

class AlertElement final : public Element {
 public:
  explicit AlertElement(const ElementArgs& args);
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  bool passes_through() const override { return true; }
  void pass(Batch& batch, Context& ctx) override;
  StaticSiteFn static_site(void* site, std::size_t capacity) const override;

 private:
  struct Site;  // the packed alert as a link holds it
  static void pass_site(const void* site, Batch& batch, Context& ctx);

  struct Entry {
    std::string message, app_id;
    int severity;
  };
  std::vector<Entry> alerts_;
  int packet_size_ = 0;  // what EventSink::post gets: 0 none, < 0 whole packet
  // A single alert (the usual case: one per firewall rule) also lives packed inside the
  // object, origin block name, app id and message one after the other, so that posting it
  // touches the object's own few cache lines and no scattered strings.
  static constexpr std::size_t kPackedBytes = 168;
  bool packed_ = false;
  uint8_t packed_severity_ = 0;
  uint16_t packed_origin_ = 0, packed_app_ = 0, packed_message_ = 0;
  char packed_bytes_[kPackedBytes];
};

}  // namespace obi
