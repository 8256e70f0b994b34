#include "StringClassifier.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  auto strings = c.strings("strings", true);
  if (strings.size() >= kDropOutput)
    c.where("strings").expected("at most 65534 strings", nlohmann::json(strings.size()));
  const bool caseless = c.boolean("case_insensitive", false);
  std::vector<std::string> exprs;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].empty()) c.where("strings").at(i).expected("a non-empty string", strings[i]);
    exprs.push_back(HsDatabase::escape_literal(strings[i]));
  }
  std::vector<unsigned> flags(exprs.size(), HS_FLAG_SINGLEMATCH | (caseless ? HS_FLAG_CASELESS : 0u));
  return std::make_unique<HsDatabase>(exprs, flags, args.workers, c.where("strings"));
}

}  // namespace

StringClassifierElement::StringClassifierElement(const ElementArgs& args) : ScanClassifier(compile(args), args) {}

OBI_REGISTER_BLOCK(StringClassifier, StringClassifierElement);

}  // namespace obi::blocks
