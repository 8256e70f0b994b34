#include "HeaderClassifier.hh"

#include "common/config.hh"
#include "common/match_config.hh"
#include "common/split.hh"

namespace obi::blocks {

namespace {

std::vector<openbox::HeaderMatch> parse_rules(const ElementArgs& args) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("match");
  if (list.size() >= kDropOutput) c.fail("match", "too many rules (at most 65534)");
  std::vector<openbox::HeaderMatch> rules;
  rules.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i)
    rules.push_back(parse_rule(list[i], c.where("match") + " rule " + std::to_string(i)));
  return rules;
}

}  // namespace

HeaderClassifierElement::HeaderClassifierElement(const ElementArgs& args)
    : classifier_(parse_rules(args)), stats_(classifier_.rule_count(), args.workers), no_match_(args.workers ? args.workers : 1) {}

void HeaderClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  int32_t rule[kBatchSize];
  uint16_t outs[kBatchSize];
  classifier_.classify_batch(batch.pkts, batch.n, rule);
  for (uint32_t i = 0; i < batch.n; ++i) outs[i] = rule[i] < 0 ? kDropOutput : static_cast<uint16_t>(rule[i]);
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o == kDropOutput) no_match_[ctx.worker].add(packets);
    else stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json HeaderClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "no_match") {
    uint64_t s = 0;
    no_match_.for_each([&](const Counter& c) { s += c.get(); });
    return s;
  }
  return Element::read(handle);
}

void HeaderClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_ELEMENT(HeaderClassifier, HeaderClassifierElement);

}  // namespace obi::blocks
