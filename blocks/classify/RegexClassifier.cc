#include "RegexClassifier.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  auto patterns = c.strings("pattern", true);
  if (patterns.size() >= kDropOutput)
    c.where("pattern").expected("at most 65534 patterns", nlohmann::json(patterns.size()));
  return std::make_unique<HsDatabase>(patterns, std::vector<unsigned>{}, args.workers, c.where("pattern"));
}

}  // namespace

RegexClassifierElement::RegexClassifierElement(const ElementArgs& args) : ScanClassifier(compile(args), args) {}

nlohmann::json RegexClassifierElement::read(std::string_view handle) const {
  return ScanClassifier::read(handle == "paylaod_only" ? "payload_only" : handle);
}

OBI_REGISTER_BLOCK(RegexClassifier, RegexClassifierElement);

}  // namespace obi::blocks
