// Header parsing, packet pool and flow hash.
//
// The parser only records offsets and a few key values; it never reads a byte at or past
// `len`, so a truncated frame simply ends up with the layers it fully contains.
#include "engine/packet.hh"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "engine/pool.hh"
#include "lib/bytes.hh"  // byte order, EtherTypes and IP protocol numbers shared with the blocks

namespace obi {
namespace {

// Minimal header length of a known L4 protocol (0: unknown).
inline uint32_t l4_min(uint8_t proto) {
  switch (proto) {
    case kIpProtoTcp: return 20;
    case kIpProtoUdp: return 8;
    case kIpProtoSctp: return 12;
    case kIpProtoIcmp: return 8;
    case kIpProtoIcmp6: return 8;
    default: return 0;
  }
}

// Sets l4/payload for protocol `proto` whose header starts at `off`.
inline void parse_l4(Headers& h, const uint8_t* d, uint32_t len, uint32_t off) {
  uint32_t need = l4_min(h.ip_proto);
  if (need == 0) {
    h.payload = off <= len ? off : kNoOffset;
    return;
  }
  if (off + need > len) return;  // truncated L4 header: no l4, no payload
  h.l4 = static_cast<uint16_t>(off);
  uint32_t hl = need;
  if (h.ip_proto == kIpProtoTcp) {
    hl = (d[off + 12] >> 4) * 4u;
    if (hl < 20) return;  // malformed data offset: ports usable, payload not
  }
  if (off + hl <= len) h.payload = static_cast<uint16_t>(off + hl);
}

void parse_ipv4(Headers& h, const uint8_t* d, uint32_t len, uint32_t off) {
  if (off + 20 > len || (d[off] >> 4) != 4) return;
  uint32_t ihl = (d[off] & 0x0f) * 4u;
  if (ihl < 20 || off + ihl > len) return;
  h.l3 = static_cast<uint16_t>(off);
  h.ip_proto = d[off + 9];
  uint16_t frag = load_be16(d + off + 6);
  if ((frag & 0x1fff) != 0) {  // non-first fragment: no L4 header here
    h.fragment = true;
    h.payload = static_cast<uint16_t>(off + ihl);
    return;
  }
  parse_l4(h, d, len, off + ihl);
}

void parse_ipv6(Headers& h, const uint8_t* d, uint32_t len, uint32_t off) {
  if (off + 40 > len || (d[off] >> 4) != 6) return;
  h.l3 = static_cast<uint16_t>(off);
  uint8_t next = d[off + 6];
  uint32_t p = off + 40;
  bool first_fragment = true;
  for (int i = 0; i < 8; ++i) {                                  // bounded walk over extension headers
    if (next == 0 || next == 43 || next == 60 || next == 135) {  // hop-by-hop, routing, dst opts, mobility
      if (p + 8 > len) {
        h.ip_proto = next;
        return;
      }
      uint8_t nn = d[p];
      p += (d[p + 1] + 1u) * 8u;
      next = nn;
    } else if (next == 44) {  // fragment header
      if (p + 8 > len) {
        h.ip_proto = next;
        return;
      }
      h.fragment = true;
      if ((load_be16(d + p + 2) & 0xfff8) != 0) first_fragment = false;
      next = d[p];
      p += 8;
    } else if (next == 51) {  // authentication header
      if (p + 8 > len) {
        h.ip_proto = next;
        return;
      }
      uint8_t nn = d[p];
      p += (d[p + 1] + 2u) * 4u;
      next = nn;
    } else {
      break;
    }
  }
  h.ip_proto = next;
  if (p > len) return;
  if (!first_fragment || next == 59) {
    h.payload = static_cast<uint16_t>(p);
    return;
  }
  parse_l4(h, d, len, p);
}

void parse_arp(Headers& h, const uint8_t* d, uint32_t len, uint32_t off) {
  if (off + 8 > len) return;
  h.l3 = static_cast<uint16_t>(off);
  uint32_t end = off + 8 + 2u * (d[off + 4] + d[off + 5]);
  if (end <= len) h.payload = static_cast<uint16_t>(end);
}

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

const Headers& Packet::headers() {
  if (parsed) return hdr;
  Headers h;
  const uint8_t* d = data;
  uint32_t n = len;
  if (n >= 14) {
    uint32_t off = 12;
    uint16_t type = load_be16(d + off);
    while ((type == kEthVlan || type == kEthQinQ) && h.vlan_count < 2 && off + 6 <= n) {
      if (h.vlan_count == 0) h.vlan_tci = load_be16(d + off + 2);
      ++h.vlan_count;
      off += 4;
      type = load_be16(d + off);
    }
    off += 2;
    h.eth_type = type;
    if (type == kEthIpv4) parse_ipv4(h, d, n, off);
    else if (type == kEthIpv6) parse_ipv6(h, d, n, off);
    else if (type == kEthArp) parse_arp(h, d, n, off);
  }
  hdr = h;
  parsed = true;
  return hdr;
}

uint32_t flow_hash(Packet& p) {
  const Headers& h = p.headers();
  const uint8_t* d = p.data;
  uint64_t a = 0, b = 0;
  uint32_t pa = 0, pb = 0;
  if (h.l3 != kNoOffset && h.eth_type == kEthIpv4) {
    a = load_be32(d + h.l3 + 12);
    b = load_be32(d + h.l3 + 16);
  } else if (h.l3 != kNoOffset && h.eth_type == kEthIpv6) {
    const uint8_t* s = d + h.l3 + 8;
    a = (uint64_t(load_be32(s)) << 32 | load_be32(s + 4)) ^ (uint64_t(load_be32(s + 8)) << 32 | load_be32(s + 12));
    s += 16;
    b = (uint64_t(load_be32(s)) << 32 | load_be32(s + 4)) ^ (uint64_t(load_be32(s + 8)) << 32 | load_be32(s + 12));
  } else if (p.len >= 12) {
    a = uint64_t(load_be16(d)) << 32 | load_be32(d + 2);
    b = uint64_t(load_be16(d + 6)) << 32 | load_be32(d + 8);
  } else {
    return 0;
  }
  if (h.l4 != kNoOffset && (h.ip_proto == kIpProtoTcp || h.ip_proto == kIpProtoUdp || h.ip_proto == kIpProtoSctp)) {
    pa = load_be16(d + h.l4);
    pb = load_be16(d + h.l4 + 2);
  }
  if (a > b) std::swap(a, b);
  if (pa > pb) std::swap(pa, pb);
  uint64_t x = mix64(a * 0x9e3779b97f4a7c15ULL ^ b) ^ mix64((uint64_t(pa) << 32 | uint64_t(pb) << 8 | h.ip_proto) + 1);
  return static_cast<uint32_t>(x ^ (x >> 32));
}

PacketPool::PacketPool(uint32_t packets)
    : packets_(packets), free_(packets), pending_(packets), pending_pkts_(packets) {
  const std::size_t stride = kHeadroom + kMaxFrame;
  memory_.reset(new uint8_t[stride * packets + 64]);
  uint8_t* base = memory_.get();
  base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
  for (uint32_t i = 0; i < packets; ++i) {
    Packet& p = packets_[i];
    p.buf = base + stride * i;
    p.buf_size = static_cast<uint32_t>(stride);
    p.data = p.buf + kHeadroom;
    free_[packets - 1 - i] = &p;  // hand out low addresses first
  }
  top_ = packets;
}

Packet* PacketPool::alloc_copy(const uint8_t* bytes, uint32_t len) {
  Packet* p = alloc();
  if (!p) return nullptr;
  if (len > kMaxFrame) len = kMaxFrame;
  if (len) std::memcpy(p->data, bytes, len);  // an empty frame may come without a buffer
  p->len = len;
  return p;
}

Packet* PacketPool::clone(const Packet& src) {
  Packet* p = alloc();
  if (!p) return nullptr;
  uint32_t head = static_cast<uint32_t>(src.data - src.buf);
  if (head + src.len > p->buf_size) head = kHeadroom;
  p->data = p->buf + head;
  std::memcpy(p->data, src.data, src.len);
  p->len = src.len;
  p->flow_hash = src.flow_hash;
  p->timestamp_ns = src.timestamp_ns;
  p->input = src.input;
  p->parsed = src.parsed;
  p->hdr = src.hdr;
  p->meta = src.meta;
  p->pre = src.pre;
  p->values = src.values;
  p->first_timestamp_ns = src.first_timestamp_ns;
  return p;
}

}  // namespace obi
