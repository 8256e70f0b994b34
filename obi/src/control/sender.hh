// Sender: the OBI's outgoing channel. Messages for the controller (responses, errors,
// alerts, logs) are queued and POSTed to <base>/message/<Type> by one thread, in queue
// order, so responses reach the controller in the order their requests were executed.
// Over plain HTTP each message goes on a new connection (so a controller restart costs
// nothing and holds no server thread), with TCP_NODELAY so the body is not held back by
// Nagle's algorithm. An https:// base is reached over mutual TLS with the OBI's credentials
// (control/tls.hh) on one kept-alive connection per sending thread (Poster), made again
// after a failure: a handshake and an OpenSSL context per message would cost milliseconds.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace httplib { class Client; }

namespace obi::control {

class Tls;

// Posts messages from one thread: plain HTTP on a new connection each time, HTTPS on a
// connection kept for the next message to the same base (dropped when a request fails).
class Poster {
 public:
  explicit Poster(const Tls* tls);
  ~Poster();
  // true on a 2xx answer
  bool post(const std::string& base, const nlohmann::json& message, int timeout_ms = 3000);

 private:
  const Tls* tls_;
  std::string base_;
  std::unique_ptr<httplib::Client> cli_;
};

// POST one message synchronously; true on a 2xx answer. `base` is "http://host:port" or
// "https://host:port" (then `tls` is required: the OBI's certificate is presented and the
// peer must be the controller).
bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms = 3000,
                  const Tls* tls = nullptr);

class Sender {
 public:
  Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet);
  ~Sender();
  void start();
  void stop();                                   // sends what is queued, then stops
  // base empty: the controller.
  void send(nlohmann::json message, std::string base = "");
  uint64_t failures() const;

 private:
  void run();

  std::string controller_;
  std::shared_ptr<const Tls> tls_;
  bool quiet_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<nlohmann::json, std::string>> queue_;
  bool stopping_ = false;
  uint64_t failures_ = 0;
  std::thread thread_;
};

}  // namespace obi::control
