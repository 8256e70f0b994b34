#include "NetworkDirectionSwap.hh"

#include "common/block_spec.hh"

#include <algorithm>

#include "modify/bytes.hh"
#include "modify/config.hh"

namespace obi {

using namespace modify;

namespace {

constexpr const char* kLayerNames[] = {"ethernet", "ipv4", "ipv6", "tcp", "udp"};
enum : uint8_t { kEth = 1, kV4 = 2, kV6 = 4, kTcp = 8, kUdp = 16 };

int layer_index(std::string_view name) {
  for (int i = 0; i < 5; ++i) if (name == kLayerNames[i]) return i;
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
      if (p.len < 14) continue;
      uint8_t* d = p.data;
      if (bits & kEth) swap_bytes(d, d + 6, 6);
      const Headers& h = p.headers();
      if (h.l3 == kNoOffset) continue;
      if ((bits & kV4) && h.eth_type == kEthIpv4) swap_bytes(d + h.l3 + 12, d + h.l3 + 16, 4);
      if ((bits & kV6) && h.eth_type == kEthIpv6) swap_bytes(d + h.l3 + 8, d + h.l3 + 24, 16);
      if (h.l4 != kNoOffset && !h.fragment &&
          (((bits & kTcp) && h.ip_proto == kProtoTcp) || ((bits & kUdp) && h.ip_proto == kProtoUdp)))
        swap_bytes(d + h.l4, d + h.l4 + 2, 2);
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
