#include "GzipCompressor.hh"

#include "lib/block_spec.hh"

#include <zlib.h>

#include <cstring>

#include "lib/config.hh"
#include "lib/http_segment.hh"
#include "lib/zlib_arena.hh"

namespace obi {

using namespace blocks;

// zlib's memory comes from a fixed arena (state, 32 KiB window and its hash chains, the
// pending buffer: about 270 KiB at memLevel 8), filled once: deflateReset keeps it all.
struct GzipCompressorElement::Deflater {
  static constexpr uint32_t kHeadRoom = kMaxHttpHead + 64;  // the head plus the added line
  z_stream zs{};
  ZlibArena<320 * 1024> arena;
  std::unique_ptr<uint8_t[]> body{new uint8_t[kMaxFrame]};
  std::unique_ptr<char[]> head{new char[kHeadRoom]};
  bool ready = false;
};

GzipCompressorElement::GzipCompressorElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  level_ = static_cast<int>(c.integer("level", 6, 1, 9));
  min_size_ = static_cast<uint32_t>(c.integer("min_size", 256, 0, 9000));
  for (unsigned w = 0; w < (args.workers ? args.workers : 1); ++w) {
    auto z = std::make_unique<Deflater>();
    z->arena.attach(z->zs);
    if (deflateInit2(&z->zs, level_, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw openbox::ProtocolError(openbox::ErrorSubtype::BAD_BLOCK, c.block() + ": zlib deflater could not start");
    z->ready = true;
    deflaters_.push_back(std::move(z));
  }
}

GzipCompressorElement::~GzipCompressorElement() {
  for (auto& z : deflaters_)
    if (z->ready) deflateEnd(&z->zs);
}

GzipCompressorElement::Outcome GzipCompressorElement::rewrite(Packet& p, Deflater& z) const {
  HttpSegment s;
  if (!find_http_segment(p, s) || s.encoded || s.chunked) return kUnchanged;
  const uint32_t body_len = s.payload_len - s.body();
  if (body_len == 0 || body_len < min_size_) return kUnchanged;

  if (deflateReset(&z.zs) != Z_OK) return kIncompressible;
  z.zs.next_in = reinterpret_cast<Bytef*>(s.payload + s.body());
  z.zs.avail_in = body_len;
  z.zs.next_out = z.body.get();
  z.zs.avail_out = body_len - 1;  // it must come out smaller
  if (deflate(&z.zs, Z_FINISH) != Z_STREAM_END) return kIncompressible;
  const uint32_t packed = body_len - 1 - z.zs.avail_out;

  const uint32_t head =
      copy_head(s, {"content-length:"}, "Content-Encoding: gzip\r\n", z.head.get(), Deflater::kHeadRoom);
  const uint32_t at = static_cast<uint32_t>(reinterpret_cast<uint8_t*>(s.payload) - p.data);
  const uint32_t new_len = at + head + packed;
  if (head == 0 || new_len > kMaxFrame || new_len > p.buf_size - static_cast<uint32_t>(p.data - p.buf))
    return kIncompressible;
  std::memcpy(s.payload, z.head.get(), head);
  std::memcpy(s.payload + head, z.body.get(), packed);
  finish_segment(p, new_len);
  return kCompressed;
}

void GzipCompressorElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Deflater& z = *deflaters_[ctx.worker];
  uint64_t done = 0, skipped = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Outcome o = rewrite(*batch.pkts[i], z);
    done += o == kCompressed;
    skipped += o == kIncompressible;
  }
  counts_.add(ctx.worker, kCount, done);
  counts_.add(ctx.worker, kIncompressible_, skipped);
  out.emit(0, batch, ctx);
}

nlohmann::json GzipCompressorElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "incompressible") return counts_.get(kIncompressible_);
  return Element::read(h);
}

void GzipCompressorElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(GzipCompressor, GzipCompressorElement);

}  // namespace obi
