#include "PpsRateClassifier.hh"

#include "common/block_spec.hh"

#include <cstdlib>

#include "common/config.hh"

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
    if (!(v >= 0)) c.fail("rate", "entry " + std::to_string(i) + " " + list[i].dump() + " is not a non-negative number");
    if (!out.empty() && v <= out.back()) c.fail("rate", "entry " + std::to_string(i) + " is not greater than the one before");
    out.push_back(v);
  }
  return out;
}

}  // namespace

PpsRateClassifierElement::PpsRateClassifierElement(const ElementArgs& args)
    : RateSplitterElement(args, parse_rates(args), false) {}

OBI_REGISTER_BLOCK(PpsRateClassifier, PpsRateClassifierElement);

}  // namespace obi::blocks
