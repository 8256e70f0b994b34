#include "SetTimestamp.hh"

#include <cstdio>
#include <limits>

#include "lib/block_spec.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

std::optional<uint64_t> parse_epoch_seconds(std::string_view t) {
  const size_t dot = t.find('.');
  const std::string_view whole = t.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : t.substr(dot + 1);
  if (whole.empty() || whole.size() > 11 || frac.size() > 9) return std::nullopt;
  if (dot != std::string_view::npos && frac.empty()) return std::nullopt;
  uint64_t s = 0, ns = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    s = s * 10 + uint64_t(c - '0');
  }
  for (size_t i = 0; i < 9; ++i) {
    char c = i < frac.size() ? frac[i] : '0';
    if (c < '0' || c > '9') return std::nullopt;
    ns = ns * 10 + uint64_t(c - '0');
  }
  if (s > (std::numeric_limits<uint64_t>::max() - ns) / 1000000000ull) return std::nullopt;
  return s * 1000000000ull + ns;
}

std::string format_epoch_seconds(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000ull),
                static_cast<unsigned long long>(ns % 1000000000ull));
  return b;
}

SetTimestampElement::SetTimestampElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  if (c.has("timestamp")) {
    const std::string t = parse_string(c.get("timestamp"), c.where("timestamp"));
    std::optional<uint64_t> ns = parse_epoch_seconds(t);
    if (!ns || *ns == 0)
      c.fail("timestamp",
             "'" + t.substr(0, 40) + "' is not a positive time in seconds since the epoch (e.g. \"1700000000.25\")");
    fixed_ns_ = *ns;
  }
}

void SetTimestampElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint64_t now = fixed_ns_ ? fixed_ns_ : ctx.now_ns + static_cast<uint64_t>(ctx.wall_offset_ns);
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (p->first_timestamp_ns == 0) p->first_timestamp_ns = p->timestamp_ns ? p->timestamp_ns : now;
    p->timestamp_ns = now;
  }
  counts_.add(ctx.worker, 0, batch.n);
  out.emit(0, batch, ctx);
}

nlohmann::json SetTimestampElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(0);
  return Element::read(h);
}

void SetTimestampElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(SetTimestamp, SetTimestampElement);

}  // namespace obi
