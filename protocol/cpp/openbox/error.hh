// The error vocabulary of the OpenBox protocol (spec 1.1.0 section 3.4), shared by
// the message codec, the engine and the control plane of the OBI.
//
// Anything that rejects input throws openbox::ProtocolError; the control plane turns it
// into an Error message with the same type/subtype and the text as `message`.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace openbox {

enum class ErrorType { BAD_REQUEST, FORBIDDEN, UNSUPPORTED, INTERNAL_ERROR };

enum class ErrorSubtype {
  // BAD_REQUEST
  BAD_VERSION,
  BAD_TYPE,
  BAD_GRAPH,
  BAD_BLOCK,
  BAD_BLOCK_IMPL,
  BAD_CONNECTOR,
  BAD_HEADER_MATCH,
  BAD_PAYLOAD_MATCH,
  BAD_FILE,
  ILLEGAL_ARGUMENT,
  ILLEGAL_STATE,
  // FORBIDDEN
  NOT_PERMITTED,
  NO_ACCESS,
  // UNSUPPORTED
  UNSUPPORTED_VERSION,
  UNSUPPORTED_BLOCK,
  UNSUPPORTED_MESSAGE,
  UNSUPPORTED_OTHER,
  // INTERNAL_ERROR
  ADD_MODULE_FAILED,
  INTERNAL_ERROR,
};

// The type every subtype belongs to (spec 3.4.1).
constexpr ErrorType type_of(ErrorSubtype s) {
  switch (s) {
    case ErrorSubtype::NOT_PERMITTED:
    case ErrorSubtype::NO_ACCESS: return ErrorType::FORBIDDEN;
    case ErrorSubtype::UNSUPPORTED_VERSION:
    case ErrorSubtype::UNSUPPORTED_BLOCK:
    case ErrorSubtype::UNSUPPORTED_MESSAGE:
    case ErrorSubtype::UNSUPPORTED_OTHER: return ErrorType::UNSUPPORTED;
    case ErrorSubtype::ADD_MODULE_FAILED:
    case ErrorSubtype::INTERNAL_ERROR: return ErrorType::INTERNAL_ERROR;
    default: return ErrorType::BAD_REQUEST;
  }
}

std::string_view to_string(ErrorType t);
std::string_view to_string(ErrorSubtype s);
// Parse the spec names; return false on an unknown name.
bool parse_error_type(std::string_view name, ErrorType& out);
bool parse_error_subtype(std::string_view name, ErrorSubtype& out);

class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(ErrorSubtype subtype, const std::string& message) : std::runtime_error(message), subtype_(subtype) {}
  ErrorType type() const { return type_of(subtype_); }
  ErrorSubtype subtype() const { return subtype_; }

 private:
  ErrorSubtype subtype_;
};

}  // namespace openbox
