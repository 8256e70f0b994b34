// ConfigReader: a block's config object read with one error format.
//
// Every config error is a ProtocolError (BAD_BLOCK unless a caller names another subtype)
// whose message names the block, its type, the field (with the path inside it) and what
// was expected:
//
//   block 'fw1' (HeaderClassifier): field 'match[3].ipv4_src': expected an IPv4 prefix, got "10.0.0"
//
// A Where is such a position: the block, the field path and the subtype an error there
// carries; at(i) / key(k) descend into arrays and objects. Write handles use the same
// format with "handle 'h'" and ILLEGAL_ARGUMENT (handle_where).
//
//   ConfigReader c(args);                          // args: the factory's ElementArgs
//   auto pats = c.strings("pattern", true);        // required array of strings
//   bool po = c.boolean("payload_only", false);    // optional with default
//   int64_t n = c.integer("capacity", 1000, 1, 1 << 20);
//   const json& list = c.array("match");           // required non-empty array
//   c.where("match").at(2).expected("an object", list[2]);
//
// Unknown keys are refused before the constructor runs (OBI_REGISTER_BLOCK checks them
// against the catalogue's generated table), so blocks read only the keys they know.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "openbox/error.hh"

namespace obi::blocks {

struct Where {
  openbox::ErrorSubtype subtype;
  std::string block;           // "block 'nat' (Ipv4AddressTranslator)"
  std::string field;           // "input_spec[2]"
  std::string kind = "field";  // "field" or "handle"

  Where at(size_t index) const;                           // field[index]
  Where key(std::string_view name) const;                 // field.name
  std::string str() const;                                // "block 'n' (T): field 'f'"
  [[noreturn]] void fail(const std::string& what) const;  // str() + ": " + what
  // "expected <what>, got <value>" (the value as JSON, cut at 60 characters)
  [[noreturn]] void expected(std::string_view what, const nlohmann::json& got) const;
};

// "block 'n' (Type)"
std::string block_label(std::string_view name, std::string_view type);
// A JSON value as shown in an error: its dump, cut to 60 characters.
std::string shown(const nlohmann::json& v);

// Integer in [min, max]: a JSON integer, an integral number, or a string in decimal
// or 0x-hex ("0x8100").
int64_t parse_integer(const nlohmann::json& v, const Where& w, int64_t min, int64_t max);
double parse_number(const nlohmann::json& v, const Where& w);
bool parse_bool(const nlohmann::json& v, const Where& w);  // true/false or "true"/"false"
std::string parse_string(const nlohmann::json& v, const Where& w);
// "aa:bb:cc:dd:ee:ff" (also '-' separators) -> 48-bit value.
uint64_t parse_mac(const nlohmann::json& v, const Where& w);
// Dotted quad -> host-order address.
uint32_t parse_ipv4(const nlohmann::json& v, const Where& w);
bool parse_ipv4_text(std::string_view s, uint32_t& out);

std::string format_mac(uint64_t mac);
std::string format_ipv4(uint32_t addr);

// The configuration of one block being built. A null config reads as {}; any other
// non-object is refused.
class ConfigReader {
 public:
  explicit ConfigReader(const ElementArgs& a);

  bool has(std::string_view field) const;                       // present and not null
  const nlohmann::json* find(std::string_view field) const;     // nullptr when absent or null
  const nlohmann::json& get(std::string_view field) const;      // requires has()
  const nlohmann::json& require(std::string_view field) const;  // fails when absent
  Where where(std::string_view field) const;
  [[noreturn]] void fail(std::string_view field, const std::string& what) const { where(field).fail(what); }

  // A string or an array of strings (a lone string reads as one entry); required means
  // present and non-empty.
  std::vector<std::string> strings(std::string_view field, bool required) const;
  const nlohmann::json& array(std::string_view field) const;  // required, non-empty array
  bool boolean(std::string_view field, bool def) const;
  int64_t integer(std::string_view field, int64_t def, int64_t min, int64_t max) const;
  int64_t required_integer(std::string_view field, int64_t min, int64_t max) const;
  double required_number(std::string_view field) const;
  std::string required_string(std::string_view field) const;

  const std::string& block() const { return block_; }  // "block 'n' (Type)"

 private:
  std::string block_;
  const nlohmann::json& config_;
  static const nlohmann::json kEmpty;
};

// The Where of write handle `handle` of element `e` (subtype ILLEGAL_ARGUMENT).
Where handle_where(const Element& e, std::string_view handle);
// A write-handle value as a bool: true/false, "true"/"false" or 0/1.
bool handle_bool(const nlohmann::json& v, const Element& e, std::string_view handle);

}  // namespace obi::blocks
