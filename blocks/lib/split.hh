// Batch splitting by output: after a classifier has chosen an output per packet, send
// each output's packets on as one sub-batch (arrival order kept within an output).
//
//   uint16_t outs[kBatchSize];            // per packet: output, or kDropOutput
//   emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {...});
//
// on_group(output, packets, bytes) runs once per output used by the batch, in order of
// first appearance, before packets leave (also for kDropOutput, whose packets then go to
// ctx.drop). Packets then leave grouped by destination (block and input port): outputs
// connected to the same input send one batch, so a firewall's many "allow" rules that
// lead to the next block push it once; so do outputs whose paths meet after pass-through
// statics (a per-rule Alert), which the links carry and which see each output's packets. Groups leave in order of first appearance.
// The work is linear in the batch (a counting sort over its distinct outputs), not in
// packets x outputs: a merged classifier with many rules splits batches into many groups.
// The common case of one output for the whole batch forwards the batch itself.
#pragma once

#include <cstdint>

#include "engine/element.hh"

namespace obi::blocks {

inline constexpr uint16_t kDropOutput = 0xffff;

// Stable counting sort of n packets by a small key (packet i has key key_of(i) < keys, and
// size[k] packets have key k): calls part(k, sub) for every key, in key order, with that
// key's packets in arrival order.
template <typename KeyOf, typename Part>
void for_each_part(Packet* const* pkts, uint32_t n, KeyOf key_of, const uint32_t* size, uint32_t keys, Part part) {
  uint32_t start[kBatchSize + 1], fill[kBatchSize];
  start[0] = 0;
  for (uint32_t k = 0; k < keys; ++k) {
    start[k + 1] = start[k] + size[k];
    fill[k] = start[k];
  }
  Packet* sorted[kBatchSize];
  for (uint32_t i = 0; i < n; ++i) sorted[fill[key_of(i)]++] = pkts[i];
  Batch sub;
  for (uint32_t k = 0; k < keys; ++k) {
    sub.n = size[k];
    for (uint32_t j = 0; j < sub.n; ++j) sub.pkts[j] = sorted[start[k] + j];
    part(k, sub);
  }
}

// Classifiers with many rules send each batch to a scattered few of their outputs, and a
// per-rule Alert folded into each: ask for the batch's links (both lines: a link holds the
// site of the static it carries, Link::site), then for the statics that have no site (the
// lines their pass reads), before any of them is used, so the cache misses overlap
// instead of following one another.
inline void prefetch_outputs(const uint16_t* outs, uint32_t n, const Outputs& out) {
  for (uint32_t i = 0; i < n; ++i)
    if (outs[i] < out.count) {
      const char* l = reinterpret_cast<const char*>(&out.links[outs[i]]);
      __builtin_prefetch(l);
      __builtin_prefetch(l + 64);
    }
  for (uint32_t i = 0; i < n; ++i) {
    if (outs[i] >= out.count) continue;
    const Link& l = out.links[outs[i]];
    if (!l.inlined || l.site_fn) continue;
    const char* e = reinterpret_cast<const char*>(l.statics[0]);
    __builtin_prefetch(e);
    __builtin_prefetch(e + 64);
    __builtin_prefetch(e + 128);
  }
}

template <typename OnGroup>
void emit_by_output(Batch& batch, const uint16_t* outs, Context& ctx, const Outputs& out, OnGroup&& on_group) {
  static_assert(kBatchSize <= 255, "group indexes are bytes");
  const uint32_t n = batch.n;
  if (n == 0) return;
  bool same = true;
  for (uint32_t i = 1; i < n && same; ++i) same = outs[i] == outs[0];
  if (same) {
    on_group(outs[0], n, batch.bytes());
    if (outs[0] == kDropOutput) ctx.drop(batch);
    else out.emit(outs[0], batch, ctx);
    return;
  }

  // Distinct outputs in order of first appearance, with their totals.
  uint16_t key[kBatchSize];
  uint32_t packets[kBatchSize];
  uint64_t bytes[kBatchSize];
  uint8_t group_of[kBatchSize];  // packet -> index into key
  uint32_t groups = 0, last = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t o = outs[i];
    uint32_t g = last;
    if (groups == 0 || key[g] != o) {
      for (g = 0; g < groups && key[g] != o; ++g) {}
      if (g == groups) {
        key[g] = o;
        packets[g] = 0;
        bytes[g] = 0;
        ++groups;
      }
      last = g;
    }
    group_of[i] = static_cast<uint8_t>(g);
    ++packets[g];
    bytes[g] += batch.pkts[i]->len;
  }
  for (uint32_t g = 0; g < groups; ++g) on_group(key[g], packets[g], bytes[g]);

  // Pass-through statics folded into the links (Link::statics) see each output's packets
  // as one batch, before the packets move on grouped by final destination.
  const Link* link[kBatchSize];
  bool statics = false;
  for (uint32_t g = 0; g < groups; ++g) {
    link[g] = key[g] < out.count ? &out.links[key[g]] : nullptr;
    statics |= link[g] && link[g]->inlined;
  }
  if (statics) {
    // statics do not change or drop packets: the batch itself stays as it is
    for_each_part(
        batch.pkts, n, [&](uint32_t i) { return group_of[i]; }, packets, groups,
        [&](uint32_t g, Batch& sub) {
          if (link[g] && link[g]->inlined) link[g]->pass_statics(sub, ctx);
        });
  }

  // Outputs -> destinations (unconnected outputs and kDropOutput share "drop").
  const Link* dest[kBatchSize];
  uint8_t dest_of[kBatchSize];  // output group -> destination group
  uint32_t size[kBatchSize];
  uint32_t dests = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    const Link* l = link[g] && link[g]->node ? link[g] : nullptr;
    uint32_t d = 0;
    for (; d < dests; ++d) {
      const Link* m = dest[d];
      if (m == l || (m && l && m->node == l->node && m->port == l->port)) break;
    }
    if (d == dests) {
      dest[d] = l;
      size[d] = 0;
      ++dests;
    }
    dest_of[g] = static_cast<uint8_t>(d);
    size[d] += packets[g];
  }

  // The packets grouped by destination, then one push per destination.
  batch.n = 0;
  for_each_part(
      batch.pkts, n, [&](uint32_t i) { return dest_of[group_of[i]]; }, size, dests,
      [&](uint32_t d, Batch& sub) {
        const Link* l = dest[d];
        if (!l) ctx.drop(sub);
        else l->node->element->push(l->port, sub, ctx, l->node->outputs);
      });
}

}  // namespace obi::blocks
