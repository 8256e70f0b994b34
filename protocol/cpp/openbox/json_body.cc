// parse_json_body: simdjson's parse, or nlohmann's SAX parser, feeding a tree builder that
// refuses to open a container deeper than the bound (see json_body.hh).
#include "openbox/json_body.hh"

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <simdjson.h>

namespace openbox {
namespace {

using json = nlohmann::json;

constexpr std::size_t kKeptParserBytes = std::size_t{8} << 20;

// Builds the tree of the SAX events. `open_` holds the containers being filled, innermost
// last; a value goes to the root, to the end of the innermost array, or to the slot the
// last key made in the innermost object. Pointers stay valid: a container only grows while
// it is the innermost one, and object members are map nodes.
class BoundedTreeBuilder {
 public:
  BoundedTreeBuilder(json& root, std::size_t max_depth) : root_(root), max_depth_(max_depth) {
    open_.reserve(max_depth < 256 ? max_depth : 256);
  }

  bool too_deep() const { return too_deep_; }

  bool null() {
    place(json(nullptr));
    return true;
  }
  bool boolean(bool v) {
    place(json(v));
    return true;
  }
  bool number_integer(json::number_integer_t v) {
    place(json(v));
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    place(json(v));
    return true;
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    place(json(v));
    return true;
  }
  bool string(json::string_t& v) {
    place(json(std::move(v)));
    return true;
  }
  bool binary(json::binary_t& v) {
    place(json(std::move(v)));
    return true;
  }

  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_object() {
    open_.pop_back();
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }

