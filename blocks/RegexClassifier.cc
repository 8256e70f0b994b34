#include "RegexClassifier.hh"

#include "common/block_spec.hh"

#include "common/config.hh"
#include "common/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  auto patterns = c.strings("pattern", true);
  if (patterns.size() >= kDropOutput) c.fail("pattern", "too many patterns (at most 65534)");
  return std::make_unique<HsDatabase>(patterns, std::vector<unsigned>{}, args.workers, c.where("pattern"));
}

}  // namespace

RegexClassifierElement::RegexClassifierElement(const ElementArgs& args) : ScanClassifier(compile(args), args) {}

nlohmann::json RegexClassifierElement::read(std::string_view handle) const {
  return ScanClassifier::read(handle == "paylaod_only" ? "payload_only" : handle);
}

OBI_REGISTER_BLOCK(RegexClassifier, RegexClassifierElement);

}  // namespace obi::blocks
