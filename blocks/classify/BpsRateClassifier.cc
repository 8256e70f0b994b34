#include "BpsRateClassifier.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/rate_config.hh"

namespace obi::blocks {

namespace {

std::vector<double> parse_rates(const ElementArgs& args) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("rate");
  std::vector<double> out;
  for (size_t i = 0; i < list.size(); ++i) {
    double v;
    std::string why;
    if (list[i].is_number() && list[i].get<double>() >= 0) v = list[i].get<double>();
    else if (!list[i].is_string() || !parse_bandwidth(list[i].get<std::string>(), v, why))
      c.where("rate").at(i).expected("a bandwidth like \"384 kbps\"" + (why.empty() ? std::string() : " (" + why + ")"),
                                     list[i]);
    if (!out.empty() && v <= out.back())
      c.where("rate").at(i).expected("a rate greater than the one before (" + list[i - 1].dump() + ")", list[i]);
    out.push_back(v);
  }
  return out;
}

}  // namespace

BpsRateClassifierElement::BpsRateClassifierElement(const ElementArgs& args)
    : RateSplitterElement(args, parse_rates(args), true) {}

OBI_REGISTER_BLOCK(BpsRateClassifier, BpsRateClassifierElement);

}  // namespace obi::blocks