  bool key(json::string_t& k) {
    slot_ = &open_.back()->get_ref<json::object_t&>()[std::move(k)];
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  json* place(json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& at = *open_.back();
    if (at.is_array()) {
      auto& a = at.get_ref<json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  bool open(json::value_t type) {
    if (open_.size() >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    open_.push_back(place(json(type)));
    return true;
  }

  json& root_;
  const std::size_t max_depth_;
  std::vector<json*> open_;
  json* slot_ = nullptr;
  bool too_deep_ = false;
};

[[noreturn]] void too_deep(std::size_t max_depth) {
  throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT,
                      "body nests arrays/objects deeper than " + std::to_string(max_depth) + " levels");
}

// Feeds the builder the events of a document simdjson parsed, in document order, walking
// it with an explicit stack (no recursion). Numbers take nlohmann's kinds: a negative
// integer is number_integer, a non-negative one number_unsigned, anything with a fraction
// or an exponent number_float (simdjson keeps that distinction in its types, except for
// "-0", which it reads as an int64 0: bodies that may hold it never get here). False when
// the builder refuses (too deep).
bool feed(simdjson::dom::element root, BoundedTreeBuilder& b) {
  struct Frame {
    bool object;
    simdjson::dom::array::iterator ai, ae;
    simdjson::dom::object::iterator oi, oe;
  };
  std::vector<Frame> stack;
  auto value = [&](simdjson::dom::element e) -> bool {
    switch (e.type()) {
      case simdjson::dom::element_type::ARRAY: {
        if (!b.start_array(0)) return false;
        simdjson::dom::array a = e.get_array().value_unsafe();
        stack.push_back({false, a.begin(), a.end(), {}, {}});
        return true;
      }
      case simdjson::dom::element_type::OBJECT: {
        if (!b.start_object(0)) return false;
        simdjson::dom::object o = e.get_object().value_unsafe();
        stack.push_back({true, {}, {}, o.begin(), o.end()});
        return true;
      }
      case simdjson::dom::element_type::INT64: {
        const int64_t v = e.get_int64().value_unsafe();
        return v < 0 ? b.number_integer(v) : b.number_unsigned(static_cast<uint64_t>(v));
      }
      case simdjson::dom::element_type::UINT64: return b.number_unsigned(e.get_uint64().value_unsafe());
      case simdjson::dom::element_type::DOUBLE: {
        json::string_t unused;
        return b.number_float(e.get_double().value_unsafe(), unused);
      }
      case simdjson::dom::element_type::STRING: {
        json::string_t v(e.get_string().value_unsafe());
        return b.string(v);
      }
      case simdjson::dom::element_type::BOOL: return b.boolean(e.get_bool().value_unsafe());
      case simdjson::dom::element_type::NULL_VALUE: return b.null();
    }
    return false;
  };
  if (!value(root)) return false;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.object) {
      if (f.oi == f.oe) {
        stack.pop_back();
        b.end_object();
        continue;
      }
      json::string_t k((*f.oi).key);
      simdjson::dom::element v = (*f.oi).value;
      ++f.oi;  // before value(): it may grow the stack and move f
      if (!b.key(k) || !value(v)) return false;
    } else {
      if (f.ai == f.ae) {
        stack.pop_back();
        b.end_array();
        continue;
      }
      simdjson::dom::element v = *f.ai;
      ++f.ai;
      if (!value(v)) return false;
    }
  }
  return true;
}

// Whether the body may hold the number -0, the one integer simdjson and nlohmann read as
// different kinds: a '-' where a value starts (after '[', ':', ',' or at the start, spaces
// between) followed by a 0 that ends the number. A string that happens to look so only
// sends the body to the reference parse.
bool may_hold_negative_zero(std::string_view body) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (std::size_t i = body.find("-0"); i != std::string_view::npos; i = body.find("-0", i + 1)) {
    const std::size_t after = i + 2;
    if (after < body.size() && (body[after] == '.' || body[after] == 'e' || body[after] == 'E')) continue;
    std::size_t j = i;
    while (j > 0 && space(body[j - 1])) --j;
    if (j == 0 || body[j - 1] == '[' || body[j - 1] == ':' || body[j - 1] == ',') return true;
  }
  return false;
}

}  // namespace

json parse_json_body_reference(std::string_view body, std::size_t max_depth) {
  // nlohmann's lexer takes a NUL byte outside a string for the end of the input, so
  // "{}\0{[..." would parse as {} and the bytes behind it would go unread. JSON has no
  // place for a raw NUL (in a string it must be escaped), so such a body is invalid JSON.
  if (body.find('\0') == std::string_view::npos) {
    json root;
    BoundedTreeBuilder builder(root, max_depth);
    if (json::sax_parse(body.data(), body.data() + body.size(), &builder)) return root;
    // A partial tree is at most max_depth deep: freeing it does not recurse further.
    if (builder.too_deep()) too_deep(max_depth);
  }
  // Invalid JSON: a body that also nests too deep past the error gets the depth answer,
  // as when the depth was checked before parsing.
  if (json_depth(body, max_depth) > max_depth) too_deep(max_depth);
  throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "body is not valid JSON");
}

namespace {

// Parses `body` with simdjson and hands the document to `use` (whose answer it returns),
// or returns false for every body the fast paths leave to the reference: one holding a NUL
// or a "-0" (see may_hold_negative_zero), and whatever simdjson refuses (invalid JSON,
// nesting past max_depth + 1, numbers beyond 64 bits).
template <typename Use>
bool with_document(std::string_view body, std::size_t max_depth, Use&& use) {
  if (body.find('\0') != std::string_view::npos || may_hold_negative_zero(body)) return false;
  // One parser and padded copy of the body are kept from one body to the next, for bodies
  // up to kKeptParserBytes: their buffers (some 15 bytes per body byte, touched only as far
  // as a body needs) are then not allocated and faulted in afresh for every graph. A body
  // that finds them in use by another thread, or a larger one, gets buffers of its own,
  // freed with it: what stays resident is bounded by one body of kKeptParserBytes.
  static std::mutex kept_mu;
  static simdjson::dom::parser kept_parser;
  static std::vector<char> kept_padded;
  std::unique_lock<std::mutex> kept(kept_mu, std::defer_lock);
  const bool keep = body.size() <= kKeptParserBytes && kept.try_lock();
  simdjson::dom::parser own;
  simdjson::dom::parser& parser = keep ? kept_parser : own;
  if (parser.max_depth() != max_depth + 1 || parser.capacity() < body.size()) {
    if (parser.allocate(std::max(body.size(), parser.capacity()), max_depth + 1) != simdjson::SUCCESS) return false;
  }
  simdjson::dom::element doc;
  if (keep) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end
    if (kept_padded.size() < body.size() + simdjson::SIMDJSON_PADDING)
      kept_padded.resize(body.size() + simdjson::SIMDJSON_PADDING);
    std::copy(body.begin(), body.end(), kept_padded.begin());
    if (parser.parse(kept_padded.data(), body.size(), false).get(doc) != simdjson::SUCCESS) return false;
  } else if (parser.parse(body.data(), body.size(), true).get(doc) != simdjson::SUCCESS) {
    return false;
  }
  return use(doc);
}

