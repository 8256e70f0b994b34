// Sender: the OBI's outgoing channel. Messages for the controller (responses, errors,
// alerts, logs) are queued and POSTed to <base>/message/<Type> by one thread, in queue
// order, so responses reach the controller in the order their requests were executed.
// Over plain HTTP each message goes on a new connection (so a controller restart costs
// nothing and holds no server thread), with TCP_NODELAY so the body is not held back by
// Nagle's algorithm. An https:// base is reached over mutual TLS with the OBI's credentials
// (control/tls.hh) on one kept-alive connection per sending thread (Poster), made again
// after a failure: a handshake and an OpenSSL context per message would cost milliseconds.
//
// The queue is bounded (SenderLimits): a controller that stops answering makes every POST
// wait for its timeout, and the messages behind it must not grow without end. Over a
// limit the oldest Alert / Log messages are dropped first (counted in events_dropped());
// a response or Error is dropped (messages_dropped()) only when the queue holds nothing
// else. Hello and KeepAlive do not pass through here (the client thread posts them).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
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
  bool post(const std::string& base, const std::string& type, const std::string& body, int timeout_ms = 3000);

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

struct SenderLimits {
  std::size_t max_messages = 4096;                 // queued messages
  std::size_t max_bytes = std::size_t{64} << 20;   // queued message bodies, bytes
};

class Sender {
 public:
  Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet, SenderLimits limits = {});
  ~Sender();
  void start();
  void stop();                                   // sends what is queued, then stops
  // base empty: the controller.
  void send(nlohmann::json message, std::string base = "");
  uint64_t failures() const;
  uint64_t events_dropped() const;               // Alert / Log messages dropped unsent
  uint64_t messages_dropped() const;             // other messages dropped unsent
  std::size_t queued() const;                    // messages waiting
  std::size_t queued_bytes() const;

 private:
  struct Item {
    std::string type, body, base;
    bool event = false;                          // Alert or Log: dropped first
  };
  void run();
  void trim();                                   // mu_ held

  std::string controller_;
  std::shared_ptr<const Tls> tls_;
  bool quiet_;
  SenderLimits limits_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::size_t bytes_ = 0;
  std::size_t events_ = 0;                       // queued Alert / Log messages
  bool stopping_ = false;
  uint64_t failures_ = 0, events_dropped_ = 0, messages_dropped_ = 0;
  std::thread thread_;
};

}  // namespace obi::control
