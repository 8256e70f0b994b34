#include "NetworkHeaderFieldsRewriter.hh"

#include "lib/block_spec.hh"

#include "lib/bytes.hh"
#include "lib/checksum.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

using namespace blocks;

namespace {

enum class Kind { kMac, kIpv4, kInt };
struct FieldInfo {
  const char* name;
  Kind kind;
  int64_t max;
};
constexpr FieldInfo kFields[] = {
    {"eth_dst", Kind::kMac, 0},      {"eth_src", Kind::kMac, 0},      {"eth_type", Kind::kInt, 0xffff},
    {"ipv4_proto", Kind::kInt, 255}, {"ipv4_src", Kind::kIpv4, 0},    {"ipv4_dst", Kind::kIpv4, 0},
    {"ipv4_dscp", Kind::kInt, 63},   {"ipv4_ecn", Kind::kInt, 3},     {"ipv4_ttl", Kind::kInt, 255},
    {"tcp_src", Kind::kInt, 0xffff}, {"tcp_dst", Kind::kInt, 0xffff}, {"udp_src", Kind::kInt, 0xffff},
    {"udp_dst", Kind::kInt, 0xffff},
};

int field_index(std::string_view name) {
  for (int i = 0; i < NetworkHeaderFieldsRewriterElement::kFieldCount; ++i)
    if (name == kFields[i].name) return i;
  return -1;
}

uint64_t parse_value(int f, const nlohmann::json& v, const Where& w) {
  switch (kFields[f].kind) {
    case Kind::kMac: return parse_mac(v, w);
    case Kind::kIpv4: return parse_ipv4(v, w);
    default: return static_cast<uint64_t>(parse_integer(v, w, 0, kFields[f].max));
  }
}

void write_mac(uint8_t* p, uint64_t mac) {
  for (int i = 5; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(mac);
    mac >>= 8;
  }
}

}  // namespace

NetworkHeaderFieldsRewriterElement::NetworkHeaderFieldsRewriterElement(const ElementArgs& args) {
  ConfigReader c(args);
  bool any = false;
  for (int f = 0; f < kFieldCount; ++f) {
    if (!c.has(kFields[f].name)) continue;
    fields_[f].store(parse_value(f, c.get(kFields[f].name), c.where(kFields[f].name)) | kSet);
    any = true;
  }
  any_.store(any);
}

void NetworkHeaderFieldsRewriterElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  if (any_.load(std::memory_order_relaxed)) {
    Values v;
    for (int f = 0; f < kFieldCount; ++f) v.v[f] = fields_[f].load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < batch.n; ++i) rewrite(*batch.pkts[i], v);
  }
  out.emit(0, batch, ctx);
}

