#include "Log.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"

namespace obi {

using namespace blocks;

LogElement::LogElement(const ElementArgs& args) {
  ConfigReader c(args);
  message_ = c.required_string("message");
  severity_ = int(c.integer("severity", 1, 1, 5));
  if (c.has("app_id")) app_id_ = parse_string(c.get("app_id"), c.where("app_id"));
  bool attach = c.boolean("attach_packet", false);
  int size = int(c.integer("packet_size", 64, INT32_MIN, INT32_MAX));
  packet_size_ = attach ? (size < 0 ? -1 : size) : 0;
}

void LogElement::pass(Batch& batch, Context& ctx) {
  if (ctx.events == nullptr) return;
  for (uint32_t i = 0; i < batch.n; ++i)
    ctx.events->post(EventSink::Kind::kLog, name(), app_id_, message_, severity_, *batch.pkts[i], packet_size_,
                     ctx.worker, ctx.now_ns);
}

void LogElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  pass(batch, ctx);
  out.emit(0, batch, ctx);
}

OBI_REGISTER_BLOCK(Log, LogElement);

}  // namespace obi
