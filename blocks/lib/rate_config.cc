#include "lib/rate_config.hh"

#include <cctype>
#include <cstdlib>

namespace obi::blocks {

bool parse_bandwidth(const std::string& text, double& out, std::string& why) {
  const char* s = text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || v < 0 || v != v) {
    why = "expected a number followed by a unit, e.g. \"384 kbps\"";
    return false;
  }
  std::string unit;
  for (const char* p = end; *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p))) unit.push_back(*p);
  if (unit.empty()) {
    out = v;
    return true;
  }
  double scale = 1;
  size_t at = 0;
  switch (unit[0]) {
    case 'k':
    case 'K':
      scale = 1e3;
      at = 1;
      break;
    case 'M':
      scale = 1e6;
      at = 1;
      break;
    case 'G':
      scale = 1e9;
      at = 1;
      break;
    default: break;
  }
  std::string rest = unit.substr(at);
  double per_byte;
  if (rest == "bps" || rest == "b/s" || rest == "bit/s") per_byte = 1.0 / 8;
  else if (rest == "Bps" || rest == "B/s" || rest == "byte/s") per_byte = 1;
  else {
    why = "unknown unit '" + unit + "' (use bps, kbps, Mbps, Gbps, Bps, kBps, MBps, GBps)";
    return false;
  }
  out = v * scale * per_byte;
  return true;
}

}  // namespace obi::blocks
