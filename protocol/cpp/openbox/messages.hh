// The OpenBox protocol messages (spec 1.1.0 section 4.2) as typed C++ values, with the
// codec that validates them in the order protocol/README.md fixes:
//
//   openbox::Message m = openbox::decode(body, openbox::MessageType::ReadRequest);
//   if (auto* r = std::get_if<openbox::ReadRequest>(&m)) { ... }
//   nlohmann::json out = openbox::encode(openbox::ReadResponse{{r->xid}, r->block_id, r->read_handle, 42});
//
// decode throws openbox::ProtocolError with the README's type/subtype for the first
// failed check; encode writes every present field and no absent optional one, so a
// valid message round-trips to equal JSON. Free-form maps stay nlohmann::json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "openbox/error.hh"
#include "openbox/header_match.hh"

namespace openbox {

enum class MessageType : uint8_t {
  Hello,
  KeepAlive,
  ListCapabilitiesRequest,
  ListCapabilitiesResponse,
  SetParametersRequest,
  SetParametersResponse,
  GetParametersRequest,
  GetParametersResponse,
  GlobalStatsRequest,
  GlobalStatsResponse,
  GlobalStatsReset,
  ReadRequest,
  ReadResponse,
  WriteRequest,
  WriteResponse,
  SetProcessingGraphRequest,
  SetProcessingGraphResponse,
  BarrierRequest,
  Error,
  Alert,
  Log,
  AddCustomModuleRequest,
  AddCustomModuleResponse,
  RemoveCustomModuleRequest,
  RemoveCustomModuleResponse,
  kCount
};

std::string_view to_string(MessageType t);
// Exact message names, plus the spec's short forms AddCustomModule / RemoveCustomModule.
bool parse_message_type(std::string_view name, MessageType& out);

// The largest xid (exclusive): integers exact in an IEEE double.
constexpr uint64_t kXidLimit = uint64_t{1} << 53;
// The largest connector port and payload offset (exclusive).
constexpr uint64_t kPortLimit = uint64_t{1} << 31;

struct Header {
  uint64_t xid = 0;
};

struct Block {
  std::string type, name;
  std::optional<nlohmann::json> config;  // an object when present
  // Not on the wire: a HeaderClassifier's config.match as decoding read it (the codec
  // checks every header match), so the OBI builds the block without reading it again.
  // Null for other blocks and for a block that was not decoded.
  SharedHeaderMatches match;
};

struct Connector {
  std::string src;
  uint64_t src_port = 0;
  std::string dst;
  uint64_t dst_port = 0;
};

// One entry of an Alert or Log message (app_id only in Alert).
struct EventEntry {
  uint64_t id = 0;
  double timestamp = 0;
  std::string message;
  int severity = 1;                   // 1..5
  std::optional<std::string> packet;  // base64 text as on the wire
  std::optional<std::string> origin_block;
  std::optional<std::string> app_id;
  // Extension (Alert entries): the packet's own timestamp and its header fields, each
  // present when the packet has that header (addresses as text, numbers as numbers).
  std::optional<double> packet_timestamp;
  std::optional<std::string> eth_src, eth_dst, src_ip, dst_ip;
  std::optional<uint16_t> eth_type, src_port, dst_port;
  std::optional<uint8_t> ip_proto, icmp_type, icmp_code;
};

struct Hello : Header {
  uint64_t dpid = 0;
  std::string version;
  std::optional<nlohmann::json> capabilities;
  std::optional<std::string> source_addr;
  std::optional<uint16_t> source_port;
};
// `metrics` (extension): the figures of the controller's metrics_subscription, when due.
struct KeepAlive : Header {
  uint64_t dpid = 0;
  std::optional<nlohmann::json> metrics;
};
struct ListCapabilitiesRequest : Header {};
struct ListCapabilitiesResponse : Header {
  nlohmann::json capabilities = nlohmann::json::object();
};
struct SetParametersRequest : Header {
  nlohmann::json parameters = nlohmann::json::object();
};
struct SetParametersResponse : Header {};
struct GetParametersRequest : Header {
  std::optional<std::vector<std::string>> parameters;
};
struct GetParametersResponse : Header {
  nlohmann::json parameters = nlohmann::json::object();
};
struct GlobalStatsRequest : Header {};
struct GlobalStatsResponse : Header {
  nlohmann::json stats = nlohmann::json::object();
};
struct GlobalStatsReset : Header {};
struct ReadRequest : Header {
  std::string block_id, read_handle;
};
struct ReadResponse : Header {
  std::string block_id, read_handle;
  nlohmann::json result;
};
struct WriteRequest : Header {
  std::string block_id, write_handle;
  nlohmann::json value;
};
struct WriteResponse : Header {
  std::string block_id, write_handle;
};
struct SetProcessingGraphRequest : Header {
  std::optional<std::vector<std::string>> required_modules;
  std::vector<Block> blocks;
  std::vector<Connector> connectors;
  std::optional<bool> report_back;
};
struct SetProcessingGraphResponse : Header {
  std::optional<std::vector<Block>> blocks;
  std::optional<std::vector<Connector>> connectors;
};
struct BarrierRequest : Header {};
struct Error : Header {
  ErrorType error_type = ErrorType::INTERNAL_ERROR;
  ErrorSubtype error_subtype = ErrorSubtype::INTERNAL_ERROR;
  std::optional<std::string> message, extended_message;
};
struct Alert : Header {
  uint64_t origin_dpid = 0;
  std::vector<EventEntry> messages;
};
struct Log : Header {
  uint64_t origin_dpid = 0;
  std::vector<EventEntry> messages;
};
struct AddCustomModuleRequest : Header {
  std::string module_name;
  std::string module_content;  // base64 text as on the wire
  std::optional<std::string> content_type, content_transfer_encoding;
  std::optional<nlohmann::json> translation;
  // Extension: what the module's signature binds, and the signature itself (base64 of an
  // Ed25519 signature; checked by the OBI's trust list, not here) with its key's id.
  std::optional<std::string> module_version, signature, key_id;
};
struct AddCustomModuleResponse : Header {};
struct RemoveCustomModuleRequest : Header {
  std::string module_name;
};
struct RemoveCustomModuleResponse : Header {};

// Alternatives in MessageType order: index() == static_cast<size_t>(type).
using Message = std::variant<Hello, KeepAlive, ListCapabilitiesRequest, ListCapabilitiesResponse, SetParametersRequest,
                             SetParametersResponse, GetParametersRequest, GetParametersResponse, GlobalStatsRequest,
                             GlobalStatsResponse, GlobalStatsReset, ReadRequest, ReadResponse, WriteRequest,
                             WriteResponse, SetProcessingGraphRequest, SetProcessingGraphResponse, BarrierRequest,
                             Error, Alert, Log, AddCustomModuleRequest, AddCustomModuleResponse,
                             RemoveCustomModuleRequest, RemoveCustomModuleResponse>;

inline MessageType type_of(const Message& m) { return static_cast<MessageType>(m.index()); }
inline uint64_t xid_of(const Message& m) {
  return std::visit([](const auto& v) { return v.xid; }, m);
}

// Hard limit on untrusted bodies: arrays and objects nested deeper than this are refused
// (ILLEGAL_ARGUMENT) by a linear scan before any tree is built, so no parser, destructor
// or visitor ever recurses on attacker-chosen depth.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Deepest nesting of arrays and objects in `text` (brackets inside strings do not count),
// found in one pass without recursion; the scan stops once `stop_above` is exceeded.
std::size_t json_depth(std::string_view text, std::size_t stop_above = kMaxJsonDepth);
// Throws ProtocolError(ILLEGAL_ARGUMENT) when `body` nests deeper than `max_depth`.
void check_json_depth(std::string_view body, std::size_t max_depth = kMaxJsonDepth);

// Parse and validate a message body (depth-checked with kMaxJsonDepth first). `expected` is the type named by the URL
// (POST /message/<Type>); a body of another type is BAD_TYPE. A SetProcessingGraphRequest
// in the form controllers send (decode_graph_request_fast) is read without a tree of the
// whole body; the message, or the error, is the one decode_json gives.
Message decode(std::string_view body, std::optional<MessageType> expected = std::nullopt);
Message decode_json(const nlohmann::json& body, std::optional<MessageType> expected = std::nullopt);
// The same checks and result from a tree the caller gives up: the blocks' configurations
// of a graph message are moved into the result, not copied (a graph of thousands of rules
// is large); `body` is left as it was without them.
Message decode_json(nlohmann::json&& body, std::optional<MessageType> expected = std::nullopt);

// Checks 8 and 9 (header and payload matches) of graph blocks decoded by other means than
// decode_json, with its errors; each HeaderClassifier's list goes to Block::match as there.
void check_block_matches(std::vector<Block>& blocks);

nlohmann::json encode(const Message& m);
std::string encode_string(const Message& m);

// The Error message for a failure (message text = the exception's what()).
Error make_error(uint64_t xid, const ProtocolError& e);
Error make_error(uint64_t xid, ErrorSubtype subtype, std::string message);

// Best effort: the xid of a body that may be invalid (0 when it has none usable or it
// nests deeper than kMaxJsonDepth).
uint64_t salvage_xid(std::string_view body);

// Base64 (RFC 4648 standard alphabet). decode accepts missing padding and rejects any
// other character; returns false on bad input.
std::string base64_encode(std::string_view bytes);
bool base64_decode(std::string_view text, std::string& out);

}  // namespace openbox
