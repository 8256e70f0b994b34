#include "HtmlNormalizer.hh"

#include <cstring>

#include "lib/block_spec.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// The entity at t[0] == '&' (n bytes left): its code point and length, 0 when none.
uint32_t entity(const char* t, uint32_t n, uint32_t& cp) {
  if (n >= 3 && t[1] == '#') {
    const bool hex = t[2] == 'x' || t[2] == 'X';
    uint32_t i = hex ? 3 : 2, v = 0, digits = 0;
    for (; i < n; ++i, ++digits) {
      const int d = hex ? hex_digit(t[i]) : (t[i] >= '0' && t[i] <= '9' ? t[i] - '0' : -1);
      if (d < 0) break;
      v = v > 0x10ffff ? v : v * (hex ? 16 : 10) + static_cast<uint32_t>(d);  // saturates past the range
    }
    if (digits == 0) return 0;
    cp = v;
    return i < n && t[i] == ';' ? i + 1 : i;
  }
  struct Named {
    std::string_view name;
    uint32_t cp;
    bool bare;
  };
  static constexpr Named kNamed[] = {{"lt", '<', true},   {"gt", '>', true},     {"amp", '&', true},
                                     {"quot", '"', true}, {"apos", '\'', false}, {"nbsp", ' ', false}};
  for (const Named& e : kNamed) {
    const uint32_t len = static_cast<uint32_t>(e.name.size());
    if (n < 1 + len || std::string_view(t + 1, len) != e.name) continue;
    if (n > 1 + len && t[1 + len] == ';') {
      cp = e.cp;
      return len + 2;
    }
    if (e.bare) {
      cp = e.cp;
      return len + 1;
    }
  }
  return 0;
}

}  // namespace

HtmlNormalizerElement::HtmlNormalizerElement(const ElementArgs& args)
    : BodyNormalizer(args, {"text/html", "application/xhtml"}) {
  ConfigReader c(args);
  entities_ = c.boolean("decode_entities", true);
  comments_ = c.boolean("remove_comments", true);
  lowercase_ = c.boolean("lowercase_tags", true);
  whitespace_ = c.boolean("collapse_whitespace", true);
}

uint32_t HtmlNormalizerElement::normalize(char* t, uint32_t n) const {
  // Writing at w never passes reading at r: every step emits at most what it consumed.
  enum State : uint8_t { kText, kTagName, kInTag, kAttrName, kBeforeValue, kValue, kQuoted };
  State st = kText;
  char quote = 0;  // kQuoted: the value's quote
  uint32_t r = 0, w = 0;
  bool space = false;  // the last byte written is a collapsed space
  auto emit = [&](char c) {
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
    if (st == kText && comments_ && c == '<' && n - r >= 4 && std::memcmp(t + r, "<!--", 4) == 0) {
      const std::string_view rest(t + r + 4, n - r - 4);
      const size_t end = rest.find("-->");
      r = end == std::string_view::npos ? n : r + 4 + static_cast<uint32_t>(end) + 3;
      continue;
    }
    if (entities_ && c == '&' && (st == kText || st == kBeforeValue || st == kValue || st == kQuoted)) {
      uint32_t cp = 0;
      const uint32_t len = entity(t + r, n - r, cp);
      if (len != 0) {
        char u[4];
        const uint32_t k = http_text::put_utf8(u, cp);  // k <= len: an entity is longer than its UTF-8
        r += len;
        if (st == kBeforeValue) st = kValue;
        if (k == 1) emit(u[0]);
        else {
          std::memcpy(t + w, u, k);
          w += k;
          space = false;
        }
        continue;
      }
    }
    ++r;
    switch (st) {
      case kText:
        if (c == '<' && r < n && (is_alpha(t[r]) || t[r] == '/' || t[r] == '!')) st = kTagName;
        emit(c);
        break;
      case kTagName:
        if (is_space(c)) st = kInTag;
        else if (c == '>') st = kText;
        emit(lowercase_ ? lower(c) : c);
        break;
      case kInTag:
      case kAttrName:
        if (c == '>') st = kText;
        else if (c == '=') st = kBeforeValue;
        else if (is_space(c) || c == '/') st = kInTag;
        else st = kAttrName;
        emit(st == kAttrName && lowercase_ ? lower(c) : c);
        break;
      case kBeforeValue:
        if (c == '"' || c == '\'') {
          quote = c;
          st = kQuoted;
        } else if (c == '>') st = kText;
        else if (!is_space(c)) st = kValue;
        emit(c);
        break;
      case kValue:
        if (c == '>') st = kText;
        else if (is_space(c)) st = kInTag;
        emit(c);
        break;
      case kQuoted:
        if (c == quote) st = kInTag;
        emit(c);
        break;
    }
  }
  return w;
}

OBI_REGISTER_BLOCK(HtmlNormalizer, HtmlNormalizerElement);

}  // namespace obi
