// Config helpers: read a block's config object and fail with a ProtocolError that names
// the block and the field.
//
//   ConfigReader c(args);                        // args: the factory's ElementArgs
//   auto pats = c.strings("pattern", true);      // required array of strings
//   bool po = c.boolean("payload_only", false);  // optional with default
//   c.fail("pattern", "entry 2 is empty");       // throws BAD_BLOCK
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "openbox/error.hh"

namespace obi::blocks {

class ConfigReader {
 public:
  explicit ConfigReader(const ElementArgs& a) : name_(a.name), type_(a.type), cfg_(a.config) {}

  const nlohmann::json* get(std::string_view field) const;   // nullptr when absent / null
  const nlohmann::json& require(std::string_view field) const;

  std::vector<std::string> strings(std::string_view field, bool required) const;
  bool boolean(std::string_view field, bool def) const;
  int64_t integer(std::string_view field, int64_t def, int64_t min, int64_t max) const;
  const nlohmann::json& array(std::string_view field) const;   // required, non-empty array

  [[noreturn]] void fail(std::string_view field, const std::string& why,
                         openbox::ErrorSubtype st = openbox::ErrorSubtype::BAD_BLOCK) const;
  std::string where(std::string_view field) const;   // "block 'fw' (HeaderClassifier), config 'match'"

 private:
  std::string name_, type_;
  const nlohmann::json& cfg_;
};

// A JSON value as a bool for write handles: true/false (or 0/1); throws ILLEGAL_ARGUMENT.
bool handle_bool(const nlohmann::json& v, std::string_view block, std::string_view handle);

}  // namespace obi::blocks