// The members of object `o` by key, each key one of `keys`: false when `o` has a key not
// among them or one key twice (the tree would keep the last; the fast path leaves that to
// the reference).
template <std::size_t N>
bool members(simdjson::dom::object o, const std::array<std::string_view, N>& keys,
             std::array<std::optional<simdjson::dom::element>, N>& out) {
  for (simdjson::dom::key_value_pair kv : o) {
    std::size_t k = 0;
    while (k < N && keys[k] != kv.key) ++k;
    if (k == N || out[k]) return false;
    out[k] = kv.value;
  }
  return true;
}

// An integer in [0, limit): as check 3 (xid) and check 7 (ports) accept it.
bool unsigned_below(simdjson::dom::element e, uint64_t limit, uint64_t& out) {
  if (e.type() == simdjson::dom::element_type::INT64) {
    const int64_t v = e.get_int64().value_unsafe();
    if (v < 0) return false;
    out = static_cast<uint64_t>(v);
  } else if (e.type() == simdjson::dom::element_type::UINT64) {
    out = e.get_uint64().value_unsafe();
  } else {
    return false;
  }
  return out < limit;
}

bool nonempty_string(simdjson::dom::element e, std::string_view& out) {
  return e.get_string().get(out) == simdjson::SUCCESS && !out.empty();
}

