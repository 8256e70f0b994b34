// One-thread FIFO HTTP sender for messages to the controller (and the log server), with a
// bounded queue.
#include "control/sender.hh"

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "control/tls.hh"

namespace obi::control {

Poster::Poster(const Tls* tls) : tls_(tls) {}
Poster::~Poster() = default;

bool Poster::post(const std::string& base, const nlohmann::json& message, int timeout_ms) {
  return post(base, message.value("type", "Unknown"), message.dump(), timeout_ms);
}

bool Poster::post(const std::string& base, const std::string& type, const std::string& body, int timeout_ms) {
  const int status = post_status(base, type, body, timeout_ms);
  return status >= 200 && status < 300;
}

int Poster::post_status(const std::string& base, const std::string& type, const std::string& body, int timeout_ms) {
  const bool https = base.rfind("https://", 0) == 0;
  if (!https || base != base_) cli_.reset();  // plain HTTP: a new connection every time
  if (!cli_) {
    cli_ = std::make_unique<httplib::Client>(base);
    base_ = base;
    if (https) {
      // Verification is the context's own (chain to the CA, then the controller's name),
      // so it fails the handshake itself; httplib's host-name check is not the identity
      // that matters here.
      if (!tls_ || !cli_->ssl_context() || !tls_->setup_client(*cli_->ssl_context())) {
        cli_.reset();
        return 0;
      }
      cli_->enable_server_certificate_verification(false);
      cli_->set_keep_alive(true);
    }
    cli_->set_tcp_nodelay(true);  // headers and body are two writes: do not hold the body back
  }
  cli_->set_connection_timeout(std::chrono::milliseconds(std::min(timeout_ms, 1000)));
  cli_->set_read_timeout(std::chrono::milliseconds(timeout_ms));
  cli_->set_write_timeout(std::chrono::milliseconds(timeout_ms));
  auto res = cli_->Post(("/message/" + type).c_str(), body, "application/json");
  if (!res) {
    cli_.reset();  // a broken connection is not reused
    return 0;
  }
  return res->status;
}

bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms, const Tls* tls) {
  return Poster(tls).post(base, message, timeout_ms);
}

Sender::Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet, SenderLimits limits)
    : controller_(std::move(controller_base)), tls_(std::move(tls)), quiet_(quiet), limits_(limits) {
  limits_.max_messages = std::max<std::size_t>(1, limits_.max_messages);
}

Sender::~Sender() { stop(); }

void Sender::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Sender::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Sender::send(nlohmann::json message, std::string base) {
  Item item;
  item.type = message.value("type", "Unknown");
  item.event = item.type == "Alert" || item.type == "Log";
  item.body = message.dump();
  item.base = std::move(base);
  {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += item.body.size();
    events_ += item.event;
    queue_.push_back(std::move(item));
    trim();
  }
  cv_.notify_one();
}

void Sender::trim() {
  while (queue_.size() + retry_.size() > limits_.max_messages ||
         (bytes_ > limits_.max_bytes && queue_.size() + retry_.size() > 1)) {
    if (!retry_.empty()) {  // the oldest events are the ones waiting for a retry
      bytes_ -= retry_.front().body.size();
      retry_.pop_front();
      ++events_dropped_;
      continue;
    }
    auto victim = queue_.begin();
    if (events_ > 0) {
      victim = std::find_if(queue_.begin(), queue_.end(), [](const Item& i) { return i.event; });
      ++events_dropped_;
      --events_;
    } else {
      ++messages_dropped_;
    }
    bytes_ -= victim->body.size();
    queue_.erase(victim);
  }
}

uint64_t Sender::failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

uint64_t Sender::events_dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_dropped_;
}

uint64_t Sender::events_retried() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_retried_;
}

uint64_t Sender::messages_dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return messages_dropped_;
}

std::size_t Sender::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + retry_.size();
}

std::size_t Sender::queued_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

bool Sender::next(Item& item, bool& from_retry) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stopping_ && !retry_.empty()) {  // no more tries once stopping
      events_dropped_ += retry_.size();
      for (const Item& i : retry_) bytes_ -= i.body.size();
      retry_.clear();
    }
    auto take = [&](std::deque<Item>& from, std::deque<Item>::iterator it) {
      item = std::move(*it);
      from.erase(it);
      bytes_ -= item.body.size();
      from_retry = &from == &retry_;
      if (!from_retry) events_ -= item.event;
      return true;
    };
    if (!retry_.empty() && Clock::now() >= retry_at_) return take(retry_, retry_.begin());
    if (retry_.empty() && !queue_.empty()) return take(queue_, queue_.begin());
    if (!retry_.empty()) {  // events wait behind the retry; responses and Errors do not
      auto it = std::find_if(queue_.begin(), queue_.end(), [](const Item& i) { return !i.event; });
      if (it != queue_.end()) return take(queue_, it);
      cv_.wait_until(lock, retry_at_);
      continue;
    }
    if (stopping_) return false;
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  }
}

void Sender::run() {
  using namespace std::chrono_literals;
  Poster poster(tls_.get());
  bool failing = false;
  Item item;
  bool from_retry = false;
  while (next(item, from_retry)) {
    const std::string& base = item.base.empty() ? controller_ : item.base;
    const int status = poster.post_status(base, item.type, item.body);
    const bool ok = status >= 200 && status < 300;
    if (!ok && !failing && !quiet_)
      std::fprintf(stderr, "obi: cannot deliver %s to %s (%s)\n", item.type.c_str(), base.c_str(),
                   status == 0 ? "no answer" : ("HTTP " + std::to_string(status)).c_str());
    failing = !ok;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ok) {
        backoff_ = {};
      } else {
        ++failures_;
        const bool transient = status == 0 || status == 429 || status >= 500;
        if (item.event && transient && !stopping_) {
          ++events_retried_;
          backoff_ = std::min<Clock::duration>(backoff_ == Clock::duration{} ? Clock::duration(100ms) : backoff_ * 2,
                                               Clock::duration(5s));
          retry_at_ = Clock::now() + backoff_;
          bytes_ += item.body.size();
          if (from_retry) retry_.push_front(std::move(item));
          else retry_.push_back(std::move(item));
          trim();
        } else if (item.event && transient) {
          ++events_dropped_;  // stopping: no more tries
        }
      }
    }
  }
}

}  // namespace obi::control
