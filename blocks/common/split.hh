// Batch splitting by output: after a classifier has chosen an output per packet, send
// each output's packets on as one sub-batch (arrival order kept within an output).
//
//   uint16_t outs[kBatchSize];            // per packet: output, or kDropOutput
//   emit_by_output(batch, outs, ctx, out, [&](uint16_t o, const Batch& b) { count... });
//
// on_group(output, sub_batch) runs for each output's group before packets leave (also
// for kDropOutput, whose packets then go to ctx.drop). Packets then leave grouped by
// destination (block and input port): outputs connected to the same input send one
// batch. The common case of one output for the whole batch forwards the batch itself.
#pragma once

#include <cstdint>

#include "engine/element.hh"

namespace obi::blocks {

inline constexpr uint16_t kDropOutput = 0xffff;

template <typename OnGroup>
void emit_by_output(Batch& batch, const uint16_t* outs, Context& ctx, const Outputs& out, OnGroup&& on_group) {
  static_assert(kBatchSize <= 64, "a 64-bit mask tracks the packets already sent");
  const uint32_t n = batch.n;
  if (n == 0) return;
  bool same = true;
  for (uint32_t i = 1; i < n && same; ++i) same = outs[i] == outs[0];
  if (same) {
    on_group(outs[0], static_cast<const Batch&>(batch));
    if (outs[0] == kDropOutput) ctx.drop(batch); else out.emit(outs[0], batch, ctx);
    return;
  }
  // Counters per output.
  uint64_t done = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (done >> i & 1) continue;
    const uint16_t o = outs[i];
    Batch sub;
    for (uint32_t j = i; j < n; ++j)
      if (!(done >> j & 1) && outs[j] == o) { sub.add(batch.pkts[j]); done |= uint64_t(1) << j; }
    on_group(o, static_cast<const Batch&>(sub));
  }
  // Packets per destination: outputs wired to the same input (a firewall's many "allow"
  // rules all leading to the next block) travel on as one batch, in arrival order, so
  // the next block is not pushed once per rule.
  const Link* dest[kBatchSize];
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t o = outs[i];
    dest[i] = (o < out.count && out.links[o].node) ? &out.links[o] : nullptr;
  }
  done = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (done >> i & 1) continue;
    const Link* l = dest[i];
    Batch sub;
    for (uint32_t j = i; j < n; ++j) {
      if (done >> j & 1) continue;
      const Link* m = dest[j];
      if (m == l || (m && l && m->node == l->node && m->port == l->port)) { sub.add(batch.pkts[j]); done |= uint64_t(1) << j; }
    }
    if (!l) ctx.drop(sub); else l->node->element->push(l->port, sub, ctx, l->node->outputs);
  }
  batch.n = 0;
}

}  // namespace obi::blocks
