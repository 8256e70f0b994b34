#include "io/offload.hh"

#include <arpa/inet.h>
#include <endian.h>

#include <algorithm>
#include <cstring>

#include "lib/bytes.hh"

namespace obi::io {
namespace {

// struct virtio_net_hdr and its constants (linux/virtio_net.h, which does not compile as C++)
struct VnetHdr {
  uint8_t flags, gso_type;
  uint16_t hdr_len, gso_size, csum_start, csum_offset;
};
static_assert(sizeof(VnetHdr) == kVnetHdrLen);
constexpr uint8_t VIRTIO_NET_HDR_F_NEEDS_CSUM = 1;
constexpr uint8_t VIRTIO_NET_HDR_GSO_NONE = 0, VIRTIO_NET_HDR_GSO_TCPV4 = 1, VIRTIO_NET_HDR_GSO_TCPV6 = 4,
                  VIRTIO_NET_HDR_GSO_UDP_L4 = 5, VIRTIO_NET_HDR_GSO_ECN = 0x80;

}  // namespace

OffloadInfo read_vnet_hdr(const uint8_t* p) {
  VnetHdr h;
  std::memcpy(&h, p, sizeof h);
  OffloadInfo o;
  o.needs_csum = h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
  o.csum_start = le16toh(h.csum_start);
  o.csum_offset = le16toh(h.csum_offset);
  o.gso_type = h.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
  o.gso_size = le16toh(h.gso_size);
  return o;
}

uint32_t csum_add(uint32_t sum, const uint8_t* p, uint32_t n) {
  // 32-bit big-endian words summed in 64 bits fold to the same one's-complement 16-bit sum
  uint64_t s = sum;
  for (; n >= 4; p += 4, n -= 4) s += load_be32(p);
  if (n >= 2) {
    s += load_be16(p);
    p += 2;
    n -= 2;
  }
  if (n) s += uint32_t(p[0]) << 8;
  while (s >> 32) s = (s & 0xffffffffu) + (s >> 32);
  return static_cast<uint32_t>(s);
}

uint16_t csum_fold(uint32_t sum) {
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

OffloadedFrame::OffloadedFrame(const uint8_t* frame, uint32_t len, const OffloadInfo& info, uint32_t max_len)
    : frame_(frame), len_(len), info_(info) {
  if (info.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
    if (len > max_len) {
      fail("frame longer than a packet buffer");
    } else if (info.needs_csum && uint32_t(info.csum_start) + info.csum_offset + 2 > len) {
      fail("checksum offload points past the frame");
    } else {
      segments_ = 1;
    }
    return;
  }
  plan_segments(max_len);
}

void OffloadedFrame::plan_segments(uint32_t max_len) {
  // Ethernet and VLAN tags, then the IP header the GSO type names
  uint32_t off = 12;
  if (len_ < off + 2) return fail("truncated Ethernet header");
  uint16_t type = load_be16(frame_ + off);
  while ((type == kEthVlan || type == kEthQinQ) && off + 6 <= len_) {
    off += 4;
    type = load_be16(frame_ + off);
  }
  l3_ = off + 2;
  switch (info_.gso_type) {
    case VIRTIO_NET_HDR_GSO_TCPV4:
      ipv4_ = true;
      tcp_ = true;
      break;
    case VIRTIO_NET_HDR_GSO_TCPV6: tcp_ = true; break;
    case VIRTIO_NET_HDR_GSO_UDP_L4: ipv4_ = type == kEthIpv4; break;
    default: return fail("unsupported segmentation offload type (UDP fragmentation offload)");
  }
  if (type != (ipv4_ ? kEthIpv4 : kEthIpv6)) return fail("segmentation offload type does not match the IP version");
  if (!info_.needs_csum) return fail("segmentation offload without checksum offload");
  l4_ = info_.csum_start;
  uint8_t proto;
  if (ipv4_) {
    if (len_ < l3_ + 20) return fail("truncated IPv4 header");
    uint32_t ihl = (frame_[l3_] & 0x0f) * 4u;
    if (ihl < 20 || l4_ != l3_ + ihl) return fail("IPv4 header and checksum offset disagree");
    proto = frame_[l3_ + 9];
  } else {
    if (len_ < l3_ + 40 || l4_ < l3_ + 40) return fail("truncated IPv6 header");
    proto = tcp_ ? kIpProtoTcp : kIpProtoUdp;  // the kernel's csum_start skips any extension headers
  }
  if (proto != (tcp_ ? kIpProtoTcp : kIpProtoUdp))
    return fail("segmentation offload type does not match the transport protocol");
  uint32_t l4_hdr = 8;
  if (tcp_) {
    if (len_ < l4_ + 20) return fail("truncated TCP header");
    l4_hdr = (frame_[l4_ + 12] >> 4) * 4u;
    if (l4_hdr < 20) return fail("bad TCP data offset");
  }
  hdr_len_ = l4_ + l4_hdr;
  if (hdr_len_ > len_) return fail("truncated transport header");
  if (info_.csum_offset != (tcp_ ? 16 : 6)) return fail("checksum offset is not the transport checksum");
  uint32_t mss = info_.gso_size;
  if (mss == 0) return fail("segment size 0");
  if (hdr_len_ + mss > max_len) return fail("segment longer than a packet buffer");
  uint32_t payload = len_ - hdr_len_;
  uint32_t n = payload == 0 ? 1 : (payload + mss - 1) / mss;
  if (n > kMaxSegments) return fail("too many segments");
  segments_ = n;
}

uint32_t OffloadedFrame::write_segment(uint32_t i, uint8_t* out) const {
  if (info_.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
    std::memcpy(out, frame_, len_);
    if (info_.needs_csum) {
      // the field holds the pseudo-header sum: summing over it finishes the checksum
      uint8_t* field = out + info_.csum_start + info_.csum_offset;
      uint16_t c = csum_fold(csum_add(0, out + info_.csum_start, len_ - info_.csum_start));
      store_be16(field, c == 0 ? 0xffff : c);
    }
    return len_;
  }
  uint32_t mss = info_.gso_size;
  uint32_t payload = len_ - hdr_len_;
  uint32_t off = i * mss;
  uint32_t n = std::min(mss, payload - std::min(off, payload));
  uint32_t total = hdr_len_ + n;
  std::memcpy(out, frame_, hdr_len_);
  std::memcpy(out + hdr_len_, frame_ + hdr_len_ + off, n);

  uint8_t* ip = out + l3_;
  uint8_t* l4 = out + l4_;
  uint32_t l4_len = total - l4_;
  uint32_t sum;
  if (ipv4_) {
    uint32_t ihl = (ip[0] & 0x0f) * 4u;
    store_be16(ip + 2, static_cast<uint16_t>(total - l3_));
    store_be16(ip + 4, static_cast<uint16_t>(load_be16(ip + 4) + i));  // each segment its own IP id
    store_be16(ip + 10, 0);
    store_be16(ip + 10, csum_fold(csum_add(0, ip, ihl)));
    sum = csum_add(0, ip + 12, 8);  // source and destination
  } else {
    store_be16(ip + 4, static_cast<uint16_t>(total - l3_ - 40));
    sum = csum_add(0, ip + 8, 32);
  }
  sum += (tcp_ ? kIpProtoTcp : kIpProtoUdp) + l4_len;  // rest of the pseudo header
  uint8_t* field;
  if (tcp_) {
    store_be32(l4 + 4, load_be32(l4 + 4) + off);
    if (i + 1 < segments_) l4[13] &= static_cast<uint8_t>(~0x09);  // FIN and PSH on the last only
    if (i > 0) l4[13] &= static_cast<uint8_t>(~0x80);              // CWR on the first only
    field = l4 + 16;
  } else {
    store_be16(l4 + 4, static_cast<uint16_t>(l4_len));
    field = l4 + 6;
  }
  store_be16(field, 0);
  uint16_t c = csum_fold(csum_add(sum, l4, l4_len));
  store_be16(field, !tcp_ && c == 0 ? 0xffff : c);
  return total;
}

}  // namespace obi::io
