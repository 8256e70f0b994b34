// Sender: the OBI's outgoing channel. Messages for the controller (responses, errors,
// alerts, logs) are queued and POSTed to <base>/message/<Type> by one thread, in queue
// order, so responses reach the controller in the order their requests were executed.
// Each message goes on a new connection (so a controller restart costs nothing and holds
// no server thread), with TCP_NODELAY so the body is not held back by Nagle's algorithm.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace obi::control {

// POST one message synchronously; true on a 2xx answer. `base` is "http://host:port".
bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms = 3000);

class Sender {
 public:
  explicit Sender(std::string controller_base, bool quiet);
  ~Sender();
  void start();
  void stop();                                   // sends what is queued, then stops
  // base empty: the controller.
  void send(nlohmann::json message, std::string base = "");
  uint64_t failures() const;

 private:
  void run();

  std::string controller_;
  bool quiet_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<nlohmann::json, std::string>> queue_;
  bool stopping_ = false;
  uint64_t failures_ = 0;
  std::thread thread_;
};

}  // namespace obi::control
