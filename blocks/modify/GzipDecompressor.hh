// GzipDecompressor (spec 5.34, modifier): replaces a gzip-encoded HTTP body by its
// decompressed form, so payload classifiers after it see plain text.
//
// A TCP segment whose payload is an HTTP message head (request or status line, headers,
// blank line) with "Content-Encoding: gzip" (or x-gzip) and a body is rewritten: the
// Content-Encoding and Content-Length header lines are removed, the body is inflated
// (a body cut off at the segment's end yields what it holds so far), the IP length and
// the IPv4 and TCP checksums are recomputed. Segments without such a head, continuation
// segments of a body and chunked bodies pass unchanged; a body that is not valid gzip
// passes unchanged and is counted in `failures`. A body that inflates to more than
// max_size bytes, or a result that does not fit in the packet's buffer, is dropped and
// counted in `oversize`: the inflater stops once max_size + 1 bytes are out, so a
// decompression bomb costs at most that much work and memory.
//
// Each worker owns an inflater whose memory (state, window, output) is allocated once
// when the block is built; the data path allocates nothing.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/GzipDecompressor.json.
// Example: {"name": "gunzip", "type": "GzipDecompressor", "config": {"max_size": 8192}}
#pragma once

#include <memory>
#include <vector>

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

class GzipDecompressorElement final : public Element {
 public:
  explicit GzipDecompressorElement(const ElementArgs& args);
  ~GzipDecompressorElement() override;

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  struct Inflater;
  enum Outcome { kUnchanged, kDecompressed, kFailed, kOversize };

 private:
  Outcome rewrite(Packet& p, Inflater& z) const;

  uint32_t max_size_ = 8192;
  std::vector<std::unique_ptr<Inflater>> inflaters_;  // one per worker
  enum { kCount, kFailures, kOversize_ };
  blocks::Counts<3> counts_;
};

}  // namespace obi
