// Sender: the OBI's outgoing channel. Messages for the controller (responses, errors,
// alerts, logs) are queued and POSTed to <base>/message/<Type> by one thread, in queue
// order, so responses reach the controller in the order their requests were executed.
// Over plain HTTP each message goes on a new connection (so a controller restart costs
// nothing and holds no server thread), with TCP_NODELAY so the body is not held back by
// Nagle's algorithm. An https:// base is reached over mutual TLS with the OBI's credentials
// (control/tls.hh) on one kept-alive connection per sending thread (Poster), made again
// after a failure: a handshake and an OpenSSL context per message would cost milliseconds.
//
// An Alert or Log the controller did not take (no answer, a timeout, a 5xx or 429) is not
// lost: it waits in a retry lane and is sent again after a back-off (0.1 s doubling to
// 5 s), before any later Alert / Log, so events keep their order; responses and Errors
// are not held behind it. The controller ignores a repeated (dpid, xid), so a retry of a
// message whose answer was lost does not raise its alerts twice. A 4xx other than 429
// is a refusal (bad message, wrong address) and is not retried.
//
// The queue is bounded (SenderLimits): a controller that stops answering makes every POST
// wait for its timeout, and the messages behind it must not grow without end. Over a
// limit the oldest Alert / Log messages are dropped first, the retry lane's before the
// queue's (counted in events_dropped()); a response or Error is dropped
// (messages_dropped()) only when the queue holds nothing else. Hello and KeepAlive do not
// pass through here (the client thread posts them).
#pragma once

#include <chrono>
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

namespace httplib {
class Client;
}

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
  // the answer's HTTP status, 0 when there was none (no connection, a timeout)
  int post_status(const std::string& base, const std::string& type, const std::string& body, int timeout_ms = 3000);

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
  std::size_t max_messages = 4096;                // queued messages
  std::size_t max_bytes = std::size_t{64} << 20;  // queued message bodies, bytes
};

class Sender {
 public:
  Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet, SenderLimits limits = {});
  ~Sender();
  void start();
  void stop();  // sends what is queued, then stops (the
                // retry lane gets no more tries: counted)
  // base empty: the controller.
  void send(nlohmann::json message, std::string base = "");
  uint64_t failures() const;
  uint64_t events_dropped() const;    // Alert / Log messages dropped unsent
  uint64_t events_retried() const;    // Alert / Log sends repeated after a failure
  uint64_t messages_dropped() const;  // other messages dropped unsent
  std::size_t queued() const;         // messages waiting
  std::size_t queued_bytes() const;

 private:
  struct Item {
    std::string type, body, base;
    bool event = false;  // Alert or Log: dropped first, retried
  };
  using Clock = std::chrono::steady_clock;
  void run();
  bool next(Item& item, bool& from_retry);  // waits for the next item to send
  void trim();                              // mu_ held

  std::string controller_;
  std::shared_ptr<const Tls> tls_;
  bool quiet_;
  SenderLimits limits_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::deque<Item> retry_;        // failed events, oldest first
  Clock::time_point retry_at_{};  // when retry_.front() may go again
  Clock::duration backoff_{};
  std::size_t bytes_ = 0;   // bodies in queue_ and retry_
  std::size_t events_ = 0;  // Alert / Log messages in queue_
  bool stopping_ = false;
  uint64_t failures_ = 0, events_dropped_ = 0, messages_dropped_ = 0, events_retried_ = 0;
  std::thread thread_;
};

}  // namespace obi::control
