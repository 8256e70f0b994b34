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
// Config keys, handles and port counts: blocks/catalogue/HtmlNormalizer.json.
// Example: {"name": "html", "type": "HtmlNormalizer", "config": {"remove_comments": false}}
#pragma once

#include <cstdint>

#include "lib/body_normalizer.hh"

namespace obi {

class HtmlNormalizerElement final : public blocks::BodyNormalizer {
 public:
  explicit HtmlNormalizerElement(const ElementArgs& args);

  uint32_t normalize(char* text, uint32_t n) const override;

 private:
  bool entities_ = true, comments_ = true, lowercase_ = true, whitespace_ = true;
};

}  // namespace obi
