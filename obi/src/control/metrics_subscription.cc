// Parsing of the metrics_subscription parameter and the bounded KeepAlive attachment.
#include "control/metrics_subscription.hh"

#include <set>

#include "openbox/error.hh"

namespace obi::control {
namespace {

using json = nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "parameter metrics_subscription." + field + " " + why);
}

std::string name(const json& v, const std::string& field) {
  if (!v.is_string()) bad(field, "must be a string");
  const std::string s = v.get<std::string>();
  if (s.empty() || s.size() > MetricsSubscription::kMaxName)
    bad(field, "must be 1.." + std::to_string(MetricsSubscription::kMaxName) + " bytes long");
  return s;
}

constexpr uint64_t kIdLimit = 1ull << 53;

// A non-negative JSON integer (parsed text gives unsigned, values built in code signed).
bool non_negative_integer(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

// Bytes a JSON string key takes when encoded ("key":), escapes ignored (names are short and
// checked): an upper bound is not needed, the final size check is exact.
size_t key_bytes(const std::string& k) { return k.size() + 3; }

}  // namespace

MetricsSubscription MetricsSubscription::parse(const json& v) {
  if (!v.is_object()) bad("", "must be an object or null");
  MetricsSubscription s;
  for (const auto& [key, x] : v.items()) {
    if (key == "id") {
      if (!non_negative_integer(x) || x.get<uint64_t>() >= kIdLimit) bad("id", "must be an integer in [0, 2^53)");
      s.id = x.get<uint64_t>();
    } else if (key == "interval") {
      if (!x.is_number() || !(x.get<double>() >= 1 && x.get<double>() <= 86400))
        bad("interval", "must be a number of seconds in [1, 86400]");
      s.interval = x.get<double>();
    } else if (key == "global_stats") {
      if (!x.is_boolean()) bad("global_stats", "must be a boolean");
      s.global_stats = x.get<bool>();
    } else if (key == "max_bytes") {
      if (!non_negative_integer(x) || x.get<uint64_t>() < kMinBytes || x.get<uint64_t>() > kMaxBytes)
        bad("max_bytes",
            "must be an integer in [" + std::to_string(kMinBytes) + ", " + std::to_string(kMaxBytes) + "]");
      s.max_bytes = x.get<size_t>();
    } else if (key == "reads") {
      if (!x.is_array()) bad("reads", "must be an array");
      if (x.size() > kMaxBlocks) bad("reads", "names more than " + std::to_string(kMaxBlocks) + " blocks");
      size_t handles = 0;
      std::set<std::string> blocks;
      for (size_t i = 0; i < x.size(); ++i) {
        const std::string at = "reads[" + std::to_string(i) + "]";
        const json& r = x[i];
        if (!r.is_object()) bad(at, "must be an object");
        Read read;
        bool have_block = false, have_handles = false;
        for (const auto& [k, y] : r.items()) {
          if (k == "block_id") {
            read.block_id = name(y, at + ".block_id");
            have_block = true;
          } else if (k == "read_handles") {
            if (!y.is_array() || y.empty()) bad(at + ".read_handles", "must be a non-empty array of strings");
            handles += y.size();
            if (handles > kMaxHandles)
              bad(at + ".read_handles", "passes " + std::to_string(kMaxHandles) + " handles in all");
            std::set<std::string> seen;
            for (size_t j = 0; j < y.size(); ++j) {
              std::string h = name(y[j], at + ".read_handles[" + std::to_string(j) + "]");
              if (!seen.insert(h).second) bad(at + ".read_handles[" + std::to_string(j) + "]", "repeats '" + h + "'");
              read.read_handles.push_back(std::move(h));
            }
            have_handles = true;
          } else {
            bad(at + "." + k, "is unknown");
          }
        }
        if (!have_block) bad(at + ".block_id", "is missing");
        if (!have_handles) bad(at + ".read_handles", "is missing");
        if (!blocks.insert(read.block_id).second) bad(at + ".block_id", "repeats block '" + read.block_id + "'");
        s.reads.push_back(std::move(read));
      }
    } else {
      bad(key, "is unknown");
    }
  }
  return s;
}

json MetricsSubscription::to_json() const {
  json r = json::array();
  for (const Read& x : reads) r.push_back({{"block_id", x.block_id}, {"read_handles", x.read_handles}});
  json out = {{"id", id}, {"global_stats", global_stats}, {"max_bytes", max_bytes}, {"reads", std::move(r)}};
  if (interval == static_cast<double>(static_cast<int64_t>(interval))) out["interval"] = static_cast<int64_t>(interval);
  else out["interval"] = interval;
  return out;
}

json collect_metrics(const MetricsSubscription& s, const json& stats, const HandleReader& read) {
  json out = {{"subscription", s.id}};
  if (s.global_stats) out["stats"] = stats;
  json reads = json::object(), errors = json::array();
  uint64_t omitted = 0;
  // fixed part: the object so far, "reads":{}, "errors":[], "omitted": up to 20 digits
  size_t size = out.dump().size() + 40;
  for (const auto& r : s.reads) {
    for (const std::string& h : r.read_handles) {
      json value, error;
      try {
        value = read(r.block_id, h);
      } catch (const ProtocolError& e) {
        std::string msg = e.what();
        if (msg.size() > 200) msg.resize(200);
        error = {{"block_id", r.block_id},
                 {"read_handle", h},
                 {"error_subtype", std::string(openbox::to_string(e.subtype()))},
                 {"message", msg}};
      } catch (const std::exception& e) {
        std::string msg = e.what();
        if (msg.size() > 200) msg.resize(200);
        error = {{"block_id", r.block_id},
                 {"read_handle", h},
                 {"error_subtype", std::string(openbox::to_string(ErrorSubtype::INTERNAL_ERROR))},
                 {"message", msg}};
      }
      // what this entry adds: the block's key when it is new, the handle's key and value
      const size_t add = error.is_null() ? (reads.contains(r.block_id) ? 0 : key_bytes(r.block_id) + 3) + key_bytes(h) +
                                               value.dump().size()
                                         : error.dump().size() + 1;
      if (size + add > s.max_bytes) {
        ++omitted;
        continue;
      }
      size += add;
      if (error.is_null()) reads[r.block_id][h] = std::move(value);
      else errors.push_back(std::move(error));
    }
  }
  out["reads"] = std::move(reads);
  out["errors"] = std::move(errors);
  out["omitted"] = omitted;
  return out;
}

}  // namespace obi::control