void NetworkHeaderFieldsRewriterElement::rewrite(Packet& p, const Values& v) const {
  if (p.len < 14) return;
  const Headers& h = p.headers();
  uint8_t* d = p.data;
  bool relayout = false;

  // Transport ports first: their checksum delta joins the one of the IPv4 addresses.
  ChecksumDelta l4;
  uint8_t* l4sum = nullptr;
  bool udp = false;
  if (!h.fragment) {
    if (auto t = hdr::tcp(p, h)) {
      l4sum = t.checksum_bytes();
      if (v.has(kTcpSrc)) {
        l4.word(t.src_port(), uint16_t(v.get(kTcpSrc)));
        t.set_src_port(uint16_t(v.get(kTcpSrc)));
      }
      if (v.has(kTcpDst)) {
        l4.word(t.dst_port(), uint16_t(v.get(kTcpDst)));
        t.set_dst_port(uint16_t(v.get(kTcpDst)));
      }
    } else if (auto u = hdr::udp(p, h)) {
      l4sum = u.checksum_bytes();
      udp = true;
      if (v.has(kUdpSrc)) {
        l4.word(u.src_port(), uint16_t(v.get(kUdpSrc)));
        u.set_src_port(uint16_t(v.get(kUdpSrc)));
      }
      if (v.has(kUdpDst)) {
        l4.word(u.dst_port(), uint16_t(v.get(kUdpDst)));
        u.set_dst_port(uint16_t(v.get(kUdpDst)));
      }
    }
  }

  if (auto ip = hdr::ipv4(p, h)) {
    ChecksumDelta l3;
    if (v.has(kIpv4Src)) {
      const uint32_t nv = static_cast<uint32_t>(v.get(kIpv4Src));
      l3.dword(ip.src(), nv);
      l4.dword(ip.src(), nv);  // pseudo-header
      ip.set_src(nv);
    }
    if (v.has(kIpv4Dst)) {
      const uint32_t nv = static_cast<uint32_t>(v.get(kIpv4Dst));
      l3.dword(ip.dst(), nv);
      l4.dword(ip.dst(), nv);
      ip.set_dst(nv);
    }
    if (v.has(kIpv4Dscp) || v.has(kIpv4Ecn)) {
      uint8_t tos = ip.tos();
      if (v.has(kIpv4Dscp)) tos = uint8_t((tos & 0x03) | v.get(kIpv4Dscp) << 2);
      if (v.has(kIpv4Ecn)) tos = uint8_t((tos & 0xfc) | v.get(kIpv4Ecn));
      const uint16_t before = ip.ver_tos_word();
      ip.set_tos(tos);
      l3.word(before, ip.ver_tos_word());
    }
    if (v.has(kIpv4Ttl) || v.has(kIpv4Proto)) {
      uint8_t ttl = v.has(kIpv4Ttl) ? uint8_t(v.get(kIpv4Ttl)) : ip.ttl();
      uint8_t proto = v.has(kIpv4Proto) ? uint8_t(v.get(kIpv4Proto)) : ip.proto();
      l3.word(ip.ttl_proto_word(), uint16_t(ttl << 8 | proto));
      relayout = proto != ip.proto();
      ip.set_ttl(ttl);
      ip.set_proto(proto);
    }
    if (!l3.empty()) l3.apply_at(ip.data() + hdr::Ipv4::kChecksum);
  }

  if (l4sum != nullptr && !l4.empty()) {
    if (udp) l4.apply_udp_at(l4sum);
    else l4.apply_at(l4sum);
  }

  if (v.has(kEthDst)) write_mac(d, v.get(kEthDst));
  if (v.has(kEthSrc)) write_mac(d + 6, v.get(kEthSrc));
  if (v.has(kEthType)) {
    uint32_t off = 12 + 4u * h.vlan_count;
    if (off + 2 <= p.len) {
      relayout = relayout || load_be16(d + off) != v.get(kEthType);
      store_be16(d + off, uint16_t(v.get(kEthType)));
    }
  }
  if (relayout) p.invalidate_headers();
}

nlohmann::json NetworkHeaderFieldsRewriterElement::read(std::string_view h) const {
  int f = field_index(h);
  if (f < 0) return Element::read(h);
  uint64_t raw = fields_[f].load(std::memory_order_relaxed);
  if (!(raw & kSet)) return nullptr;
  uint64_t val = raw & ~kSet;
  switch (kFields[f].kind) {
    case Kind::kMac: return format_mac(val);
    case Kind::kIpv4: return format_ipv4(static_cast<uint32_t>(val));
    default: return val;
  }
}

void NetworkHeaderFieldsRewriterElement::write(std::string_view h, const nlohmann::json& v) {
  int f = field_index(h);
  if (f < 0) return Element::write(h, v);
  fields_[f].store(v.is_null() ? 0 : parse_value(f, v, handle_where(*this, h)) | kSet);
  bool any = false;
  for (const auto& x : fields_) any = any || (x.load() & kSet);
  any_.store(any);
}

OBI_REGISTER_BLOCK(NetworkHeaderFieldsRewriter, NetworkHeaderFieldsRewriterElement);

}  // namespace obi
