// Finishing frames that the kernel left for a device to finish (checksum and segmentation
// offload).
//
// veth, virtio and most NICs let the sender's stack skip work the "hardware" would do: a
// TCP/UDP checksum holding only the pseudo-header sum (CHECKSUM_PARTIAL) and TCP/UDP
// super-frames of up to 64 KiB to be cut into MTU-sized segments (GSO/TSO). An AF_PACKET
// socket with PACKET_VNET_HDR sees such a frame as it is, with a virtio_net_hdr saying what
// is left to do. A switch's data plane must finish that work itself before a block reads
// the headers or the frame leaves on another port, or the receiver drops it as corrupt
// (checksum) or the egress port refuses it (too long).
//
// OffloadedFrame describes one received frame with its virtio_net_hdr; segments() says how
// many frames it becomes and write_segment() writes each, complete: headers copied, lengths,
// IPv4 id and checksum, TCP sequence number and flags, TCP/UDP checksum. A frame that needs
// no segmentation is one segment (its partial checksum completed).
#pragma once

#include <cstdint>

namespace obi::io {

// The virtio_net_hdr fields, host order (the kernel writes them in host order for
// AF_PACKET without VIRTIO_NET_F_* negotiation).
struct OffloadInfo {
  bool needs_csum = false;   // VIRTIO_NET_HDR_F_NEEDS_CSUM
  uint16_t csum_start = 0;   // offset of the L4 header from the frame start
  uint16_t csum_offset = 0;  // offset of the checksum field from csum_start
  uint8_t gso_type = 0;      // VIRTIO_NET_HDR_GSO_* without the ECN bit
  uint16_t gso_size = 0;     // payload bytes per segment
};

// Bytes of the struct virtio_net_hdr in front of each frame (PACKET_VNET_HDR).
inline constexpr unsigned kVnetHdrLen = 10;

// Reads a struct virtio_net_hdr at `p`.
OffloadInfo read_vnet_hdr(const uint8_t* p);

// One's-complement sum of `n` bytes starting at an even offset, added to `sum`.
uint32_t csum_add(uint32_t sum, const uint8_t* p, uint32_t n);
// Folded, complemented checksum of a sum.
uint16_t csum_fold(uint32_t sum);

class OffloadedFrame {
 public:
  // `frame` and `len` as received; `info` from its virtio_net_hdr; every segment must fit
  // `max_len` bytes.
  OffloadedFrame(const uint8_t* frame, uint32_t len, const OffloadInfo& info, uint32_t max_len);

  // False when the frame cannot be finished (unknown GSO type, headers that do not
  // match the offload request, a segment that would not fit `max_len`): drop and count it.
  bool valid() const { return segments_ > 0; }
  const char* why_invalid() const { return why_; }
  // Frames this one becomes (1 without segmentation).
  uint32_t segments() const { return segments_; }
  // Writes segment `i` (< segments()) to `out` (room for max_len bytes); returns its length.
  uint32_t write_segment(uint32_t i, uint8_t* out) const;

  static constexpr uint32_t kMaxSegments = 1024;

 private:
  const uint8_t* frame_;
  uint32_t len_;
  OffloadInfo info_;
  uint32_t l3_ = 0;       // IP header
  uint32_t l4_ = 0;       // TCP/UDP header
  uint32_t hdr_len_ = 0;  // all headers: each segment starts with a copy of them
  bool ipv4_ = false;
  bool tcp_ = false;
  uint32_t segments_ = 0;
  const char* why_ = nullptr;

  void fail(const char* why) {
    why_ = why;
    segments_ = 0;
  }
  void plan_segments(uint32_t max_len);
};

}  // namespace obi::io
