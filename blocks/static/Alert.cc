#include "Alert.hh"

#include <cstring>

#include "lib/block_spec.hh"

#include "lib/config.hh"

namespace obi {

using namespace blocks;

AlertElement::AlertElement(const ElementArgs& args) {
  ConfigReader c(args);
  const nlohmann::json& list = c.require("alerts");
  if (!list.is_array() || list.empty()) c.where("alerts").expected("a non-empty array of alert objects", list);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& a = list[i];
    const Where at = c.where("alerts").at(i);
    if (!a.is_object()) at.expected("an object {\"message\", \"severity\", \"app_id\"}", a);
    Entry e{"", "", 1};
    for (auto it = a.begin(); it != a.end(); ++it) {
      const Where w = at.key(it.key());
      if (it.key() == "message") e.message = parse_string(*it, w);
      else if (it.key() == "app_id") e.app_id = it->is_null() ? "" : parse_string(*it, w);
      else if (it.key() == "severity") e.severity = int(parse_integer(*it, w, 1, 5));
      else w.fail("unknown field (known: message, severity, app_id)");
    }
    if (!a.contains("message")) at.key("message").fail("required, missing");
    alerts_.push_back(std::move(e));
  }
  bool attach = c.boolean("attach_packet", false);
  int size = int(c.integer("packet_size", 64, INT32_MIN, INT32_MAX));
  packet_size_ = attach ? (size < 0 ? -1 : size) : 0;
  if (alerts_.size() == 1) {
    const Entry& e = alerts_[0];
    const std::size_t total = args.name.size() + e.app_id.size() + e.message.size();
    if (total <= kPackedBytes) {
      packed_ = true;
      packed_severity_ = static_cast<uint8_t>(e.severity);
      packed_origin_ = static_cast<uint16_t>(args.name.size());
      packed_app_ = static_cast<uint16_t>(e.app_id.size());
      packed_message_ = static_cast<uint16_t>(e.message.size());
      char* at = packed_bytes_;
      for (const std::string* part : {&args.name, &e.app_id, &e.message}) {
        part->copy(at, part->size());
        at += part->size();
      }
    }
  }
}

void AlertElement::pass(Batch& batch, Context& ctx) {
  if (ctx.events == nullptr) return;
  if (packed_) {
    const std::string_view origin(packed_bytes_, packed_origin_);
    const std::string_view app(packed_bytes_ + packed_origin_, packed_app_);
    const std::string_view message(packed_bytes_ + packed_origin_ + packed_app_, packed_message_);
    for (uint32_t i = 0; i < batch.n; ++i)
      ctx.events->post(EventSink::Kind::kAlert, origin, app, message, packed_severity_, *batch.pkts[i], packet_size_,
                       ctx.worker, ctx.now_ns);
    return;
  }
  for (uint32_t i = 0; i < batch.n; ++i)
    for (const Entry& e : alerts_)
      ctx.events->post(EventSink::Kind::kAlert, name(), e.app_id, e.message, e.severity, *batch.pkts[i], packet_size_,
                       ctx.worker, ctx.now_ns);
}

// Header of a site, then origin, app id and message one after the other.
struct AlertElement::Site {
  int32_t packet_size;
  uint8_t severity;
  uint8_t unused;
  uint16_t origin, app, message;
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
  const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
};

StaticSiteFn AlertElement::static_site(void* site, std::size_t capacity) const {
  static_assert(sizeof(Site) == 12 && alignof(Site) <= 8, "a 12-byte header at a link's 8-byte aligned site");
  const std::size_t strings = std::size_t(packed_origin_) + packed_app_ + packed_message_;
  if (!packed_ || sizeof(Site) + strings > capacity) return nullptr;
  Site* s = static_cast<Site*>(site);
  s->packet_size = packet_size_;
  s->severity = packed_severity_;
  s->unused = 0;
  s->origin = packed_origin_;
  s->app = packed_app_;
  s->message = packed_message_;
  std::memcpy(s->bytes(), packed_bytes_, strings);
  return &AlertElement::pass_site;
}

void AlertElement::pass_site(const void* site, Batch& batch, Context& ctx) {
  if (ctx.events == nullptr) return;
  const Site& s = *static_cast<const Site*>(site);
  const char* b = s.bytes();
  const std::string_view origin(b, s.origin);
  const std::string_view app(b + s.origin, s.app);
  const std::string_view message(b + s.origin + s.app, s.message);
  for (uint32_t i = 0; i < batch.n; ++i)
    ctx.events->post(EventSink::Kind::kAlert, origin, app, message, s.severity, *batch.pkts[i], s.packet_size,
                     ctx.worker, ctx.now_ns);
}

void AlertElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  pass(batch, ctx);
  out.emit(0, batch, ctx);
}

OBI_REGISTER_BLOCK(Alert, AlertElement);

}  // namespace obi
