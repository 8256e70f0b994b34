#include "lib/nat_spec.hh"

#include <charconv>
#include <vector>

#include "lib/config.hh"

namespace obi::blocks {

namespace {

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool number(std::string_view s, uint32_t max, uint32_t& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && out <= max;
}

bool output(std::string_view s, uint16_t& out, std::string& error, const char* what) {
  uint32_t v = 0;
  if (!number(s, 1023, v)) {
    error = std::string(what) + " '" + std::string(s) + "' is not an output number (0..1023)";
    return false;
  }
  out = static_cast<uint16_t>(v);
  return true;
}

bool sport(std::string_view s, InputSpec& spec, std::string& error) {
  if (s == "-") {
    spec.sport_mode = InputSpec::PortMode::kKeep;
    return true;
  }
  std::string_view body = s;
  if (body.back() == '#') {
    spec.pick = InputSpec::Pick::kSequential;
    body.remove_suffix(1);
  } else if (body.back() == '?') {
    spec.pick = InputSpec::Pick::kRandom;
    body.remove_suffix(1);
  }
  std::size_t dash = body.find('-');
  uint32_t lo = 0, hi = 0;
  if (dash == std::string_view::npos) {
    if (body.size() != s.size() || !number(body, 65535, lo)) {
      error = "SPORT '" + std::string(s) + "' is not '-', a port or a range 'L-H'";
      return false;
    }
    spec.sport_mode = InputSpec::PortMode::kFixed;
    spec.sport_lo = spec.sport_hi = static_cast<uint16_t>(lo);
    return true;
  }
  if (!number(body.substr(0, dash), 65535, lo) || !number(body.substr(dash + 1), 65535, hi) || lo > hi) {
    error = "SPORT range '" + std::string(s) + "' must be 'L-H' with 0 <= L <= H <= 65535";
    return false;
  }
  spec.sport_mode = InputSpec::PortMode::kRange;
  spec.sport_lo = static_cast<uint16_t>(lo);
  spec.sport_hi = static_cast<uint16_t>(hi);
  return true;
}

}  // namespace

uint16_t InputSpec::max_output() const {
  switch (kind) {
    case Kind::kDiscard: return 0;
    case Kind::kPass: return fout;
    default: return fout > rout ? fout : rout;
  }
}

bool parse_input_spec(std::string_view text, InputSpec& out, std::string& error) {
  auto w = words(text);
  out = InputSpec{};
  if (w.empty()) {
    error = "empty input spec";
    return false;
  }
  std::string_view kind = w[0];
  if (kind == "discard" || kind == "drop") {
    if (w.size() != 1) {
      error = "'discard' takes no arguments";
      return false;
    }
    out.kind = InputSpec::Kind::kDiscard;
    return true;
  }
  if (kind == "pass" || kind == "nochange") {
    if (w.size() != 2) {
      error = "expected 'pass OUTPUT'";
      return false;
    }
    out.kind = InputSpec::Kind::kPass;
    return output(w[1], out.fout, error, "OUTPUT");
  }
  if (kind == "keep") {
    if (w.size() != 3) {
      error = "expected 'keep FOUTPUT ROUTPUT'";
      return false;
    }
    out.kind = InputSpec::Kind::kKeep;
    return output(w[1], out.fout, error, "FOUTPUT") && output(w[2], out.rout, error, "ROUTPUT");
  }
  if (kind == "pattern") {
    if (w.size() != 7) {
      error = "expected 'pattern SADDR SPORT DADDR DPORT FOUTPUT ROUTPUT'";
      return false;
    }
    out.kind = InputSpec::Kind::kPattern;
    if (w[1] != "-") {
      if (!parse_ipv4_text(w[1], out.saddr)) {
        error = "SADDR '" + std::string(w[1]) + "' is not '-' or an IPv4 address";
        return false;
      }
      out.set_saddr = true;
    }
    if (!sport(w[2], out, error)) return false;
    if (w[3] != "-") {
      if (!parse_ipv4_text(w[3], out.daddr)) {
        error = "DADDR '" + std::string(w[3]) + "' is not '-' or an IPv4 address";
        return false;
      }
      out.set_daddr = true;
    }
    if (w[4] != "-") {
      uint32_t p = 0;
      if (!number(w[4], 65535, p)) {
        error = "DPORT '" + std::string(w[4]) + "' is not '-' or a port";
        return false;
      }
      out.set_dport = true;
      out.dport = static_cast<uint16_t>(p);
    }
    return output(w[5], out.fout, error, "FOUTPUT") && output(w[6], out.rout, error, "ROUTPUT");
  }
  error = "unknown input spec '" + std::string(kind) + "' (expected discard, pass, keep or pattern)";
  return false;
}

}  // namespace obi::blocks
