// Reading block configuration and handle values for the modifier, static and shaper
// blocks, with errors that name the block and the field.
//
// The same parsers serve the factory (a bad config is ProtocolError BAD_BLOCK) and the
// write handles (a bad value is ProtocolError ILLEGAL_ARGUMENT); a Where carries the
// subtype and the "block 'n' (Type): field 'f'" prefix of the message.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "openbox/error.hh"

namespace obi::modify {

struct Where {
  openbox::ErrorSubtype subtype;
  std::string prefix;   // "block 'nat' (Ipv4AddressTranslator): field 'input_spec'"
  [[noreturn]] void fail(const std::string& what) const;
};

// Integer in [min, max]: a JSON integer, an integral number, or a string in decimal
// or 0x-hex ("0x8100").
int64_t parse_integer(const nlohmann::json& v, const Where& w, int64_t min, int64_t max);
double parse_number(const nlohmann::json& v, const Where& w);
bool parse_bool(const nlohmann::json& v, const Where& w);
std::string parse_string(const nlohmann::json& v, const Where& w);
// "aa:bb:cc:dd:ee:ff" (also '-' separators) -> 48-bit value.
uint64_t parse_mac(const nlohmann::json& v, const Where& w);
// Dotted quad -> host-order address.
uint32_t parse_ipv4(const nlohmann::json& v, const Where& w);
bool parse_ipv4_text(std::string_view s, uint32_t& out);

std::string format_mac(uint64_t mac);
std::string format_ipv4(uint32_t addr);

// The configuration of one block being built.
class ConfigReader {
 public:
  explicit ConfigReader(const ElementArgs& a);

  bool has(std::string_view field) const;
  const nlohmann::json& get(std::string_view field) const;   // requires has()
  Where where(std::string_view field) const;
  [[noreturn]] void fail(std::string_view field, const std::string& what) const { where(field).fail(what); }

  int64_t integer(std::string_view field, int64_t def, int64_t min, int64_t max) const;
  int64_t required_integer(std::string_view field, int64_t min, int64_t max) const;
  double required_number(std::string_view field) const;
  bool boolean(std::string_view field, bool def) const;
  std::string required_string(std::string_view field) const;


  const std::string& block() const { return block_; }

 private:
  std::string block_;   // "block 'n' (Type)"
  const nlohmann::json& config_;
  static const nlohmann::json kEmpty;
};

// The Where for a write handle of element `e`.
Where handle_where(const Element& e, std::string_view handle);

}  // namespace obi::modify
