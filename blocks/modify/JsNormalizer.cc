#include "JsNormalizer.hh"

#include <cstring>

#include "lib/block_spec.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
// `digits` hex digits at t (n bytes left) as a number, or -1.
int64_t hex(const char* t, uint32_t n, uint32_t digits) {
  if (n < digits) return -1;
  int64_t v = 0;
  for (uint32_t i = 0; i < digits; ++i) {
    const int d = hex_digit(t[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// The escape at t[0] ('\\' or '%'), n bytes left: its code point, its length and whether
// it stands for a byte (\xNN, %NN) rather than a code point; 0 when it is none of these.
uint32_t escape(const char* t, uint32_t n, uint32_t& cp, bool& byte) {
  byte = false;
  int64_t v;
  if (t[0] == '\\') {
    if (n < 2) return 0;
    if (t[1] == 'x' && (v = hex(t + 2, n - 2, 2)) >= 0) {
      cp = uint32_t(v);
      byte = true;
      return 4;
    }
    if (t[1] != 'u') return 0;
    if ((v = hex(t + 2, n - 2, 4)) >= 0) {
      cp = uint32_t(v);
      return 6;
    }
    if (n < 4 || t[2] != '{') return 0;
    uint32_t i = 3, acc = 0;
    for (; i < n && i < 3 + 6 && hex_digit(t[i]) >= 0; ++i) acc = acc * 16 + uint32_t(hex_digit(t[i]));
    if (i == 3 || i >= n || t[i] != '}') return 0;
    cp = acc;
    return i + 1;
  }
  if (n >= 6 && (t[1] == 'u' || t[1] == 'U') && (v = hex(t + 2, n - 2, 4)) >= 0) {
    cp = uint32_t(v);
    return 6;
  }
  if ((v = hex(t + 1, n - 1, 2)) >= 0) {
    cp = uint32_t(v);
    byte = true;
    return 3;
  }
  return 0;
}

}  // namespace

JsNormalizerElement::JsNormalizerElement(const ElementArgs& args) : BodyNormalizer(args, {"javascript", "ecmascript"}) {
  ConfigReader c(args);
  unescape_ = c.boolean("unescape", true);
  comments_ = c.boolean("remove_comments", true);
  whitespace_ = c.boolean("collapse_whitespace", true);
}

uint32_t JsNormalizerElement::normalize(char* t, uint32_t n) const {
  // Writing at w never passes reading at r: every step emits at most what it consumed.
  uint32_t r = 0, w = 0;
  char quote = 0;      // inside a string literal: its quote
  bool space = false;  // the last byte written is a collapsed space (outside strings)
  auto code = [&](char c) {
    if (whitespace_ && is_space(c)) {
      if (space) return;
      c = ' ';
      space = true;
    } else {
      space = false;
    }
    t[w++] = c;
  };
  while (r < n) {
    const char c = t[r];
    if (quote == 0) {
      if (comments_ && c == '/' && r + 1 < n && t[r + 1] == '/') {
        while (r < n && t[r] != '\n') ++r;  // the newline stays, as whitespace
        continue;
      }
      if (comments_ && c == '/' && r + 1 < n && t[r + 1] == '*') {
        const std::string_view rest(t + r + 2, n - r - 2);
        const size_t end = rest.find("*/");
        r = end == std::string_view::npos ? n : r + 2 + static_cast<uint32_t>(end) + 2;
        code(' ');
        continue;
      }
      if (c == '\'' || c == '"' || c == '`') quote = c;
      code(c);
      ++r;
      continue;
    }
    space = false;
    if (unescape_ && (c == '\\' || c == '%')) {
      uint32_t cp = 0;
      bool byte = false;
      const uint32_t len = escape(t + r, n - r, cp, byte);
      if (len != 0) {
        r += len;
        if (byte) t[w++] = static_cast<char>(cp);
        else w += http_text::put_utf8(t + w, cp);  // at most 4 bytes for at least 6 read
        continue;
      }
    }
    if (c == '\\' && r + 1 < n) {  // another escape: both bytes as written
      t[w++] = t[r++];
      t[w++] = t[r++];
      continue;
    }
    if (c == quote || (c == '\n' && quote != '`')) quote = 0;  // a newline ends an unterminated '' or ""
    t[w++] = c;
    ++r;
  }
  return w;
}

OBI_REGISTER_BLOCK(JsNormalizer, JsNormalizerElement);

}  // namespace obi
