// HtmlNormalizer (spec 5.35, modifier): rewrites the HTML body of an HTTP message into a
// canonical form, so that payload classifiers after it (StringClassifier, RegexClassifier,
// HeaderPayloadClassifier) match what a browser would read, not its encoding.
//
// Applies to a TCP segment holding an HTTP message head whose Content-Type names HTML
// (text/html, application/xhtml+xml), without Content-Encoding (GzipDecompressor first
// for gzip) and not chunked, and the body bytes in the segment; other packets pass
// unchanged. In one pass over the body, each step as configured:
//   decode_entities      &lt; &gt; &amp; &quot; &apos; &nbsp; (a space) (with ';'; lt gt amp quot
//                        also without) and numeric &#60; &#x3c; (';' optional) become the
//                        character (UTF-8; an invalid code point becomes U+FFFD); decoded
//                        once, so "&amp;lt;" gives "&lt;";
//   remove_comments      <!-- ... --> goes (an unterminated one to the end of the segment);
//   lowercase_tags       tag and attribute names in lower case (values untouched);
//   collapse_whitespace  each run of whitespace (decoded ones included) becomes one space.
// The body never grows, so it is rewritten in place (no buffer); when it shrank, the head
// loses its Content-Length line and the IP length and IPv4/TCP checksums are recomputed.
//
// Ports:   1 input, 1 output.
// Config:  decode_entities, remove_comments, lowercase_tags, collapse_whitespace (bools,
//          default true).
// Handles: read count (bodies normalised).  Write reset_counts.
// Example: {"name": "html", "type": "HtmlNormalizer", "config": {"remove_comments": false}}
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "engine/element.hh"
#include "lib/counts.hh"
#include "lib/http_segment.hh"

namespace obi {

// The HTTP body handling both normalizers share.
namespace http_text {

// True when p holds an HTTP message head whose Content-Type contains one of `types`
// (lower case), without Content-Encoding, not chunked, with body bytes in the segment.
bool find_body(Packet& p, blocks::HttpSegment& s, std::initializer_list<std::string_view> types);

// The body (s.payload + s.body(), s.payload_len - s.body() bytes) was rewritten in place
// to its first n bytes: when it shrank, drops Content-Length from the head, moves the
// body behind the head and sets the IP length and checksums.
void finish_body(Packet& p, const blocks::HttpSegment& s, uint32_t n);

// Appends UTF-8 of code point cp (U+FFFD for an invalid one) at out; returns the bytes.
uint32_t put_utf8(char* out, uint32_t cp);

}  // namespace http_text

class HtmlNormalizerElement final : public Element {
 public:
  explicit HtmlNormalizerElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  // Normalises `n` bytes at `text` in place; returns the new length (<= n).
  uint32_t normalize(char* text, uint32_t n) const;

 private:
  bool entities_ = true, comments_ = true, lowercase_ = true, whitespace_ = true;
  blocks::Counts<1> counts_;
};

}  // namespace obi
