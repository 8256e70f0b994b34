// parse_json_body: simdjson's parse, or nlohmann's SAX parser, feeding a tree builder that
// refuses to open a container deeper than the bound (see json_body.hh).
#include "openbox/json_body.hh"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
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

bool parse_json_body_fast(std::string_view body, std::size_t max_depth, json& out) {
  // A NUL or a "-0" is left to the reference (see may_hold_negative_zero); so is whatever
  // simdjson refuses: invalid JSON, nesting past its bound, numbers beyond 64 bits.
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
  json root;
  BoundedTreeBuilder builder(root, max_depth);
  if (!feed(doc, builder)) return false;  // deeper than max_depth: the reference answers
  out = std::move(root);
  return true;
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
