// The IP packet's own extent, and after a block changed how long a packet is (a rewritten
// HTTP body, restored bytes) the IP length field and every checksum made to match the
// bytes as they now are, through the typed header views. Shared by the blocks that rewrite
// HTTP bodies (through http_segment's finish_segment), Store and Restore.
#pragma once

#include "engine/packet.hh"

namespace obi::blocks {

// Where the IP packet ends by its own length field (IPv4 total length, IPv6 fixed header
// plus payload length), which may be past p.len in a truncated frame or before it when
// Ethernet padding follows; p.len when there is no IP header.
uint32_t ip_packet_end(Packet& p, const Headers& h);

// With the packet's headers `h` (parsed before the change, the offsets unchanged) and its
// new end p.len: the IPv4 total length and header checksum, or the IPv6 payload length;
// then the TCP checksum, or the UDP length and checksum (an IPv4 UDP packet sent without
// one keeps none). Does nothing to a packet without a complete IP header, and leaves the
// L4 header of a fragment alone.
void fix_lengths_and_checksums(Packet& p, const Headers& h);

}  // namespace obi::blocks
