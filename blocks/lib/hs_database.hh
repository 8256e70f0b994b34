// HsDatabase: a block's regular expressions compiled into one Hyperscan block-mode
// database, with one scratch space per worker (cloned at configuration time), so a
// scan on the packet path takes no lock and allocates nothing.
//
//   HsDatabase db({"GET /admin", "(?i)passwd"}, {}, workers, c.where("pattern"));
//   db.scan(ctx.worker, data, len, [&](unsigned id, uint64_t from, uint64_t to) {
//     seen |= 1u << id; return false;   // true stops the scan
//   });
//
// Expressions get ids 0..n-1 in order and the flags given per expression (default:
// HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY, one report per expression and scan).
// An expression Hyperscan rejects throws ProtocolError(BAD_PAYLOAD_MATCH) at
// where.at(i), or at the field path labels[i] of where's block when labels are given
// ("match[2].payload_match[0]"), with the expression and Hyperscan's reason.
#pragma once

#include <hs/hs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/element.hh"
#include "lib/config.hh"

namespace obi::blocks {

inline constexpr unsigned kHsDefaultFlags = HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY;

class HsDatabase {
 public:
  HsDatabase(const std::vector<std::string>& exprs, const std::vector<unsigned>& flags, unsigned workers,
             const Where& where, const std::vector<std::string>& labels = {});
  ~HsDatabase();
  HsDatabase(const HsDatabase&) = delete;
  HsDatabase& operator=(const HsDatabase&) = delete;

  size_t size() const { return count_; }

  // f(id, from, to) -> bool stop. Returns false when the scan failed (not for a stop).
  template <typename F>
  bool scan(unsigned worker, const uint8_t* data, uint32_t len, F&& f) const {
    if (!db_) return true;
    static const char kEmpty = 0;
    hs_error_t e =
        hs_scan(db_, len ? reinterpret_cast<const char*>(data) : &kEmpty, len, 0, scratch_[worker], &trampoline<F>, &f);
    return e == HS_SUCCESS || e == HS_SCAN_TERMINATED;
  }

  // Escapes a literal string into an expression matching exactly its bytes.
  static std::string escape_literal(const std::string& s);

 private:
  template <typename F>
  static int trampoline(unsigned id, unsigned long long from, unsigned long long to, unsigned, void* ctx) {
    return (*static_cast<F*>(ctx))(id, static_cast<uint64_t>(from), static_cast<uint64_t>(to)) ? 1 : 0;
  }

  size_t count_ = 0;
  hs_database_t* db_ = nullptr;
  std::vector<hs_scratch_t*> scratch_;  // one per worker; each touched by its worker only
};

}  // namespace obi::blocks
