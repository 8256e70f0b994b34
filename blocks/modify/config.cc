// Configuration and handle-value parsers shared by the modifier, static and shaper blocks.
#include "modify/config.hh"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace obi::modify {

using nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

const json ConfigReader::kEmpty = json::object();

void Where::fail(const std::string& what) const { throw ProtocolError(subtype, prefix + ": " + what); }

namespace {

std::string short_dump(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

bool parse_int_text(std::string_view s, int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; s.remove_prefix(1); }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s.remove_prefix(2); }
  if (s.empty()) return false;
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v > uint64_t(INT64_MAX)) return false;
  out = neg ? -int64_t(v) : int64_t(v);
  return true;
}

}  // namespace

int64_t parse_integer(const json& v, const Where& w, int64_t min, int64_t max) {
  int64_t out = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) w.fail("value out of range");
    out = v.get<int64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) w.fail("expected an integer, got " + short_dump(v));
    out = static_cast<int64_t>(d);
  } else if (v.is_string()) {
    if (!parse_int_text(v.get_ref<const std::string&>(), out)) w.fail("expected an integer, got " + short_dump(v));
  } else {
    w.fail("expected an integer, got " + short_dump(v));
  }
  if (out < min || out > max)
    w.fail("value " + std::to_string(out) + " out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return out;
}

double parse_number(const json& v, const Where& w) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    double d = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return d;
  }
  w.fail("expected a number, got " + short_dump(v));
}

bool parse_bool(const json& v, const Where& w) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "true") return true;
    if (s == "false") return false;
  }
  w.fail("expected true or false, got " + short_dump(v));
}

std::string parse_string(const json& v, const Where& w) {
  if (!v.is_string()) w.fail("expected a string, got " + short_dump(v));
  return v.get<std::string>();
}

uint64_t parse_mac(const json& v, const Where& w) {
  if (!v.is_string()) w.fail("expected a MAC address string, got " + short_dump(v));
  const std::string& s = v.get_ref<const std::string&>();
  uint64_t mac = 0;
  std::size_t i = 0;
  for (int b = 0; b < 6; ++b) {
    if (b > 0) {
      if (i >= s.size() || (s[i] != ':' && s[i] != '-')) w.fail("bad MAC address '" + s + "'");
      ++i;
    }
    unsigned byte = 0;
    auto r = std::from_chars(s.data() + i, s.data() + std::min(s.size(), i + 2), byte, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + std::min(s.size(), i + 2) || i + 2 > s.size())
      w.fail("bad MAC address '" + s + "'");
    mac = mac << 8 | byte;
    i += 2;
  }
  if (i != s.size()) w.fail("bad MAC address '" + s + "'");
  return mac;
}

bool parse_ipv4_text(std::string_view s, uint32_t& out) {
  uint32_t a = 0;
  std::size_t i = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
    std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 3) ++i;
    if (i == start) return false;
    unsigned v = 0;
    std::from_chars(s.data() + start, s.data() + i, v);
    if (v > 255) return false;
    a = a << 8 | v;
  }
  if (i != s.size()) return false;
  out = a;
  return true;
}

uint32_t parse_ipv4(const json& v, const Where& w) {
  uint32_t a = 0;
  if (!v.is_string() || !parse_ipv4_text(v.get_ref<const std::string&>(), a))
    w.fail("expected an IPv4 address such as \"10.0.0.1\", got " + short_dump(v));
  return a;
}

std::string format_mac(uint64_t mac) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", unsigned(mac >> 40 & 0xff),
                unsigned(mac >> 32 & 0xff), unsigned(mac >> 24 & 0xff), unsigned(mac >> 16 & 0xff),
                unsigned(mac >> 8 & 0xff), unsigned(mac & 0xff));
  return buf;
}

std::string format_ipv4(uint32_t a) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff);
  return buf;
}

ConfigReader::ConfigReader(const ElementArgs& a)
    : block_("block '" + a.name + "' (" + a.type + ")"),
      config_(a.config.is_null() ? kEmpty : a.config) {
  if (!config_.is_object())
    throw ProtocolError(ErrorSubtype::BAD_BLOCK, block_ + ": config must be an object");
}

bool ConfigReader::has(std::string_view field) const {
  auto it = config_.find(field);
  return it != config_.end() && !it->is_null();
}

const json& ConfigReader::get(std::string_view field) const { return *config_.find(field); }

Where ConfigReader::where(std::string_view field) const {
  return Where{ErrorSubtype::BAD_BLOCK, block_ + ": field '" + std::string(field) + "'"};
}

int64_t ConfigReader::integer(std::string_view field, int64_t def, int64_t min, int64_t max) const {
  return has(field) ? parse_integer(get(field), where(field), min, max) : def;
}

int64_t ConfigReader::required_integer(std::string_view field, int64_t min, int64_t max) const {
  if (!has(field)) fail(field, "required");
  return parse_integer(get(field), where(field), min, max);
}

double ConfigReader::required_number(std::string_view field) const {
  if (!has(field)) fail(field, "required");
  return parse_number(get(field), where(field));
}

bool ConfigReader::boolean(std::string_view field, bool def) const {
  return has(field) ? parse_bool(get(field), where(field)) : def;
}

std::string ConfigReader::required_string(std::string_view field) const {
  if (!has(field)) fail(field, "required");
  return parse_string(get(field), where(field));
}

Where handle_where(const Element& e, std::string_view handle) {
  return Where{ErrorSubtype::ILLEGAL_ARGUMENT,
               "block '" + e.name() + "' (" + e.type() + "): handle '" + std::string(handle) + "'"};
}

}  // namespace obi::modify
