// ConfigReader, Where and the value parsers shared by the blocks' factories and write handles.
#include "lib/config.hh"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace obi::blocks {

using nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

const json ConfigReader::kEmpty = json::object();

Where Where::at(size_t index) const { return Where{subtype, block, field + "[" + std::to_string(index) + "]", kind}; }

Where Where::key(std::string_view name) const {
  constexpr size_t kShownKey = 40;  // keys come from the config: cut long ones
  std::string k(name.substr(0, kShownKey));
  return Where{subtype, block, field.empty() ? k : field + "." + k, kind};
}

std::string Where::str() const { return block + ": " + kind + " '" + field + "'"; }

void Where::fail(const std::string& what) const { throw ProtocolError(subtype, str() + ": " + what); }

void Where::expected(std::string_view what, const json& got) const {
  fail("expected " + std::string(what) + ", got " + shown(got));
}

std::string block_label(std::string_view name, std::string_view type) {
  return "block '" + std::string(name) + "' (" + std::string(type) + ")";
}

std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

namespace {

bool parse_int_text(std::string_view s, int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v > uint64_t(INT64_MAX)) return false;
  out = neg ? -int64_t(v) : int64_t(v);
  return true;
}

std::string range_text(int64_t min, int64_t max) {
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

int64_t parse_integer(const json& v, const Where& w, int64_t min, int64_t max) {
  int64_t out = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) w.expected(range_text(min, max), v);
    out = v.get<int64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) w.expected(range_text(min, max), v);
    out = static_cast<int64_t>(d);
  } else if (v.is_string()) {
    if (!parse_int_text(v.get_ref<const std::string&>(), out)) w.expected(range_text(min, max), v);
  } else {
    w.expected(range_text(min, max), v);
  }
  if (out < min || out > max) w.expected(range_text(min, max), v);
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
  w.expected("a number", v);
}

bool parse_bool(const json& v, const Where& w) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "true") return true;
    if (s == "false") return false;
  }
  w.expected("true or false", v);
}

std::string parse_string(const json& v, const Where& w) {
  if (!v.is_string()) w.expected("a string", v);
  return v.get<std::string>();
}

uint64_t parse_mac(const json& v, const Where& w) {
  constexpr std::string_view kWhat = "a MAC address like \"02:00:00:00:00:01\"";
  if (!v.is_string()) w.expected(kWhat, v);
  const std::string& s = v.get_ref<const std::string&>();
  uint64_t mac = 0;
  std::size_t i = 0;
  for (int b = 0; b < 6; ++b) {
    if (b > 0) {
      if (i >= s.size() || (s[i] != ':' && s[i] != '-')) w.expected(kWhat, v);
      ++i;
    }
    unsigned byte = 0;
    auto r = std::from_chars(s.data() + i, s.data() + std::min(s.size(), i + 2), byte, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + std::min(s.size(), i + 2) || i + 2 > s.size()) w.expected(kWhat, v);
    mac = mac << 8 | byte;
    i += 2;
  }
  if (i != s.size()) w.expected(kWhat, v);
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
    w.expected("an IPv4 address like \"10.0.0.1\"", v);
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
    : block_(block_label(a.name, a.type)), config_(a.config.is_null() ? kEmpty : a.config) {
  if (!config_.is_object())
    throw ProtocolError(ErrorSubtype::BAD_BLOCK, block_ + ": expected a config object, got " + shown(config_));
}

bool ConfigReader::has(std::string_view field) const { return find(field) != nullptr; }

const json* ConfigReader::find(std::string_view field) const {
  auto it = config_.find(field);
  if (it == config_.end() || it->is_null()) return nullptr;
  return &*it;
}

const json& ConfigReader::get(std::string_view field) const { return *config_.find(field); }

const json& ConfigReader::require(std::string_view field) const {
  const json* v = find(field);
  if (!v) fail(field, "required, missing");
  return *v;
}

Where ConfigReader::where(std::string_view field) const {
  return Where{ErrorSubtype::BAD_BLOCK, block_, std::string(field)};
}

std::vector<std::string> ConfigReader::strings(std::string_view field, bool required) const {
  std::vector<std::string> out;
  const json* v = find(field);
  if (!v) {
    if (required) fail(field, "required, missing");
    return out;
  }
  if (v->is_string()) {
    out.push_back(v->get<std::string>());
    return out;
  }  // a lone string
  if (!v->is_array()) where(field).expected("an array of strings", *v);
  if (required && v->empty()) where(field).expected("a non-empty array of strings", *v);
  for (size_t i = 0; i < v->size(); ++i) out.push_back(parse_string((*v)[i], where(field).at(i)));
  return out;
}

const json& ConfigReader::array(std::string_view field) const {
  const json& v = require(field);
  if (!v.is_array() || v.empty()) where(field).expected("a non-empty array", v);
  return v;
}

bool ConfigReader::boolean(std::string_view field, bool def) const {
  const json* v = find(field);
  return v ? parse_bool(*v, where(field)) : def;
}

int64_t ConfigReader::integer(std::string_view field, int64_t def, int64_t min, int64_t max) const {
  const json* v = find(field);
  return v ? parse_integer(*v, where(field), min, max) : def;
}

int64_t ConfigReader::required_integer(std::string_view field, int64_t min, int64_t max) const {
  return parse_integer(require(field), where(field), min, max);
}

double ConfigReader::required_number(std::string_view field) const {
  return parse_number(require(field), where(field));
}

std::string ConfigReader::required_string(std::string_view field) const {
  return parse_string(require(field), where(field));
}

Where handle_where(const Element& e, std::string_view handle) {
  return Where{ErrorSubtype::ILLEGAL_ARGUMENT, block_label(e.name(), e.type()), std::string(handle), "handle"};
}

bool handle_bool(const json& v, const Element& e, std::string_view handle) {
  if (v.is_number_integer() && (v == 0 || v == 1)) return v == 1;
  return parse_bool(v, handle_where(e, handle));
}

}  // namespace obi::blocks
