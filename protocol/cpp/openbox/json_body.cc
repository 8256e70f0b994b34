// parse_json_body: nlohmann's SAX parser feeding a tree builder that refuses to open a
// container deeper than the bound (see json_body.hh).
#include "openbox/json_body.hh"

#include <string>
#include <utility>
#include <vector>

namespace openbox {
namespace {

using json = nlohmann::json;

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

}  // namespace

json parse_json_body(std::string_view body, std::size_t max_depth) {
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

}  // namespace openbox
