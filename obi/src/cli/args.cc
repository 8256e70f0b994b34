#include "cli/args.hh"

#include "engine/graph.hh"

#include <cstdlib>
#include <sstream>

namespace obi::cli {

// GCC 12 warns -Wrestrict inside libstdc++ for "literal" + std::string built here (a
// false positive, GCC bug 105329); nothing in this constructor overlaps.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& with_value,
           const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "'");
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(name)) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
      values_[name] = "1";
    } else if (with_value.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
}
#pragma GCC diagnostic pop

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::string Args::required(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) throw UsageError("missing required option --" + name);
  return it->second;
}

unsigned Args::get_unsigned(const std::string& name, unsigned fallback, unsigned min, unsigned max) const {
  if (!has(name)) return fallback;
  std::string v = get(name);
  char* end = nullptr;
  unsigned long x = std::strtoul(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || v[0] == '-' || x < min || x > max)
    throw UsageError("--" + name + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got '" + v + "'");
  return static_cast<unsigned>(x);
}

double Args::get_double(const std::string& name, double fallback, double min, double max) const {
  if (!has(name)) return fallback;
  std::string v = get(name);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= min && x <= max))
    throw UsageError("--" + name + " must be a number in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got '" + v + "'");
  return x;
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::map<std::string, std::string> device_map_arg(const Args& args) {
  if (!args.has("device-map")) return {};
  try {
    return parse_device_map(args.get("device-map"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--device-map: ") + e.what());
  }
}

}  // namespace obi::cli
