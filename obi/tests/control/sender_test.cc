// The bounded send queue (control/sender.hh) against a real HTTP controller that stops
// answering: its handler holds the first message until the test lets it go, so every
// later message waits in the queue. Memory stays within the limits, the oldest alerts and
// logs go first (counted), responses are kept while there are alerts to drop, and what
// is kept arrives in order once the controller answers again.
#include <gtest/gtest.h>

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "control/sender.hh"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

class StalledController {
 public:
  StalledController() {
    server_.Post(R"(/message/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      received_.push_back(json::parse(req.body));
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
      res.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StalledController() {
    open();
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits until n messages have arrived; returns them.
  std::vector<json> wait(size_t n, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return received_.size() >= n; });
    return received_;
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  std::vector<json> received_;
};

json alert(int id, size_t text = 16) {
  return {{"type", "Alert"}, {"xid", id}, {"dpid", 1}, {"message", std::string(text, 'a')}};
}

}  // namespace

TEST(Sender, control_SendQueueDropsOldestAlertsFirstAndKeepsResponses) {
  StalledController ctl;
  obi::control::Sender s(ctl.url(), nullptr, true, {8, std::size_t{1} << 20});
  s.start();
  s.send(alert(0));
  ASSERT_EQ(ctl.wait(1).size(), 1u);  // the sender now waits for the stalled controller
  for (int i = 1; i <= 50; ++i) s.send(alert(i));
  s.send({{"type", "SetProcessingGraphResponse"}, {"xid", 7}});
  for (int i = 51; i <= 100; ++i) {
    s.send(alert(i));
    EXPECT_LE(s.queued(), 8u);
  }
  EXPECT_EQ(s.queued(), 8u);
  EXPECT_EQ(s.events_dropped(), 93u);  // 100 queued alerts, 7 kept beside the response
  EXPECT_EQ(s.messages_dropped(), 0u);

  ctl.open();
  std::vector<json> got = ctl.wait(9);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got[0]["xid"], 0);
  EXPECT_EQ(got[1]["type"], "SetProcessingGraphResponse");
  for (int k = 0; k < 7; ++k) EXPECT_EQ(got[2 + k]["xid"], 94 + k) << "the newest alerts are kept, in order";
  s.stop();
  EXPECT_EQ(s.queued(), 0u);
}

TEST(Sender, control_SendQueueBytesAreBounded) {
  StalledController ctl;
  const size_t limit = 64 * 1024;
  obi::control::Sender s(ctl.url(), nullptr, true, {100000, limit});
  s.start();
  s.send(alert(0));
  ASSERT_EQ(ctl.wait(1).size(), 1u);
  for (int i = 1; i <= 2000; ++i) {  // ~2 MB of alerts behind a controller that does not answer
    s.send(alert(i, 1000));
    ASSERT_LE(s.queued_bytes(), limit);
  }
  EXPECT_GE(s.queued(), 50u);
  EXPECT_EQ(s.events_dropped() + s.queued(), 2000u);
  // With nothing but responses queued, the oldest response goes (and is counted).
  obi::control::Sender r(ctl.url(), nullptr, true, {4, limit});
  r.start();
  for (int i = 0; i < 10; ++i) r.send({{"type", "ReadResponse"}, {"xid", i}});
  EXPECT_LE(r.queued(), 4u);
  EXPECT_GE(r.messages_dropped(), 5u);  // one may be on its way already
  EXPECT_EQ(r.events_dropped(), 0u);
  ctl.open();
}

