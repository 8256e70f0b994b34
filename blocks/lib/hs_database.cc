#include "lib/hs_database.hh"

#include <cstdio>

#include "openbox/error.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

HsDatabase::HsDatabase(const std::vector<std::string>& exprs, const std::vector<unsigned>& flags, unsigned workers,
                       const Where& where, const std::vector<std::string>& labels)
    : count_(exprs.size()) {
  if (exprs.empty()) return;
  std::vector<const char*> ptrs;
  std::vector<unsigned> fl, ids;
  for (size_t i = 0; i < exprs.size(); ++i) {
    ptrs.push_back(exprs[i].c_str());
    fl.push_back(i < flags.size() ? flags[i] : kHsDefaultFlags);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_compile_error_t* err = nullptr;
  hs_error_t rc = hs_compile_multi(ptrs.data(), fl.data(), ids.data(), static_cast<unsigned>(ptrs.size()),
                                   HS_MODE_BLOCK, nullptr, &db_, &err);
  if (rc != HS_SUCCESS) {
    std::string why = err && err->message ? err->message : "Hyperscan compilation failed";
    Where w{ErrorSubtype::BAD_PAYLOAD_MATCH, where.block, where.field};
    bool located = err && err->expression >= 0 && static_cast<size_t>(err->expression) < exprs.size();
    size_t i = located ? static_cast<size_t>(err->expression) : 0;
    if (err) hs_free_compile_error(err);
    if (!located) w.fail(why);
    Where at = i < labels.size() ? Where{w.subtype, w.block, labels[i]} : w.at(i);
    at.fail("expected a Hyperscan expression, got " + shown(exprs[i]) + " (" + why + ")");
  }
  hs_scratch_t* proto = nullptr;
  if (hs_alloc_scratch(db_, &proto) != HS_SUCCESS) {
    hs_free_database(db_);
    db_ = nullptr;
    throw ProtocolError(ErrorSubtype::INTERNAL_ERROR, where.block + ": cannot allocate Hyperscan scratch");
  }
  scratch_.push_back(proto);
  for (unsigned w = 1; w < (workers ? workers : 1); ++w) {
    hs_scratch_t* s = nullptr;
    if (hs_clone_scratch(proto, &s) != HS_SUCCESS) {
      for (hs_scratch_t* t : scratch_) hs_free_scratch(t);
      scratch_.clear();
      hs_free_database(db_);
      db_ = nullptr;
      throw ProtocolError(ErrorSubtype::INTERNAL_ERROR, where.block + ": cannot clone Hyperscan scratch");
    }
    scratch_.push_back(s);
  }
}

HsDatabase::~HsDatabase() {
  for (hs_scratch_t* s : scratch_) hs_free_scratch(s);
  scratch_.clear();
  if (db_) hs_free_database(db_);
  db_ = nullptr;
}

std::string HsDatabase::escape_literal(const std::string& s) {
  std::string out;
  out.reserve(s.size() * 4);
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace obi::blocks
