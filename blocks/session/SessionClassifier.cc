#include "SessionClassifier.hh"

#include "lib/block_spec.hh"

#include <string>
#include <utility>
#include <vector>

#include "lib/config.hh"
#include "lib/split.hh"

namespace obi::blocks {

using openbox::ProtocolError;

namespace {

// A constant of unknown field type: the first syntax that parses it (integer, IPv4,
// MAC, IPv6; fields chosen only for their syntax and width).
bool parse_constant(const nlohmann::json& v, openbox::FieldMatch& out, std::string& why) {
  for (const char* f : {"TUNNEL_ID", "IPV4_SRC", "ETH_SRC", "IPV6_SRC"}) {
    try {
      out = openbox::parse_field_value(f, v);
      return true;
    } catch (const ProtocolError& e) {
      if (why.empty()) why = e.what();
    }
  }
  return false;
}

}  // namespace

SessionClassifierElement::SessionClassifierElement(const ElementArgs& args)
    : storage_(SessionStorage::instance()), stats_(1, 1) {
  ConfigReader c(args);
  if (const nlohmann::json* list = c.find("match")) {
    if (!list->is_array()) c.where("match").expected("an array of rules", *list);
    if (list->size() + 1 >= kDropOutput) c.where("match").expected("at most 65533 rules", nlohmann::json(list->size()));
    for (size_t i = 0; i < list->size(); ++i) {
      const nlohmann::json& r = (*list)[i];
      const Where rw = c.where("match").at(i);
      if (!r.is_object() || r.empty()) rw.expected("a non-empty object (key -> condition)", r);
      Rule rule;
      // the record form {"key": K, "is_field": B, "value": V} (one condition, as the Java
      // API writes it) or the map form {K: condition, ...} (all must hold)
      std::vector<std::pair<std::string, nlohmann::json>> conditions;
      bool record = r.contains("key") && r["key"].is_string() && r.contains("value") &&
                    r.size() == (r.contains("is_field") ? 3u : 2u);
      if (record) {
        nlohmann::json spec = {{"value", r["value"]}};
        if (r.contains("is_field")) spec["is_field"] = r["is_field"];
        conditions.emplace_back(r["key"].get<std::string>(), std::move(spec));
      } else {
        for (auto& [key, spec] : r.items()) conditions.emplace_back(key, spec);
      }
      for (auto& [key, spec] : conditions) {
        Cond cond;
        cond.key = storage_.key_id(key);
        nlohmann::json value = spec;
        const Where kw = record ? rw : rw.key(key);
        if (spec.is_object()) {
          if (!spec.contains("value")) kw.key("value").fail("required, missing");
          if (spec.contains("is_field") && !spec["is_field"].is_boolean())
            kw.key("is_field").expected("true or false", spec["is_field"]);
          cond.is_field = spec.value("is_field", false);
          value = spec["value"];
        }
        if (cond.is_field) {
          if (!value.is_string() || !openbox::parse_field_name(value.get<std::string>(), cond.field))
            Where{openbox::ErrorSubtype::BAD_HEADER_MATCH, kw.block, kw.field}.expected("a header field name", value);
        } else {
          std::string why;
          if (!parse_constant(value, cond.constant, why))
            Where{openbox::ErrorSubtype::BAD_HEADER_MATCH, kw.block, kw.field}.expected("a session value (" + why + ")",
                                                                                        value);
        }
        rule.conds.push_back(std::move(cond));
      }
      rules_.push_back(std::move(rule));
    }
  }
  storage_.ensure_workers(args.workers ? args.workers : 1);
  stats_ = OutputStats(static_cast<uint32_t>(rules_.size() + 1), args.workers);
}

uint16_t SessionClassifierElement::classify(Packet& p, const SessionValues& s) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    bool ok = true;
    for (const Cond& c : rules_[i].conds) {
      const SessionValues::KV* kv = s.find(c.key);
      if (!kv) {
        ok = false;
        break;
      }
      if (c.is_field) {
        u128 v;
        ok = extract_field(p, c.field, v) && (v & kv->mask) == kv->value;
      } else {
        ok = c.constant.contains(kv->value);
      }
      if (!ok) break;
    }
    if (ok) return static_cast<uint16_t>(i + 1);
  }
  return 0;
}

void SessionClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  auto& table = storage_.table(ctx.worker);
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    outs[i] = 0;
    FlowKey k;
    bool reversed;
    if (rules_.empty() || !flow_key(p, k, reversed)) continue;
    if (auto* e = table.lookup(k, ctx.now_ns, false)) outs[i] = classify(p, e->value);
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json SessionClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  return Element::read(handle);
}

void SessionClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(SessionClassifier, SessionClassifierElement);

}  // namespace obi::blocks
