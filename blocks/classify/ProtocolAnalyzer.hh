// ProtocolAnalyzer (spec 5.27): identifies the protocols a packet carries and sends it
// on the path of the first listed one.
//
// Ports: 1 input; output 0 for packets that carry none of the listed protocols, output
// i+1 for the first protocol protocols[i] (list order decides: put "http" before "tcp").
// Config:
//   protocols: array of names: arp, ipv4, ipv6, icmp (ICMPv4 and ICMPv6), tcp, udp,
//              dns, ftp, http, https, smtp.
// Application protocols are recognised by payload first, then by the flow's tag, then
// by port (either direction):
//   http   request methods ("GET ", "POST ", ...) or "HTTP/1." at the payload start; ports 80, 8080, 8000, 8008
//   https  a TLS record header (0x14-0x17, 0x03 0x00-0x04); port 443
//   ftp    "USER ", "PASS ", "RETR ", "STOR " commands or a "220" FTP banner; port 21
//   smtp   "EHLO ", "HELO ", "MAIL FROM:", "RCPT TO:" or an ESMTP/SMTP banner; ports 25, 465, 587
//   dns    UDP or TCP port 53
// A flow recognised by payload is tagged (per worker, bounded table, 300 s idle), so its
// later packets (ACKs, body segments, odd ports) count as that protocol too.
// Config keys, handles and port counts: blocks/catalogue/ProtocolAnalyzer.json.
// Example: {"type": "ProtocolAnalyzer", "name": "pa", "config": {"protocols": ["http", "https", "tcp", "udp"]}}
//          (output 1 HTTP, 2 HTTPS, 3 other TCP, 4 UDP, 0 the rest)
#pragma once

#include <memory>
#include <vector>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/flow_table.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class ProtocolAnalyzerElement final : public Element {
 public:
  enum Proto : uint8_t { kArp, kIpv4, kIpv6, kIcmp, kTcp, kUdp, kDns, kFtp, kHttp, kHttps, kSmtp, kProtoCount };

  explicit ProtocolAnalyzerElement(const ElementArgs& args);

  uint16_t output_count() const override {
    return static_cast<uint16_t>(spec::ProtocolAnalyzer::kOutputs.ports(list_.size()));
  }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  // Bit set of the protocols `p` carries (flow tags not included).
  static uint32_t carried(Packet& p, uint8_t& app_from_payload);

 private:
  struct Tag {
    uint8_t app = 0;
  };  // 0: none, else Proto + 1
  std::vector<uint8_t> list_;
  bool wants_app_ = false;
  PerWorker<std::unique_ptr<FlowTable<Tag>>> tags_;
  OutputStats stats_;
};

}  // namespace obi::blocks
