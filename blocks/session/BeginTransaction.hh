// BeginTransaction (spec 5.30, modifier): opens the named transaction on each packet: the
// blocks up to the CommitTransaction or RollbackTransaction of the same name either all
// take effect on the packet or none does.
//
// Semantics: Begin keeps a copy of the packet as it is now (bytes, length, key-value
// metadata, annotations) with the packet (Packet::undo, from the worker's packet pool, no
// allocation). CommitTransaction drops the copy and the packet goes on as modified;
// RollbackTransaction (and a failed commit) puts the copy in the packet's place, so it
// continues exactly as it was at Begin. A packet dropped or sent out inside the
// transaction takes its copy back to the pool with it. Transactions nest up to
// kMaxTransactions deep (the innermost is the one a Commit closes). A packet that cannot
// open its transaction (the pool has no buffer for the copy, or it is already that deep)
// is dropped and counted in `dropped`, since its changes could not be undone. What the
// blocks inside did outside the packet (alerts sent, counters, Store records, session
// state) is not undone.
//
// Why: try a chain of rewrites (NAT, header rewrites, decompression) and fall back to the
// untouched packet when a later check rejects the result.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/BeginTransaction.json.
// Example: {"name": "try", "type": "BeginTransaction", "config": {"name": "nat"}}
//          try -> rewrite -> check[0] -> {CommitTransaction name nat}
//                            check[1] -> {RollbackTransaction name nat}
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/element.hh"
#include "engine/pool.hh"
#include "lib/counts.hh"

namespace obi {

namespace transaction {

inline constexpr unsigned kMaxTransactions = 8;

// The tag of a transaction name (FNV-1a, 64 bits; never 0).
inline uint64_t tag(std::string_view name) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h ? h : 1;
}

// The depth of the copy of transaction `t` in p's chain (1: innermost), 0 when p has none.
inline unsigned find(const Packet& p, uint64_t t) {
  unsigned d = 1;
  for (const Packet* c = p.undo; c != nullptr; c = c->undo, ++d)
    if (c->undo_tag == t) return d;
  return 0;
}

// Replaces p by its copy at `depth` (>= 1): p and the inner copies go back to the pool;
// the copy, still carrying the outer transactions' copies, is returned.
inline Packet* roll_back(Packet* p, unsigned depth, PacketPool& pool) {
  Packet* before = p;
  for (unsigned i = 1; i < depth; ++i) before = before->undo;
  Packet* copy = before->undo;
  before->undo = nullptr;
  pool.free(p);
  return copy;
}

}  // namespace transaction

class BeginTransactionElement final : public Element {
 public:
  explicit BeginTransactionElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  enum { kCount, kDropped };
  uint64_t tag_ = 0;
  blocks::Counts<2> counts_;
};

}  // namespace obi
