#include "ContentClassifier.hh"

#include "lib/block_spec.hh"

#include <sstream>

#include "lib/config.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ContentClassifierElement::ContentClassifierElement(const ElementArgs& args) : stats_(1, 1) {
  ConfigReader c(args);
  auto texts = c.strings("pattern", true);
  if (texts.size() >= kDropOutput) c.where("pattern").expected("at most 65534 patterns", nlohmann::json(texts.size()));
  for (size_t i = 0; i < texts.size(); ++i) {
    Pattern pat;
    std::istringstream in(texts[i]);
    std::string tok;
    bool any = false, dash = false;
    while (in >> tok) {
      auto fail = [&](const std::string& why) { c.where("pattern").at(i).fail("clause '" + tok + "': " + why); };
      any = true;
      if (tok == "-") {
        dash = true;
        continue;
      }
      Clause cl;
      size_t at = 0;
      if (tok[0] == '!') {
        cl.negated = true;
        at = 1;
      }
      size_t slash = tok.find('/', at);
      if (slash == std::string::npos || slash == at) fail("expected offset/value");
      uint64_t off = 0;
      for (size_t k = at; k < slash; ++k) {
        if (tok[k] < '0' || tok[k] > '9') fail("offset must be decimal");
        off = off * 10 + static_cast<uint64_t>(tok[k] - '0');
        if (off > kMaxFrame) fail("offset beyond the largest frame");
      }
      cl.offset = static_cast<uint32_t>(off);
      size_t pct = tok.find('%', slash);
      std::string val = tok.substr(slash + 1, pct == std::string::npos ? std::string::npos : pct - slash - 1);
      std::string msk = pct == std::string::npos ? "" : tok.substr(pct + 1);
      if (val.empty() || val.size() % 2) fail("value needs an even, non-zero number of hex digits");
      if (pct != std::string::npos && msk.size() != val.size()) fail("mask must have as many digits as the value");
      for (size_t k = 0; k < val.size(); k += 2) {
        uint8_t v = 0, m = 0;
        for (size_t h = 0; h < 2; ++h) {
          char vc = val[k + h];
          int vd = vc == '?' ? 0 : hex_digit(vc);
          int vm = vc == '?' ? 0 : 0xf;
          if (vd < 0) fail("bad hex digit '" + std::string(1, vc) + "' in value");
          if (!msk.empty()) {
            char mc = msk[k + h];
            int md = mc == '?' ? 0 : hex_digit(mc);
            if (md < 0) fail("bad hex digit '" + std::string(1, mc) + "' in mask");
            vm &= md;
          }
          v = static_cast<uint8_t>(v << 4 | (vd & vm));
          m = static_cast<uint8_t>(m << 4 | vm);
        }
        cl.value.push_back(v);
        cl.mask.push_back(m);
      }
      if (cl.offset + cl.value.size() > kMaxFrame) fail("clause reaches beyond the largest frame");
      pat.clauses.push_back(std::move(cl));
    }
    if (!any) c.where("pattern").at(i).expected("offset/value clauses, or \"-\" to match every packet", texts[i]);
    if (dash && !pat.clauses.empty()) c.where("pattern").at(i).expected("\"-\" alone or clauses without it", texts[i]);
    patterns_.push_back(std::move(pat));
  }
  stats_ = OutputStats(static_cast<uint32_t>(patterns_.size()), args.workers);
}

int32_t ContentClassifierElement::classify(const Packet& p) const {
  for (size_t i = 0; i < patterns_.size(); ++i) {
    bool ok = true;
    for (const Clause& cl : patterns_[i].clauses) {
      bool holds = cl.offset + cl.value.size() <= p.len;
      for (size_t k = 0; holds && k < cl.value.size(); ++k) holds = (p.data[cl.offset + k] & cl.mask[k]) == cl.value[k];
      if (holds == cl.negated) {
        ok = false;
        break;
      }
    }
    if (ok) return static_cast<int32_t>(i);
  }
  return -1;
}

void ContentClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    int32_t r = classify(*batch.pkts[i]);
    outs[i] = r < 0 ? kDropOutput : static_cast<uint16_t>(r);
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o != kDropOutput) stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json ContentClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  return Element::read(handle);
}

void ContentClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(ContentClassifier, ContentClassifierElement);

}  // namespace obi::blocks
