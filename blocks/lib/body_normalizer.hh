// What HtmlNormalizer and JsNormalizer share: finding the body of an HTTP message of the
// content types a block handles, rewriting it in place, fixing the head and checksums
// after it shrank, and counting the bodies normalised (handles `count`, `reset_counts`).
// A block derives from BodyNormalizer, names its content types and implements normalize().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "engine/element.hh"
#include "lib/counts.hh"
#include "lib/http_segment.hh"

namespace obi::blocks {

namespace http_text {

// True when p holds an HTTP message head whose Content-Type contains one of `types`
// (lower case), without Content-Encoding, not chunked, with body bytes in the segment.
bool find_body(Packet& p, HttpSegment& s, const std::vector<std::string_view>& types);

// The body (s.payload + s.body(), s.payload_len - s.body() bytes) was rewritten in place
// to its first n bytes: when it shrank, drops Content-Length from the head, moves the
// body behind the head and sets the IP length and checksums.
void finish_body(Packet& p, const HttpSegment& s, uint32_t n);

// Appends UTF-8 of code point cp (U+FFFD for an invalid one) at out; returns the bytes.
uint32_t put_utf8(char* out, uint32_t cp);

}  // namespace http_text

class BodyNormalizer : public Element {
 public:
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) final;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  // Normalises `n` bytes at `text` in place; returns the new length (<= n).
  virtual uint32_t normalize(char* text, uint32_t n) const = 0;

 protected:
  // `types`: lower-case parts of the Content-Types handled (string literals).
  BodyNormalizer(const ElementArgs& args, std::initializer_list<std::string_view> types);

 private:
  std::vector<std::string_view> types_;
  Counts<1> counts_;
};

}  // namespace obi::blocks
