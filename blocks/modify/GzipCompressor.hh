// GzipCompressor (spec 5.36, modifier): compresses the HTTP body of a segment with gzip.
//
// A TCP segment whose payload is an HTTP message head (request or status line, headers,
// blank line) without a Content-Encoding, not chunked, followed by a body of at least
// min_size bytes has the body replaced by a gzip stream of it: the head loses its
// Content-Length line and gains "Content-Encoding: gzip", the IP length and the IPv4 and
// TCP checksums are recomputed. The body in the segment is compressed as a stream of its
// own (a body continued in later segments is not followed). A body that gzip would not
// make smaller passes unchanged and is counted in `incompressible`; other segments pass
// unchanged. GzipDecompressor undoes it.
//
// Each worker owns a deflater whose memory (about 270 KiB) is allocated once when the
// block is built; the data path allocates nothing.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/GzipCompressor.json.
// Example: {"name": "gzip", "type": "GzipCompressor", "config": {"level": 6, "min_size": 512}}
#pragma once

#include <memory>
#include <vector>

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

class GzipCompressorElement final : public Element {
 public:
  explicit GzipCompressorElement(const ElementArgs& args);
  ~GzipCompressorElement() override;

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  struct Deflater;
  enum Outcome { kUnchanged, kCompressed, kIncompressible };

 private:
  Outcome rewrite(Packet& p, Deflater& z) const;

  int level_ = 6;
  uint32_t min_size_ = 256;
  std::vector<std::unique_ptr<Deflater>> deflaters_;  // one per worker
  enum { kCount, kIncompressible_ };
  blocks::Counts<2> counts_;
};

}  // namespace obi
