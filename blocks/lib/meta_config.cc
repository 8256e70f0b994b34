#include "lib/meta_config.hh"

namespace obi::blocks {

using nlohmann::json;

std::string parse_meta_key(const json& v, const Where& w) {
  if (!v.is_string()) w.expected("a metadata key string", v);
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMetaKeyMax)
    w.expected("a metadata key of 1.." + std::to_string(kMetaKeyMax) + " bytes", v);
  return s;
}

MetaValue parse_meta_value(const json& v, const Where& w) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
      w.expected("an integer in the 64-bit signed range", v);
    return MetaValue::of(v.get<int64_t>());
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() > kMetaTextMax) w.expected("a string of at most " + std::to_string(kMetaTextMax) + " bytes", v);
    return MetaValue::of(std::string_view(s));
  }
  w.expected("an integer or a string", v);
}

json meta_value_json(const MetaValue& v) {
  if (v.kind == MetaValue::kInteger) return v.integer;
  return std::string(v.str());
}

}  // namespace obi::blocks
