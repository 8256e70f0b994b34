#include "common/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

std::string ConfigReader::where(std::string_view field) const {
  return "block '" + name_ + "' (" + type_ + "), config '" + std::string(field) + "'";
}

void ConfigReader::fail(std::string_view field, const std::string& why, ErrorSubtype st) const {
  throw ProtocolError(st, where(field) + ": " + why);
}

const nlohmann::json* ConfigReader::get(std::string_view field) const {
  if (!cfg_.is_object()) return nullptr;
  auto it = cfg_.find(std::string(field));
  if (it == cfg_.end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json& ConfigReader::require(std::string_view field) const {
  const nlohmann::json* v = get(field);
  if (!v) fail(field, "missing (required)");
  return *v;
}

const nlohmann::json& ConfigReader::array(std::string_view field) const {
  const nlohmann::json& v = require(field);
  if (!v.is_array()) fail(field, "must be an array");
  if (v.empty()) fail(field, "must not be empty");
  return v;
}

std::vector<std::string> ConfigReader::strings(std::string_view field, bool required) const {
  std::vector<std::string> out;
  const nlohmann::json* v = get(field);
  if (!v) {
    if (required) fail(field, "missing (required)");
    return out;
  }
  if (v->is_string()) { out.push_back(v->get<std::string>()); return out; }   // a lone string
  if (!v->is_array()) fail(field, "must be an array of strings");
  if (required && v->empty()) fail(field, "must not be empty");
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) fail(field, "entry " + std::to_string(i) + " is not a string");
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

bool ConfigReader::boolean(std::string_view field, bool def) const {
  const nlohmann::json* v = get(field);
  if (!v) return def;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) {
    if (*v == "true") return true;
    if (*v == "false") return false;
  }
  fail(field, "must be a boolean");
}

int64_t ConfigReader::integer(std::string_view field, int64_t def, int64_t min, int64_t max) const {
  const nlohmann::json* v = get(field);
  if (!v) return def;
  if (!v->is_number_integer()) fail(field, "must be an integer");
  int64_t x = v->get<int64_t>();
  if (x < min || x > max)
    fail(field, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + std::to_string(x));
  return x;
}

bool handle_bool(const nlohmann::json& v, std::string_view block, std::string_view handle) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() && (v == 0 || v == 1)) return v == 1;
  if (v.is_string() && (v == "true" || v == "false")) return v == "true";
  throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT,
                      "block '" + std::string(block) + "', handle '" + std::string(handle) + "': expects a boolean");
}

}  // namespace obi::blocks
