#include "StringClassifier.hh"

#include "common/block_spec.hh"

#include "common/config.hh"
#include "common/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  if (args.config.is_object())
    for (auto it = args.config.begin(); it != args.config.end(); ++it)
      if (it.key() != "strings" && it.key() != "case_insensitive" && it.key() != "payload_only")
        c.fail(it.key(), "unknown field (known: strings, case_insensitive, payload_only)");
  auto strings = c.strings("strings", true);
  if (strings.size() >= kDropOutput) c.fail("strings", "too many strings (at most 65534)");
  const bool caseless = c.boolean("case_insensitive", false);
  std::vector<std::string> exprs;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].empty()) c.fail("strings", "entry " + std::to_string(i) + " is empty");
    exprs.push_back(HsDatabase::escape_literal(strings[i]));
  }
  std::vector<unsigned> flags(exprs.size(), HS_FLAG_SINGLEMATCH | (caseless ? HS_FLAG_CASELESS : 0u));
  return std::make_unique<HsDatabase>(exprs, flags, args.workers, c.where("strings"));
}

}  // namespace

StringClassifierElement::StringClassifierElement(const ElementArgs& args) : ScanClassifier(compile(args), args) {}

OBI_REGISTER_BLOCK(StringClassifier, StringClassifierElement);

}  // namespace obi::blocks
