#include "PpsRateClassifier.hh"

#include "lib/block_spec.hh"

#include <cstdlib>

#include "lib/config.hh"

namespace obi::blocks {

namespace {

std::vector<double> parse_rates(const ElementArgs& args) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("rate");
  std::vector<double> out;
  for (size_t i = 0; i < list.size(); ++i) {
    double v = -1;
    if (list[i].is_number()) {
      v = list[i].get<double>();
    } else if (list[i].is_string()) {
      const std::string s = list[i].get<std::string>();
      char* end = nullptr;
      v = std::strtod(s.c_str(), &end);
      if (end == s.c_str() || *end != '\0') v = -1;
    }
    if (!(v >= 0)) c.where("rate").at(i).expected("a non-negative number of packets per second", list[i]);
    if (!out.empty() && v <= out.back())
      c.where("rate").at(i).expected("a rate greater than the one before (" + list[i - 1].dump() + ")", list[i]);
    out.push_back(v);
  }
  return out;
}

}  // namespace

PpsRateClassifierElement::PpsRateClassifierElement(const ElementArgs& args)
    : RateSplitterElement(args, parse_rates(args), false) {}

OBI_REGISTER_BLOCK(PpsRateClassifier, PpsRateClassifierElement);

}  // namespace obi::blocks
