// The bytes a regex block scans: the whole frame, or with payload_only the payload
// after the recognised network layers (empty when the packet has none).
#pragma once

#include <cstdint>

#include "engine/packet.hh"

namespace obi::blocks {

struct ScanRegion {
  const uint8_t* data;
  uint32_t len;
};

inline ScanRegion scan_region(Packet& p, bool payload_only) {
  if (!payload_only) return {p.data, p.len};
  return {p.payload_begin(), p.payload_len()};
}

}  // namespace obi::blocks
