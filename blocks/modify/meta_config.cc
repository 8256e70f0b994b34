#include "modify/meta_config.hh"

namespace obi::modify {

using nlohmann::json;

std::string parse_meta_key(const json& v, const Where& w) {
  if (!v.is_string()) w.fail("expected a metadata key string, got " + v.dump().substr(0, 60));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMetaKeyMax)
    w.fail("metadata key '" + s.substr(0, 40) + "' must have 1.." + std::to_string(kMetaKeyMax) + " bytes");
  return s;
}

MetaValue parse_meta_value(const json& v, const Where& w) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) w.fail("value out of range");
    return MetaValue::of(v.get<int64_t>());
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() > kMetaTextMax)
      w.fail("string value longer than " + std::to_string(kMetaTextMax) + " bytes");
    return MetaValue::of(std::string_view(s));
  }
  w.fail("expected an integer or a string, got " + v.dump().substr(0, 60));
}

json meta_value_json(const MetaValue& v) {
  if (v.kind == MetaValue::kInteger) return v.integer;
  return std::string(v.str());
}

}  // namespace obi::modify
