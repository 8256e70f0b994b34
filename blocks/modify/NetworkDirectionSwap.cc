#include "NetworkDirectionSwap.hh"

#include "lib/block_spec.hh"

#include <algorithm>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

using namespace blocks;

namespace {

constexpr const char* kLayerNames[] = {"ethernet", "ipv4", "ipv6", "tcp", "udp"};
enum : uint8_t { kEth = 1, kV4 = 2, kV6 = 4, kTcp = 8, kUdp = 16 };

int layer_index(std::string_view name) {
  for (int i = 0; i < 5; ++i)
    if (name == kLayerNames[i]) return i;
  return -1;
}

inline void swap_bytes(uint8_t* a, uint8_t* b, unsigned n) { std::swap_ranges(a, a + n, b); }

}  // namespace

NetworkDirectionSwapElement::NetworkDirectionSwapElement(const ElementArgs& args) {
  ConfigReader c(args);
  uint8_t bits = 0;
  for (int i = 0; i < 5; ++i)
    if (c.boolean(kLayerNames[i], false)) bits |= uint8_t(1u << i);
  layers_.store(bits);
}

void NetworkDirectionSwapElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint8_t bits = layers_.load(std::memory_order_relaxed);
  if (bits != 0) {
    for (uint32_t i = 0; i < batch.n; ++i) {
      Packet& p = *batch.pkts[i];
      auto eth = hdr::ethernet(p);
      if (!eth) continue;
      if (bits & kEth) swap_bytes(eth.dst(), eth.src(), 6);
      const Headers& h = p.headers();
      if (h.l3 == kNoOffset) continue;
      if (auto ip = hdr::ipv4(p, h); ip && (bits & kV4)) swap_bytes(ip.src_bytes(), ip.dst_bytes(), 4);
      if (auto ip6 = hdr::ipv6(p, h); ip6 && (bits & kV6)) swap_bytes(ip6.src(), ip6.dst(), 16);
      if (h.fragment) continue;
      // the ports are the first four bytes of TCP and UDP alike
      if (auto t = hdr::tcp(p, h); t && (bits & kTcp))
        swap_bytes(t.data() + hdr::Tcp::kSrcPort, t.data() + hdr::Tcp::kDstPort, 2);
      if (auto u = hdr::udp(p, h); u && (bits & kUdp))
        swap_bytes(u.data() + hdr::Udp::kSrcPort, u.data() + hdr::Udp::kDstPort, 2);
    }
  }
  out.emit(0, batch, ctx);
}

nlohmann::json NetworkDirectionSwapElement::read(std::string_view h) const {
  int i = layer_index(h);
  if (i < 0) return Element::read(h);
  return bool(layers_.load() & (1u << i));
}

void NetworkDirectionSwapElement::write(std::string_view h, const nlohmann::json& v) {
  int i = layer_index(h);
  if (i < 0) return Element::write(h, v);
  bool on = parse_bool(v, handle_where(*this, h));
  uint8_t bits = layers_.load();
  bits = on ? uint8_t(bits | (1u << i)) : uint8_t(bits & ~(1u << i));
  layers_.store(bits);
}

OBI_REGISTER_BLOCK(NetworkDirectionSwap, NetworkDirectionSwapElement);

}  // namespace obi
