#include "SessionStore.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

SessionStoreElement::SessionStoreElement(const ElementArgs& args)
    : storage_(SessionStorage::instance()),
      stored_(args.workers ? args.workers : 1),
      full_(args.workers ? args.workers : 1) {
  ConfigReader c(args);
  const nlohmann::json& fields = c.require("fields");
  if (!fields.is_object() || fields.empty())
    c.where("fields").expected("a non-empty object (field name -> key)", fields);
  for (auto& [name, spec] : fields.items()) {
    Item it{};
    const Where fw = c.where("fields").key(name);
    if (!openbox::parse_field_name(name, it.field)) fw.fail("expected a header field name as key");
    const unsigned width = openbox::field_info(it.field).width;
    it.mask = width >= 128 ? ~u128(0) : (u128(1) << width) - 1;
    std::string key;
    if (spec.is_string()) {
      key = spec.get<std::string>();
    } else if (spec.is_object() && spec.contains("key") && spec["key"].is_string()) {
      key = spec["key"].get<std::string>();
      if (spec.contains("mask") && !spec["mask"].is_null()) {
        // the mask has the field's syntax: parse it as an exact value of that field
        openbox::FieldMatch m;
        try {
          m = openbox::parse_field_value(name, spec["mask"]);
        } catch (const ProtocolError& e) {
          fw.key("mask").fail(e.what());
        }
        if (m.terms.size() != 1 || m.terms[0].kind != openbox::MatchTerm::Kind::kMasked || m.terms[0].mask != it.mask)
          fw.key("mask").expected("a single value of the field's syntax", spec["mask"]);
        it.mask = m.terms[0].value;
      }
    } else {
      fw.expected("a key string or {\"key\": K, \"mask\": M}", spec);
    }
    if (key.empty()) fw.expected("a non-empty key", spec);
    it.key = storage_.key_id(key);
    items_.push_back(it);
  }
  if (items_.size() > SessionValues::kMaxKeys)
    c.where("fields").expected("at most " + std::to_string(SessionValues::kMaxKeys) + " fields per session", fields);
  storage_.ensure_workers(args.workers ? args.workers : 1);
}

void SessionStoreElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  auto& table = storage_.table(ctx.worker);
  uint64_t stored = 0, full = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    FlowKey k;
    bool reversed;
    if (!flow_key(p, k, reversed)) continue;
    auto* e = table.lookup(k, ctx.now_ns, true);
    if (!e) {
      ++full;
      continue;
    }
    bool ok = true;
    for (const Item& it : items_) {
      u128 v;
      if (extract_field(p, it.field, v)) ok &= e->value.put(it.key, v & it.mask, it.mask);
    }
    if (ok) ++stored;
    else ++full;
  }
  stored_[ctx.worker].add(stored);
  full_[ctx.worker].add(full);
  out.emit(0, batch, ctx);
}

nlohmann::json SessionStoreElement::read(std::string_view handle) const {
  auto sum = [](const PerWorker<Counter>& c) {
    uint64_t s = 0;
    c.for_each([&](const Counter& x) { s += x.get(); });
    return s;
  };
  if (handle == "count") return sum(stored_);
  if (handle == "full") return sum(full_);
  return Element::read(handle);
}

OBI_REGISTER_BLOCK(SessionStore, SessionStoreElement);

}  // namespace obi::blocks
