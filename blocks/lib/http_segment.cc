#include "lib/http_segment.hh"

#include <cctype>
#include <cstring>

#include "lib/bytes.hh"
#include "lib/ip_fixup.hh"

namespace obi::blocks {

namespace {

bool contains_name(std::string_view s, std::string_view lower) {
  for (size_t i = 0; i + lower.size() <= s.size(); ++i)
    if (starts_with_name(s.substr(i), lower)) return true;
  return false;
}

}  // namespace

bool starts_with_name(std::string_view line, std::string_view lower_name) {
  if (line.size() < lower_name.size()) return false;
  for (size_t i = 0; i < lower_name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != lower_name[i]) return false;
  return true;
}

bool find_http_segment(Packet& p, HttpSegment& s) {
  const Headers& h = p.headers();
  if (h.ip_proto != kIpProtoTcp || h.fragment || h.payload == kNoOffset || h.l3 == kNoOffset) return false;
  const bool v4 = h.eth_type == kEthIpv4;
  if (!v4 && h.eth_type != kEthIpv6) return false;
  const uint32_t ip_end = ip_packet_end(p, h);
  if (ip_end > p.len || ip_end <= h.payload) return false;
  s = HttpSegment{};
  s.payload = reinterpret_cast<char*>(p.data + h.payload);
  s.payload_len = ip_end - h.payload;
  const std::string_view seg(s.payload, s.payload_len < kMaxHttpHead ? s.payload_len : kMaxHttpHead);
  const size_t end = seg.find("\r\n\r\n");
  if (end == std::string_view::npos) return false;
  const size_t eol = seg.find("\r\n");
  const std::string_view first = seg.substr(0, eol);
  if (first.substr(0, 7) != "HTTP/1." && first.find(" HTTP/1.") == std::string_view::npos) return false;
  s.first_eol = static_cast<uint32_t>(eol);
  s.head_end = static_cast<uint32_t>(end);
  for (size_t at = eol + 2; at < end + 2;) {
    const size_t next = seg.find("\r\n", at);
    const std::string_view line = seg.substr(at, next - at);
    if (starts_with_name(line, "content-encoding:")) {
      s.encoded = true;
      s.gzip = contains_name(line.substr(17), "gzip");
    } else if (starts_with_name(line, "transfer-encoding:")) {
      s.chunked = contains_name(line.substr(18), "chunked");
    }
    at = next + 2;
  }
  return true;
}

uint32_t copy_head(const HttpSegment& s, std::initializer_list<std::string_view> drop, std::string_view extra,
                   char* out, uint32_t cap) {
  const std::string_view head = s.head();
  uint32_t w = 0;
  auto put = [&](std::string_view t) {
    if (w + t.size() > cap) return false;
    std::memmove(out + w, t.data(), t.size());
    w += static_cast<uint32_t>(t.size());
    return true;
  };
  if (!put(head.substr(0, s.first_eol + 2))) return 0;
  for (size_t at = s.first_eol + 2; at < head.size();) {
    const size_t next = head.find("\r\n", at);
    const std::string_view line = head.substr(at, next + 2 - at);
    bool dropped = false;
    for (std::string_view d : drop) dropped |= starts_with_name(line, d);
    if (!dropped && !put(line)) return 0;
    at = next + 2;
  }
  if (!put(extra) || !put("\r\n")) return 0;
  return w;
}

void finish_segment(Packet& p, uint32_t new_len) {
  const Headers h = p.headers();
  p.len = new_len;
  fix_lengths_and_checksums(p, h);
  p.invalidate_headers();
}

}  // namespace obi::blocks
