// JsNormalizer (spec 5.35, modifier): rewrites the JavaScript body of an HTTP message
// into a canonical form, so that payload classifiers after it match the script's text
// rather than its spelling ("\x65val", "ev/**/al" split by comments, padding).
//
// Applies to a TCP segment holding an HTTP message head whose Content-Type names
// JavaScript (javascript, ecmascript), without Content-Encoding and not chunked, and the
// body bytes in the segment; other packets pass unchanged. In one pass over the body,
// each step as configured:
//   unescape             inside string literals ('...', "...", `...`): \xNN, \uNNNN,
//                        \u{N..N}, %NN and %uNNNN become the character (UTF-8; an
//                        invalid code point becomes U+FFFD); other escapes stay as written;
//   remove_comments      // comments up to the end of the line and /* */ comments (one
//                        space in their place) go; not inside strings;
//   collapse_whitespace  each run of whitespace outside strings becomes one space.
// Regular-expression literals are read as code (a quote in one starts a string that a
// newline ends). The body never grows, so it is rewritten in place (no buffer); when it
// shrank, the head loses its Content-Length line and the IP length and IPv4/TCP
// checksums are recomputed.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/JsNormalizer.json.
// Example: {"name": "js", "type": "JsNormalizer", "config": {"collapse_whitespace": false}}
#pragma once

#include <cstdint>

#include "lib/body_normalizer.hh"

namespace obi {

class JsNormalizerElement final : public blocks::BodyNormalizer {
 public:
  explicit JsNormalizerElement(const ElementArgs& args);

  uint32_t normalize(char* text, uint32_t n) const override;

 private:
  bool unescape_ = true, comments_ = true, whitespace_ = true;
};

}  // namespace obi
