#include "ProtocolAnalyzer.hh"

#include "lib/block_spec.hh"
#include "lib/headers.hh"

#include <cstring>

#include "lib/config.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

constexpr const char* kNames[] = {"arp", "ipv4", "ipv6", "icmp", "tcp", "udp", "dns", "ftp", "http", "https", "smtp"};

bool starts(const uint8_t* d, uint32_t n, const char* s) {
  size_t k = std::strlen(s);
  return n >= k && std::memcmp(d, s, k) == 0;
}

bool contains(const uint8_t* d, uint32_t n, const char* s, uint32_t limit) {
  size_t k = std::strlen(s);
  uint32_t m = n < limit ? n : limit;
  for (uint32_t i = 0; i + k <= m; ++i)
    if (std::memcmp(d + i, s, k) == 0) return true;
  return false;
}

bool is_port(uint16_t a, uint16_t b, std::initializer_list<uint16_t> ports) {
  for (uint16_t p : ports)
    if (a == p || b == p) return true;
  return false;
}

}  // namespace

uint32_t ProtocolAnalyzerElement::carried(Packet& p, uint8_t& app) {
  using P = ProtocolAnalyzerElement;
  const Headers& h = p.headers();
  uint32_t bits = 0;
  app = 0;
  if (h.eth_type == kEthArp && h.l3 != kNoOffset) return 1u << P::kArp;
  if (h.l3 == kNoOffset) return 0;
  if (h.eth_type == kEthIpv4) bits |= 1u << P::kIpv4;
  else if (h.eth_type == kEthIpv6) bits |= 1u << P::kIpv6;
  else return 0;
  if (h.ip_proto == kIpProtoIcmp || h.ip_proto == kIpProtoIcmp6) {
    bits |= 1u << P::kIcmp;
    return bits;
  }
  const bool tcp = h.ip_proto == kIpProtoTcp, udp = h.ip_proto == kIpProtoUdp;
  if (tcp) bits |= 1u << P::kTcp;
  if (udp) bits |= 1u << P::kUdp;
  const auto th = hdr::tcp(p, h);
  const auto uh = hdr::udp(p, h);
  if (!th && !uh) return bits;
  const uint16_t sp = th ? th.src_port() : uh.src_port(), dp = th ? th.dst_port() : uh.dst_port();
  if (is_port(sp, dp, {53})) bits |= 1u << P::kDns;
  if (!tcp) return bits;

  const uint8_t* d = p.payload_begin();
  const uint32_t n = p.payload_len();
  if (n) {
    for (const char* m :
         {"GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS ", "CONNECT ", "TRACE ", "PATCH ", "HTTP/1."})
      if (starts(d, n, m)) {
        app = P::kHttp + 1;
        break;
      }
    if (!app && n >= 5 && d[0] >= 0x14 && d[0] <= 0x17 && d[1] == 0x03 && d[2] <= 0x04) app = P::kHttps + 1;
    if (!app)
      for (const char* m : {"EHLO ", "HELO ", "MAIL FROM:", "RCPT TO:"})
        if (starts(d, n, m)) {
          app = P::kSmtp + 1;
          break;
        }
    if (!app && starts(d, n, "220") && (contains(d, n, "SMTP", 128))) app = P::kSmtp + 1;
    if (!app)
      for (const char* m : {"USER ", "PASS ", "RETR ", "STOR "})
        if (starts(d, n, m)) {
          app = P::kFtp + 1;
          break;
        }
    if (!app && starts(d, n, "220") && contains(d, n, "FTP", 128)) app = P::kFtp + 1;
  }
  if (app) return bits | 1u << (app - 1);
  if (is_port(sp, dp, {80, 8080, 8000, 8008})) bits |= 1u << P::kHttp;
  if (is_port(sp, dp, {443})) bits |= 1u << P::kHttps;
  if (is_port(sp, dp, {21})) bits |= 1u << P::kFtp;
  if (is_port(sp, dp, {25, 465, 587})) bits |= 1u << P::kSmtp;
  return bits;
}

ProtocolAnalyzerElement::ProtocolAnalyzerElement(const ElementArgs& args)
    : tags_(args.workers ? args.workers : 1), stats_(1, 1) {
  ConfigReader c(args);
  auto names = c.strings("protocols", true);
  for (size_t i = 0; i < names.size(); ++i) {
    std::string n = names[i];
    for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    size_t k = 0;
    while (k < kProtoCount && n != kNames[k]) ++k;
    if (k == kProtoCount)
      c.where("protocols")
          .at(i)
          .expected("one of arp, ipv4, ipv6, icmp, tcp, udp, dns, ftp, http, https, smtp", names[i]);
    list_.push_back(static_cast<uint8_t>(k));
    if (k == kFtp || k == kHttp || k == kHttps || k == kSmtp) wants_app_ = true;
  }
  if (wants_app_)
    for (unsigned w = 0; w < tags_.size(); ++w)
      tags_[w] = std::make_unique<FlowTable<Tag>>(65536, 300ull * 1'000'000'000ull);
  stats_ = OutputStats(static_cast<uint32_t>(list_.size() + 1), args.workers);
}

void ProtocolAnalyzerElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    uint8_t app;
    uint32_t bits = carried(p, app);
    if (wants_app_ && (bits & (1u << kTcp))) {
      FlowKey k;
      bool reversed;
      if (flow_key(p, k, reversed)) {
        // payload evidence tags the flow; otherwise the flow's tag (if any) wins over ports
        auto* e = tags_[ctx.worker]->lookup(k, ctx.now_ns, app != 0);
        if (e && app) e->value.app = app;
        else if (e && e->value.app)
          bits = (bits & ~(1u << kHttp | 1u << kHttps | 1u << kFtp | 1u << kSmtp)) | 1u << (e->value.app - 1);
      }
    }
    uint16_t o = 0;
    for (size_t j = 0; j < list_.size(); ++j)
      if (bits >> list_[j] & 1) {
        o = static_cast<uint16_t>(j + 1);
        break;
      }
    outs[i] = o;
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json ProtocolAnalyzerElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  return Element::read(handle);
}

void ProtocolAnalyzerElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(ProtocolAnalyzer, ProtocolAnalyzerElement);

}  // namespace obi::blocks