// A SetProcessingGraphRequest read from the document, for a document decode_json would
// accept in the same form: the fields of the spec only, each once, at every level above
// the block configurations. Configurations become trees (with the depth bound they have
// inside the body: 3 levels below it); every other value is read straight into `out`.
bool read_graph_document(simdjson::dom::element doc, std::optional<MessageType> expected, std::size_t max_depth,
                         SetProcessingGraphRequest& out) {
  constexpr std::size_t kAbove = 3;  // the body, "blocks" and the block hold a config
  if (max_depth <= kAbove) return false;
  simdjson::dom::object top;
  if (doc.get_object().get(top) != simdjson::SUCCESS) return false;
  static constexpr std::array<std::string_view, 6> kTop{"type",       "xid",         "blocks",
                                                        "connectors", "report_back", "required_modules"};
  std::array<std::optional<simdjson::dom::element>, 6> f;
  if (!members(top, kTop, f) || !f[0] || !f[1] || !f[2] || !f[3]) return false;
  std::string_view type;
  if (f[0]->get_string().get(type) != simdjson::SUCCESS || type != "SetProcessingGraphRequest") return false;
  if (expected && *expected != MessageType::SetProcessingGraphRequest) return false;
  SetProcessingGraphRequest m;
  if (!unsigned_below(*f[1], kXidLimit, m.xid)) return false;
  if (f[4]) {
    bool back = false;
    if (f[4]->get_bool().get(back) != simdjson::SUCCESS) return false;
    m.report_back = back;
  }
  if (f[5]) {
    simdjson::dom::array mods;
    if (f[5]->get_array().get(mods) != simdjson::SUCCESS) return false;
    m.required_modules.emplace();
    for (simdjson::dom::element e : mods) {
      std::string_view s;
      if (e.get_string().get(s) != simdjson::SUCCESS) return false;
      m.required_modules->emplace_back(s);
    }
  }

  simdjson::dom::array blocks, connectors;
  if (f[2]->get_array().get(blocks) != simdjson::SUCCESS || f[3]->get_array().get(connectors) != simdjson::SUCCESS)
    return false;
  m.blocks.reserve(blocks.size());
  std::unordered_set<std::string_view> names;  // views of the document's strings
  names.reserve(blocks.size());
  static constexpr std::array<std::string_view, 3> kBlock{"type", "name", "config"};
  for (simdjson::dom::element e : blocks) {
    simdjson::dom::object o;
    std::array<std::optional<simdjson::dom::element>, 3> b;
    std::string_view btype, name;
    if (e.get_object().get(o) != simdjson::SUCCESS || !members(o, kBlock, b) || !b[0] || !b[1] ||
        !nonempty_string(*b[0], btype) || !nonempty_string(*b[1], name) || !names.insert(name).second)
      return false;
    Block& blk = m.blocks.emplace_back(Block{std::string(btype), std::string(name), std::nullopt, nullptr});
    if (b[2]) {
      if (b[2]->type() != simdjson::dom::element_type::OBJECT) return false;
      json config;
      BoundedTreeBuilder builder(config, max_depth - kAbove);
      if (!feed(*b[2], builder)) return false;
      blk.config = std::move(config);
    }
  }
  m.connectors.reserve(connectors.size());
  static constexpr std::array<std::string_view, 4> kConnector{"src", "src_port", "dst", "dst_port"};
  for (simdjson::dom::element e : connectors) {
    simdjson::dom::object o;
    std::array<std::optional<simdjson::dom::element>, 4> c;
    std::string_view src, dst;
    uint64_t src_port = 0, dst_port = 0;
    if (e.get_object().get(o) != simdjson::SUCCESS || !members(o, kConnector, c) || !c[0] || !c[1] || !c[2] || !c[3] ||
        !nonempty_string(*c[0], src) || !nonempty_string(*c[2], dst) || !unsigned_below(*c[1], kPortLimit, src_port) ||
        !unsigned_below(*c[3], kPortLimit, dst_port))
      return false;
    m.connectors.push_back({std::string(src), src_port, std::string(dst), dst_port});
  }
  try {
    check_block_matches(m.blocks);  // checks 8 and 9: the reference gives their errors
  } catch (const ProtocolError&) {
    return false;
  }
  out = std::move(m);
  return true;
}

}  // namespace

bool parse_json_body_fast(std::string_view body, std::size_t max_depth, json& out) {
  return with_document(body, max_depth, [&](simdjson::dom::element doc) {
    json root;
    BoundedTreeBuilder builder(root, max_depth);
    if (!feed(doc, builder)) return false;  // deeper than max_depth: the reference answers
    out = std::move(root);
    return true;
  });
}

bool decode_graph_request_fast(std::string_view body, std::optional<MessageType> expected, std::size_t max_depth,
                               SetProcessingGraphRequest& out) {
  return with_document(body, max_depth,
                       [&](simdjson::dom::element doc) { return read_graph_document(doc, expected, max_depth, out); });
}

json parse_json_body(std::string_view body, std::size_t max_depth) {
  json tree;
  if (parse_json_body_fast(body, max_depth, tree)) return tree;
  return parse_json_body_reference(body, max_depth);
}

bool same_json(const json& a, const json& b) {
  if (a != b) return false;
  // equal trees have the same shape: walk them side by side for the number kinds
  std::vector<std::pair<const json*, const json*>> todo{{&a, &b}};
  while (!todo.empty()) {
    auto [x, y] = todo.back();
    todo.pop_back();
    if (x->type() != y->type()) return false;
    if (x->is_array()) {
      for (std::size_t i = 0; i < x->size(); ++i) todo.push_back({&(*x)[i], &(*y)[i]});
    } else if (x->is_object()) {
      for (auto it = x->begin(); it != x->end(); ++it) todo.push_back({&it.value(), &y->at(it.key())});
    }
  }
  return true;
}

}  // namespace openbox
