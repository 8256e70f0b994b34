#include "lib/body_normalizer.hh"

#include <cstring>

namespace obi::blocks {

namespace http_text {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_lower(std::string_view hay, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && lower(hay[i + k]) == needle[k]) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

}  // namespace

bool find_body(Packet& p, HttpSegment& s, const std::vector<std::string_view>& types) {
  if (!find_http_segment(p, s) || s.encoded || s.chunked || s.body() >= s.payload_len) return false;
  const std::string_view head = s.head();
  for (size_t at = s.first_eol + 2; at < head.size();) {
    const size_t next = head.find("\r\n", at);
    const std::string_view line = head.substr(at, next - at);
    if (starts_with_name(line, "content-type:")) {
      for (std::string_view t : types)
        if (contains_lower(line.substr(13), t)) return true;
      return false;
    }
    at = next + 2;
  }
  return false;
}

void finish_body(Packet& p, const HttpSegment& s, uint32_t n) {
  const uint32_t old = s.payload_len - s.body();
  if (n == old) return;
  char* body = s.payload + s.body();
  const uint32_t head = copy_head(s, {"content-length:"}, "", s.payload, s.body());
  std::memmove(s.payload + head, body, n);
  const uint32_t at = static_cast<uint32_t>(reinterpret_cast<uint8_t*>(s.payload) - p.data);
  finish_segment(p, at + head + n);
}

uint32_t put_utf8(char* out, uint32_t cp) {
  if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  auto b = [&](unsigned i, uint32_t v) { out[i] = static_cast<char>(v); };
  if (cp < 0x80) {
    b(0, cp);
    return 1;
  }
  if (cp < 0x800) {
    b(0, 0xc0 | cp >> 6);
    b(1, 0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    b(0, 0xe0 | cp >> 12);
    b(1, 0x80 | (cp >> 6 & 0x3f));
    b(2, 0x80 | (cp & 0x3f));
    return 3;
  }
  b(0, 0xf0 | cp >> 18);
  b(1, 0x80 | (cp >> 12 & 0x3f));
  b(2, 0x80 | (cp >> 6 & 0x3f));
  b(3, 0x80 | (cp & 0x3f));
  return 4;
}

}  // namespace http_text

BodyNormalizer::BodyNormalizer(const ElementArgs& args, std::initializer_list<std::string_view> types)
    : types_(types), counts_(args.workers) {}

void BodyNormalizer::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint64_t done = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    HttpSegment s;
    if (!http_text::find_body(p, s, types_)) continue;
    const uint32_t n = normalize(s.payload + s.body(), s.payload_len - s.body());
    http_text::finish_body(p, s, n);
    ++done;
  }
  counts_.add(ctx.worker, 0, done);
  out.emit(0, batch, ctx);
}

nlohmann::json BodyNormalizer::read(std::string_view h) const {
  if (h == "count") return counts_.get(0);
  return Element::read(h);
}

void BodyNormalizer::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

}  // namespace obi::blocks