namespace {

// Answers the first `failures` POSTs with `status`, then 200; records every body it answered
// with 200. Given a port, it listens there (else on any free port).
class FlakyController {
 public:
  FlakyController(int failures, int status, int port = 0) : failures_(failures), status_(status) {
    server_.Post(R"(/message/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      ++posts_;
      if (failures_ > 0) {
        --failures_;
        res.status = status_;
        return;
      }
      received_.push_back(json::parse(req.body));
      res.status = 200;
      cv_.notify_all();
    });
    if (port == 0) {
      port_ = server_.bind_to_any_port("127.0.0.1");
    } else if (server_.bind_to_port("127.0.0.1", port)) {
      port_ = port;
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the loop runs would be missed (and the join would wait for ever)
    while (port_ > 0 && !server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~FlakyController() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<json> wait(size_t n, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return received_.size() >= n; });
    return received_;
  }
  int posts() {
    std::lock_guard<std::mutex> lock(mu_);
    return posts_;
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  int failures_, status_, posts_ = 0;
  std::vector<json> received_;
};

}  // namespace

TEST(Sender, control_FailedAlertsAreSentAgainInOrderWithoutHoldingResponses) {
  FlakyController ctl(1, 503);  // the first POST fails as an overloaded controller's would
  obi::control::Sender s(ctl.url(), nullptr, true);
  s.start();
  s.send(alert(1));
  s.send(alert(2));
  s.send({{"type", "ReadResponse"}, {"xid", 9}});
  s.send(alert(3));
  std::vector<json> got = ctl.wait(4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0]["type"], "ReadResponse") << "the response went while the first alert waited to retry";
  std::vector<int> alerts;
  for (const json& m : got)
    if (m["type"] == "Alert") alerts.push_back(m["xid"].get<int>());
  EXPECT_EQ(alerts, (std::vector<int>{1, 2, 3})) << "alerts arrive once each, in their order";
  EXPECT_EQ(s.events_retried(), 1u);
  EXPECT_EQ(s.failures(), 1u);
  EXPECT_EQ(s.events_dropped(), 0u);
  s.stop();
}

TEST(Sender, control_AlertsAreRetriedWithBackOffUntilTaken) {
  FlakyController ctl(3, 500);
  obi::control::Sender s(ctl.url(), nullptr, true);
  s.start();
  const auto start = std::chrono::steady_clock::now();
  s.send(alert(1));
  s.send(alert(2));
  std::vector<json> got = ctl.wait(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["xid"], 1);
  EXPECT_EQ(got[1]["xid"], 2);
  EXPECT_EQ(s.events_retried(), 3u);
  EXPECT_EQ(ctl.posts(), 5);  // alert 1 four times, alert 2 once: nothing hammered meanwhile
  EXPECT_GE(std::chrono::steady_clock::now() - start, 700ms) << "0.1 + 0.2 + 0.4 s of back-off";
  s.stop();
}

TEST(Sender, control_AlertsRefusedByTheControllerAreNotRetried) {
  FlakyController ctl(1, 403);  // a refusal (e.g. the wrong address for the dpid)
  obi::control::Sender s(ctl.url(), nullptr, true);
  s.start();
  s.send(alert(1));
  s.send(alert(2));
  std::vector<json> got = ctl.wait(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["xid"], 2);
  s.stop();
  EXPECT_EQ(ctl.posts(), 2);
  EXPECT_EQ(s.events_retried(), 0u);
}

TEST(Sender, control_AlertsAreSentAgainWhenTheControllerIsAway) {
  int port;
  {
    FlakyController probe(0, 200);  // a free port, closed again: nothing listens there now
    port = std::stoi(probe.url().substr(probe.url().rfind(':') + 1));
  }
  obi::control::Sender s("http://127.0.0.1:" + std::to_string(port), nullptr, true);
  s.start();
  s.send(alert(1));
  s.send(alert(2));
  for (int i = 0; i < 200 && s.events_retried() == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_GE(s.events_retried(), 1u) << "the refused connection counts as a failed send";
  FlakyController ctl(0, 200, port);  // the controller comes back on its address
  std::vector<json> got = ctl.wait(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["xid"], 1);
  EXPECT_EQ(got[1]["xid"], 2);
  EXPECT_EQ(s.events_dropped(), 0u);
  s.stop();
}
