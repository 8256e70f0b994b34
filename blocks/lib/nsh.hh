// NSH (RFC 8300) as EncapsulateMetadata writes it and DecapsulateMetadata reads it.
//
//   outer Ethernet: the inner frame's destination and source MACs, EtherType 0x894F
//   base header:    version 0, O 0, TTL 63, length (4-byte words, base header included),
//                   MD type 2, next protocol 3 (Ethernet)
//   service path:   SPI (24 bits), SI (8 bits)
//   context:        one MD type 2 TLV per metadata entry: class 0xFFF6 (experimental
//                   range), type 1 (integer) or 2 (string), length = value bytes;
//                   value = key length (1 byte), key, then the integer (8 bytes, big
//                   endian) or the string bytes; padded with zeros to 4 bytes.
//   then the original Ethernet frame.
#pragma once

#include <cstdint>

#include "engine/metadata.hh"
#include "lib/headers.hh"

namespace obi::blocks::nsh {

inline constexpr uint16_t kEtherType = 0x894f;
inline constexpr uint32_t kEthLen = hdr::Ethernet::kLen;
inline constexpr uint32_t kBaseLen = 8;  // base + service path header
inline constexpr uint8_t kTtl = 63;
inline constexpr uint8_t kMdType2 = 2;
inline constexpr uint8_t kNextEthernet = 3;
inline constexpr uint16_t kMetaClass = 0xfff6;
inline constexpr uint8_t kTypeInteger = 1;
inline constexpr uint8_t kTypeString = 2;
inline constexpr uint32_t kMaxHeaderLen = 63 * 4;  // the 6-bit length field, in bytes

inline constexpr uint32_t padded(uint32_t n) { return (n + 3) & ~3u; }
// Bytes of the TLV for one entry.
inline uint32_t tlv_len(const MetaEntry& e) {
  uint32_t v = 1 + e.key_len + (e.value.kind == MetaValue::kInteger ? 8 : e.value.len);
  return 4 + padded(v);
}
// Every entry fits: 8 + 4 * (4 + 40) bytes stays under the 252 the length field allows.
static_assert(kBaseLen + kMetaEntries * (4 + padded(1 + kMetaKeyMax + kMetaTextMax)) <= kMaxHeaderLen);

}  // namespace obi::blocks::nsh
