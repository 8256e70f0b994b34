#include "lib/queue_core.hh"

#include "lib/config.hh"

namespace obi::blocks {

namespace {
uint32_t capacity_of(const ElementArgs& args) {
  return static_cast<uint32_t>(ConfigReader(args).required_integer("capacity", 1, 1 << 20));
}
}  // namespace

QueueCore::QueueCore(const ElementArgs& args, bool drop_front)
    : drop_front_(drop_front), fifo_(args.workers, capacity_of(args)) {}

void QueueCore::push(uint16_t, Batch& batch, Context& ctx, const Outputs&) {
  PacketRing& ring = fifo_.ring(ctx);
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (ring.full()) {
      ++dropped;
      if (!drop_front_) {
        ctx.drop(p);
        continue;
      }
      ctx.drop(ring.pop());
    }
    ring.push(p);
  }
  batch.n = 0;
  fifo_.after_push(ctx.worker, dropped);
}

void QueueCore::run_task(Context& ctx, const Outputs& out) { fifo_.release_some(ctx, out, 0); }

void QueueCore::release(Context& ctx, const Outputs& out) { fifo_.release_all(ctx, out, 0); }

uint64_t QueueCore::held_packets() const { return fifo_.length(); }

nlohmann::json QueueCore::read(std::string_view h) const {
  nlohmann::json v;
  return fifo_.read_handle(h, v) ? v : Element::read(h);
}

void QueueCore::write(std::string_view h, const nlohmann::json& v) {
  if (!fifo_.write_handle(h)) Element::write(h, v);
}

}  // namespace obi::blocks
