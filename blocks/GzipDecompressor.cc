#include "GzipDecompressor.hh"

#include <zlib.h>

#include <cctype>
#include <cstring>
#include <string_view>

#include "modify/bytes.hh"
#include "modify/config.hh"

namespace obi {

using namespace modify;

// zlib's memory comes from a fixed arena (state and 32 KiB window, about 40 KiB), filled
// once: inflateReset keeps both, so after the first packet zlib asks for nothing more.
struct GzipDecompressorElement::Inflater {
  static constexpr size_t kArena = 64 * 1024;
  z_stream zs{};
  std::unique_ptr<uint8_t[]> arena{new uint8_t[kArena]};
  size_t used = 0;
  std::unique_ptr<uint8_t[]> out;
  bool ready = false;

  static voidpf alloc(voidpf opaque, uInt items, uInt size) {
    auto* self = static_cast<Inflater*>(opaque);
    size_t n = (size_t(items) * size + 15) & ~size_t(15);
    if (self->used + n > kArena) return Z_NULL;
    void* p = self->arena.get() + self->used;
    self->used += n;
    return p;
  }
  static void release(voidpf, voidpf) {}
};

namespace {

constexpr uint32_t kMaxHead = 4096;   // an HTTP head longer than this is not looked at

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

bool icontains(std::string_view s, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= s.size(); ++i)
    if (iequals_prefix(s.substr(i), needle)) return true;
  return false;
}

uint32_t sum_words(uint32_t s, const uint8_t* p, uint32_t n) {
  for (uint32_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  return s;
}
uint16_t fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

}  // namespace

GzipDecompressorElement::GzipDecompressorElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  c.only({"max_size"});
  max_size_ = static_cast<uint32_t>(c.integer("max_size", 8192, 64, 9000));
  for (unsigned w = 0; w < (args.workers ? args.workers : 1); ++w) {
    auto z = std::make_unique<Inflater>();
    z->out.reset(new uint8_t[max_size_ + 1]);
    z->zs.zalloc = &Inflater::alloc;
    z->zs.zfree = &Inflater::release;
    z->zs.opaque = z.get();
    if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK)
      throw openbox::ProtocolError(openbox::ErrorSubtype::BAD_BLOCK, c.block() + ": zlib inflater could not start");
    z->ready = true;
    inflaters_.push_back(std::move(z));
  }
}

GzipDecompressorElement::~GzipDecompressorElement() {
  for (auto& z : inflaters_)
    if (z->ready) inflateEnd(&z->zs);
}

GzipDecompressorElement::Outcome GzipDecompressorElement::rewrite(Packet& p, Inflater& z) const {
  const Headers& h = p.headers();
  if (h.ip_proto != kProtoTcp || h.fragment || h.payload == kNoOffset || h.l3 == kNoOffset) return kUnchanged;
  const bool v4 = h.eth_type == kEthIpv4;
  if (!v4 && h.eth_type != kEthIpv6) return kUnchanged;
  // The segment ends where the IP packet does (Ethernet padding is not body).
  uint32_t ip_end = v4 ? h.l3 + rd16(p.data + h.l3 + 2) : h.l3 + 40 + rd16(p.data + h.l3 + 4);
  if (ip_end > p.len || ip_end <= h.payload) return kUnchanged;
  char* pay = reinterpret_cast<char*>(p.data + h.payload);
  const uint32_t pay_len = ip_end - h.payload;

  const std::string_view seg(pay, pay_len < kMaxHead ? pay_len : kMaxHead);
  const size_t head_end = seg.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return kUnchanged;
  const size_t first_eol = seg.find("\r\n");
  const std::string_view first = seg.substr(0, first_eol);
  if (first.substr(0, 7) != "HTTP/1." && first.find(" HTTP/1.") == std::string_view::npos) return kUnchanged;

  bool gzip = false, chunked = false;
  for (size_t at = first_eol + 2; at < head_end + 2;) {
    size_t eol = seg.find("\r\n", at);
    std::string_view line = seg.substr(at, eol - at);
    if (iequals_prefix(line, "content-encoding:")) gzip = icontains(line.substr(17), "gzip");
    else if (iequals_prefix(line, "transfer-encoding:")) chunked = icontains(line.substr(18), "chunked");
    at = eol + 2;
  }
  const uint32_t body = static_cast<uint32_t>(head_end + 4);
  if (!gzip || chunked || body >= pay_len) return kUnchanged;

  if (inflateReset(&z.zs) != Z_OK) return kFailed;
  z.zs.next_in = reinterpret_cast<Bytef*>(pay + body);
  z.zs.avail_in = pay_len - body;
  z.zs.next_out = z.out.get();
  z.zs.avail_out = max_size_ + 1;
  int rc = inflate(&z.zs, Z_SYNC_FLUSH);
  const uint32_t produced = max_size_ + 1 - z.zs.avail_out;
  if (produced > max_size_) return kOversize;
  if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) return kFailed;
  if (rc != Z_STREAM_END && produced == 0) return kFailed;

  // Compact the head in place without Content-Encoding and Content-Length.
  uint32_t w = static_cast<uint32_t>(first_eol + 2);
  for (size_t at = first_eol + 2; at < head_end + 2;) {
    size_t eol = seg.find("\r\n", at);
    std::string_view line(pay + at, eol - at);
    bool drop = iequals_prefix(line, "content-encoding:") || iequals_prefix(line, "content-length:");
    if (!drop) {
      std::memmove(pay + w, pay + at, eol + 2 - at);
      w += static_cast<uint32_t>(eol + 2 - at);
    }
    at = eol + 2;
  }
  pay[w++] = '\r';
  pay[w++] = '\n';
  const uint32_t new_len = h.payload + w + produced;
  if (new_len > kMaxFrame || new_len > p.buf_size - static_cast<uint32_t>(p.data - p.buf)) return kOversize;
  std::memcpy(pay + w, z.out.get(), produced);
  p.len = new_len;

  uint8_t* ip = p.data + h.l3;
  uint8_t* tcp = p.data + h.l4;
  const uint32_t l4_len = new_len - h.l4;
  uint32_t s;
  if (v4) {
    wr16(ip + 2, static_cast<uint16_t>(new_len - h.l3));
    wr16(ip + 10, 0);
    wr16(ip + 10, fold(sum_words(0, ip, (ip[0] & 0x0fu) * 4)));
    s = sum_words(0, ip + 12, 8);
  } else {
    wr16(ip + 4, static_cast<uint16_t>(new_len - h.l3 - 40));
    s = sum_words(0, ip + 8, 32);
  }
  s += kProtoTcp + l4_len;
  wr16(tcp + 16, 0);
  wr16(tcp + 16, fold(sum_words(s, tcp, l4_len)));
  p.invalidate_headers();
  return kDecompressed;
}

void GzipDecompressorElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Inflater& z = *inflaters_[ctx.worker];
  uint32_t kept = 0, done = 0, failed = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    switch (rewrite(*p, z)) {
      case kOversize: ctx.drop(p); continue;
      case kDecompressed: ++done; break;
      case kFailed: ++failed; break;
      case kUnchanged: break;
    }
    batch.pkts[kept++] = p;
  }
  counts_.add(ctx.worker, kOversize_, batch.n - kept);
  counts_.add(ctx.worker, kCount, done);
  counts_.add(ctx.worker, kFailures, failed);
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json GzipDecompressorElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "failures") return counts_.get(kFailures);
  if (h == "oversize") return counts_.get(kOversize_);
  return Element::read(h);
}

void GzipDecompressorElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_ELEMENT(GzipDecompressor, GzipDecompressorElement);

}  // namespace obi
