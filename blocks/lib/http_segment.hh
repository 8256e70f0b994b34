// HTTP message heads in TCP segments, for the blocks that rewrite a body in place
// (GzipDecompressor, GzipCompressor): where the head and the body of a segment are, what
// the head says about the body's encoding, and the IP and TCP fix-up after the segment
// changed length.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/packet.hh"

namespace obi::blocks {

struct HttpSegment {
  char* payload = nullptr;   // the TCP payload
  uint32_t payload_len = 0;  // up to the end of the IP packet (Ethernet padding excluded)
  uint32_t first_eol = 0;    // offset of the CRLF after the request or status line
  uint32_t head_end = 0;     // offset of the CRLF CRLF that ends the head
  bool gzip = false;         // Content-Encoding names gzip (or x-gzip)
  bool encoded = false;      // there is a Content-Encoding line
  bool chunked = false;      // Transfer-Encoding names chunked

  uint32_t body() const { return head_end + 4; }
  std::string_view head() const { return {payload, head_end + 2}; }
};

// Heads longer than this are not looked at.
inline constexpr uint32_t kMaxHttpHead = 4096;

// True when p is an IPv4 or IPv6 TCP segment (not a fragment) whose payload starts with
// an HTTP request or status line and holds the whole head within kMaxHttpHead bytes.
bool find_http_segment(Packet& p, HttpSegment& s);

// Case-insensitive: does `line` start with `lower_name` (given in lower case)?
bool starts_with_name(std::string_view line, std::string_view lower_name);

// Copies the head lines of s (request/status line first) to `out`, leaving out the lines
// whose name is in `drop` (lower case, with the colon), and ends it with `extra` (whole
// lines, may be empty) and the blank line. Returns the bytes written, 0 if `cap` is short.
uint32_t copy_head(const HttpSegment& s, std::initializer_list<std::string_view> drop, std::string_view extra,
                   char* out, uint32_t cap);

// After the segment's payload now ends at p.data + new_len: sets p.len, the IPv4 total
// length or IPv6 payload length, the IPv4 header checksum and the TCP checksum.
void finish_segment(Packet& p, uint32_t new_len);

}  // namespace obi::blocks
