#include "GzipDecompressor.hh"

#include "lib/block_spec.hh"

#include <zlib.h>

#include <cstring>

#include "lib/config.hh"
#include "lib/http_segment.hh"
#include "lib/zlib_arena.hh"

namespace obi {

using namespace blocks;

// zlib's memory comes from a fixed arena (state and 32 KiB window, about 40 KiB), filled
// once: inflateReset keeps both, so after the first packet zlib asks for nothing more.
struct GzipDecompressorElement::Inflater {
  z_stream zs{};
  ZlibArena<64 * 1024> arena;
  std::unique_ptr<uint8_t[]> out;
  bool ready = false;
};

GzipDecompressorElement::GzipDecompressorElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  max_size_ = static_cast<uint32_t>(c.integer("max_size", 8192, 64, 9000));
  for (unsigned w = 0; w < (args.workers ? args.workers : 1); ++w) {
    auto z = std::make_unique<Inflater>();
    z->out.reset(new uint8_t[max_size_ + 1]);
    z->arena.attach(z->zs);
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
  HttpSegment s;
  if (!find_http_segment(p, s) || !s.gzip || s.chunked || s.body() >= s.payload_len) return kUnchanged;

  if (inflateReset(&z.zs) != Z_OK) return kFailed;
  z.zs.next_in = reinterpret_cast<Bytef*>(s.payload + s.body());
  z.zs.avail_in = s.payload_len - s.body();
  z.zs.next_out = z.out.get();
  z.zs.avail_out = max_size_ + 1;
  const int rc = inflate(&z.zs, Z_SYNC_FLUSH);
  const uint32_t produced = max_size_ + 1 - z.zs.avail_out;
  if (produced > max_size_) return kOversize;
  if (rc != Z_STREAM_END && (rc != Z_OK && rc != Z_BUF_ERROR)) return kFailed;
  if (rc != Z_STREAM_END && produced == 0) return kFailed;

  // The head, compacted in place without Content-Encoding and Content-Length, then the body.
  const uint32_t at = static_cast<uint32_t>(reinterpret_cast<uint8_t*>(s.payload) - p.data);
  const uint32_t head = copy_head(s, {"content-encoding:", "content-length:"}, "", s.payload, s.body());
  const uint32_t new_len = at + head + produced;
  if (head == 0 || new_len > kMaxFrame || new_len > p.buf_size - static_cast<uint32_t>(p.data - p.buf))
    return kOversize;
  std::memcpy(s.payload + head, z.out.get(), produced);
  finish_segment(p, new_len);
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

OBI_REGISTER_BLOCK(GzipDecompressor, GzipDecompressorElement);

}  // namespace obi
