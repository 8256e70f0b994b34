// OBI parameters set and read by the controller (spec 4.2.15-4.2.18):
//   keepalive_interval (seconds, default 10), log/storage server address and port,
//   alert/log message buffer sizes (messages) and timeouts (milliseconds); the extension
//   metrics_subscription (control/metrics_subscription.hh; null: none).
// set() validates every key first and applies all or nothing (transaction semantics);
// an unknown key or a value of the wrong type or range is ILLEGAL_ARGUMENT.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/metrics_subscription.hh"

namespace obi::control {

struct ParameterValues {
  double keepalive_interval = 10;  // seconds
  std::string log_server_address;  // "" : Log messages go to the controller
  uint32_t log_server_port = 0;
  std::string storage_server_address;
  uint32_t storage_server_port = 0;
  uint32_t log_messages_buffer_size = 64;
  uint32_t log_messages_buffer_timeout = 500;  // ms
  uint32_t alert_messages_buffer_size = 32;
  uint32_t alert_messages_buffer_timeout = 100;  // ms
  // shared and immutable: values() stays cheap to copy
  std::shared_ptr<const MetricsSubscription> metrics_subscription;
};

class Parameters {
 public:
  void set(const nlohmann::json& parameters);
  // names empty: every parameter.
  nlohmann::json get(const std::vector<std::string>& names) const;
  ParameterValues values() const;

  static const std::vector<std::string>& names();

 private:
  mutable std::mutex mu_;
  ParameterValues v_;
};

nlohmann::json to_json(const ParameterValues& v);

}  // namespace obi::control
