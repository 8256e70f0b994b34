// Spec 3.4 names of the error types and subtypes, both directions.
#include "openbox/error.hh"

#include <array>
#include <utility>

namespace openbox {
namespace {

constexpr std::array<std::pair<ErrorType, std::string_view>, 4> kTypes{{
    {ErrorType::BAD_REQUEST, "BAD_REQUEST"},
    {ErrorType::FORBIDDEN, "FORBIDDEN"},
    {ErrorType::UNSUPPORTED, "UNSUPPORTED"},
    {ErrorType::INTERNAL_ERROR, "INTERNAL_ERROR"},
}};

constexpr std::array<std::pair<ErrorSubtype, std::string_view>, 19> kSubtypes{{
    {ErrorSubtype::BAD_VERSION, "BAD_VERSION"},
    {ErrorSubtype::BAD_TYPE, "BAD_TYPE"},
    {ErrorSubtype::BAD_GRAPH, "BAD_GRAPH"},
    {ErrorSubtype::BAD_BLOCK, "BAD_BLOCK"},
    {ErrorSubtype::BAD_BLOCK_IMPL, "BAD_BLOCK_IMPL"},
    {ErrorSubtype::BAD_CONNECTOR, "BAD_CONNECTOR"},
    {ErrorSubtype::BAD_HEADER_MATCH, "BAD_HEADER_MATCH"},
    {ErrorSubtype::BAD_PAYLOAD_MATCH, "BAD_PAYLOAD_MATCH"},
    {ErrorSubtype::BAD_FILE, "BAD_FILE"},
    {ErrorSubtype::ILLEGAL_ARGUMENT, "ILLEGAL_ARGUMENT"},
    {ErrorSubtype::ILLEGAL_STATE, "ILLEGAL_STATE"},
    {ErrorSubtype::NOT_PERMITTED, "NOT_PERMITTED"},
    {ErrorSubtype::NO_ACCESS, "NO_ACCESS"},
    {ErrorSubtype::UNSUPPORTED_VERSION, "UNSUPPORTED_VERSION"},
    {ErrorSubtype::UNSUPPORTED_BLOCK, "UNSUPPORTED_BLOCK"},
    {ErrorSubtype::UNSUPPORTED_MESSAGE, "UNSUPPORTED_MESSAGE"},
    {ErrorSubtype::UNSUPPORTED_OTHER, "UNSUPPORTED_OTHER"},
    {ErrorSubtype::ADD_MODULE_FAILED, "ADD_MODULE_FAILED"},
    {ErrorSubtype::INTERNAL_ERROR, "INTERNAL_ERROR"},
}};

}  // namespace

std::string_view to_string(ErrorType t) {
  for (const auto& [v, n] : kTypes)
    if (v == t) return n;
  return "INTERNAL_ERROR";
}

std::string_view to_string(ErrorSubtype s) {
  for (const auto& [v, n] : kSubtypes)
    if (v == s) return n;
  return "INTERNAL_ERROR";
}

bool parse_error_type(std::string_view name, ErrorType& out) {
  for (const auto& [v, n] : kTypes)
    if (n == name) {
      out = v;
      return true;
    }
  return false;
}

bool parse_error_subtype(std::string_view name, ErrorSubtype& out) {
  for (const auto& [v, n] : kSubtypes)
    if (n == name) {
      out = v;
      return true;
    }
  return false;
}

}  // namespace openbox
