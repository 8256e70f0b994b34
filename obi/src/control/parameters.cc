// Validation and storage of the SetParameters / GetParameters keys.
#include "control/parameters.hh"

#include "openbox/error.hh"

namespace obi::control {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& why) {
  throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT, "parameter " + key + " " + why);
}

uint32_t as_uint(const std::string& key, const json& v, uint64_t min, uint64_t max) {
  if (!v.is_number_integer()) bad(key, "must be an integer");
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0) bad(key, "must not be negative");
  uint64_t x = v.get<uint64_t>();
  if (x < min || x > max) bad(key, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return static_cast<uint32_t>(x);
}

std::string as_string(const std::string& key, const json& v) {
  if (!v.is_string()) bad(key, "must be a string");
  return v.get<std::string>();
}

}  // namespace

const std::vector<std::string>& Parameters::names() {
  static const std::vector<std::string> kNames{
      "keepalive_interval",          "log_server_address",         "log_server_port",
      "storage_server_address",      "storage_server_port",        "log_messages_buffer_size",
      "log_messages_buffer_timeout", "alert_messages_buffer_size", "alert_messages_buffer_timeout",
      "metrics_subscription"};
  return kNames;
}

void Parameters::set(const json& parameters) {
  if (!parameters.is_object()) bad("map", "must be an object");
  std::lock_guard<std::mutex> lock(mu_);
  ParameterValues n = v_;
  for (const auto& [key, v] : parameters.items()) {
    if (key == "keepalive_interval") {
      if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 86400)
        bad(key, "must be a number of seconds in (0, 86400]");
      n.keepalive_interval = v.get<double>();
    } else if (key == "log_server_address") {
      n.log_server_address = as_string(key, v);
    } else if (key == "log_server_port") {
      n.log_server_port = as_uint(key, v, 0, 65535);
    } else if (key == "storage_server_address") {
      n.storage_server_address = as_string(key, v);
    } else if (key == "storage_server_port") {
      n.storage_server_port = as_uint(key, v, 0, 65535);
    } else if (key == "log_messages_buffer_size") {
      n.log_messages_buffer_size = as_uint(key, v, 1, 1'000'000);
    } else if (key == "log_messages_buffer_timeout") {
      n.log_messages_buffer_timeout = as_uint(key, v, 0, 3'600'000);
    } else if (key == "alert_messages_buffer_size") {
      n.alert_messages_buffer_size = as_uint(key, v, 1, 1'000'000);
    } else if (key == "alert_messages_buffer_timeout") {
      n.alert_messages_buffer_timeout = as_uint(key, v, 0, 3'600'000);
    } else if (key == "metrics_subscription") {
      n.metrics_subscription =
          v.is_null() ? nullptr : std::make_shared<const MetricsSubscription>(MetricsSubscription::parse(v));
    } else {
      bad(key, "is unknown");
    }
  }
  v_ = n;
}

json to_json(const ParameterValues& v) {
  return {{"keepalive_interval", v.keepalive_interval},
          {"log_server_address", v.log_server_address},
          {"log_server_port", v.log_server_port},
          {"storage_server_address", v.storage_server_address},
          {"storage_server_port", v.storage_server_port},
          {"log_messages_buffer_size", v.log_messages_buffer_size},
          {"log_messages_buffer_timeout", v.log_messages_buffer_timeout},
          {"alert_messages_buffer_size", v.alert_messages_buffer_size},
          {"alert_messages_buffer_timeout", v.alert_messages_buffer_timeout},
          {"metrics_subscription", v.metrics_subscription ? v.metrics_subscription->to_json() : json()}};
}

json Parameters::get(const std::vector<std::string>& wanted) const {
  json all = to_json(values());
  if (all["keepalive_interval"].get<double>() ==
      static_cast<double>(static_cast<int64_t>(all["keepalive_interval"].get<double>())))
    all["keepalive_interval"] = static_cast<int64_t>(all["keepalive_interval"].get<double>());
  if (wanted.empty()) return all;
  json out = json::object();
  for (const auto& k : wanted) {
    if (!all.contains(k)) bad(k, "is unknown");
    out[k] = all[k];
  }
  return out;
}

ParameterValues Parameters::values() const {
  std::lock_guard<std::mutex> lock(mu_);
  return v_;
}

}  // namespace obi::control
