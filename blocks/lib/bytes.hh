// Network byte order and the protocol numbers every parser and block shares: big-endian
// loads and stores (callers check bounds), EtherTypes and IP protocol numbers. The
// engine's header parser (obi/src/engine/packet.cc) and I/O offloads use these too.
#pragma once

#include <cstdint>

namespace obi {

inline uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t load_be48(const uint8_t* p) { return uint64_t(load_be16(p)) << 32 | load_be32(p + 2); }
inline uint64_t load_be64(const uint8_t* p) { return uint64_t(load_be32(p)) << 32 | load_be32(p + 4); }

inline void store_be16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

// EtherTypes
inline constexpr uint16_t kEthIpv4 = 0x0800;
inline constexpr uint16_t kEthArp = 0x0806;
inline constexpr uint16_t kEthVlan = 0x8100;  // 802.1Q
inline constexpr uint16_t kEthQinQ = 0x88a8;  // 802.1ad service tag
inline constexpr uint16_t kEthIpv6 = 0x86dd;
inline constexpr uint16_t kEthMpls = 0x8847;
inline constexpr uint16_t kEthMplsMc = 0x8848;
inline constexpr uint16_t kEthPbb = 0x88e7;

// IP protocol numbers (IPv4 protocol, IPv6 next header)
inline constexpr uint8_t kIpProtoIcmp = 1;
inline constexpr uint8_t kIpProtoTcp = 6;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint8_t kIpProtoIcmp6 = 58;
inline constexpr uint8_t kIpProtoSctp = 132;

}  // namespace obi
