// Hard limits and identity of the OBI's REST server, over real HTTP to an in-process
// obi::Instance (and the obi binary for the start-up error): each hostile input is refused
// with the protocol's Error, the running graph stays as it was, and the server keeps
// answering.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "control/controller_endpoint.hh"
#include "control/instance.hh"
#include "engine/runtime.hh"
#include "openbox/header_match.hh"

namespace fs = std::filesystem;
using nlohmann::json;
using TestController = obi::control::ControllerEndpoint;
using namespace std::chrono_literals;

namespace {

std::string pcap_path() {
  return (fs::path(OPENBOX_ROOT) / ".." / "shared" / "data" / "fw-4560.trace.pcap").lexically_normal().string();
}

// FromDump (inactive) -> HeaderClassifier -> Discard x2; `match` is the first rule.
json graph_with_match(const json& match) {
  json g = {
      {"type", "SetProcessingGraphRequest"},
      {"blocks",
       json::array({{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", pcap_path()}, {"active", false}}}},
                    {{"type", "HeaderClassifier"},
                     {"name", "hc"},
                     {"config", {{"match", json::array({match, json::object()})}}}},
                    {{"type", "Discard"}, {"name", "d1"}},
                    {{"type", "Discard"}, {"name", "d2"}}})},
      {"connectors", json::array({{{"src", "in"}, {"src_port", 0}, {"dst", "hc"}, {"dst_port", 0}},
                                  {{"src", "hc"}, {"src_port", 0}, {"dst", "d1"}, {"dst_port", 0}},
                                  {{"src", "hc"}, {"src_port", 1}, {"dst", "d2"}, {"dst_port", 0}}})}};
  return g;
}

// '[' x depth, "80", ']' x depth
std::string nested_match_value(size_t depth) { return std::string(depth, '[') + "80" + std::string(depth, ']'); }

// A free loopback port: bind port 0 with a plain socket and close it again.
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

// A TCP connection to 127.0.0.1:port (-1 on failure).
int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

class LimitsTest : public ::testing::Test {
 protected:
  void start(unsigned http_threads = 32, unsigned http_timeout_ms = 5000, unsigned graph_budget_ms = 50000) {
    ctl_ = std::make_unique<TestController>();
    obi::InstanceOptions o;
    o.dpid = 43;
    o.listen = "127.0.0.1:0";
    o.controller = ctl_->url();
    o.workers = 1;
    o.quiet = std::getenv("OBI_TEST_VERBOSE") == nullptr;
    o.hello_retry_max_ms = 200;
    o.http_threads = http_threads;
    o.http_timeout_ms = http_timeout_ms;
    o.http_keepalive_ms = http_timeout_ms;
    o.graph_budget_ms = graph_budget_ms;
    obi_ = std::make_unique<obi::Instance>(o);
    obi_->start();
    ASSERT_TRUE(ctl_->wait_type("Hello").has_value()) << "no Hello";
    // A running graph that every refusal below must leave alone.
    json r = request(graph_with_match({{"eth_type", "0x0800"}, {"ip_proto", 6}}));
    ASSERT_EQ(r["type"], "SetProcessingGraphResponse") << r.dump();
    graph_ = obi_->runtime().graph();
    ASSERT_FALSE(graph_.empty());
  }
  void TearDown() override {
    if (obi_) obi_->stop();
    if (ctl_) {
      EXPECT_TRUE(ctl_->violations().empty()) << ctl_->violations().front();
    }
  }

  httplib::Result post(const std::string& type, const std::string& body) {
    httplib::Client cli("127.0.0.1", obi_->port());
    cli.set_read_timeout(20s);
    cli.set_write_timeout(20s);
    return cli.Post(("/message/" + type).c_str(), body, "application/json");
  }
  json request(json m) {
    m["xid"] = next_xid_++;
    auto res = post(m["type"].get<std::string>(), m.dump());
    EXPECT_TRUE(res && res->status == 200) << m["type"] << ": " << (res ? res->body.substr(0, 300) : "no answer");
    return ctl_->wait_xid(m["xid"].get<uint64_t>()).value_or(json());
  }
  // The body was refused at once (400) with this subtype, the controller got the same
  // Error, the graph is the one that was running, and the OBI still executes requests.
  void expect_refused(const httplib::Result& res, const std::string& subtype) {
    ASSERT_TRUE(res) << "no HTTP answer";
    EXPECT_EQ(res->status, 400);
    json err = json::parse(res->body, nullptr, false);
    EXPECT_EQ(err["type"], "Error") << res->body.substr(0, 300);
    EXPECT_EQ(err["error_type"], "BAD_REQUEST") << res->body.substr(0, 300);
    EXPECT_EQ(err["error_subtype"], subtype) << res->body.substr(0, 300);
    EXPECT_LT(res->body.size(), 1000u) << "the Error echoes the hostile input";
    EXPECT_TRUE(ctl_->wait_for([&](const json& m) { return m["type"] == "Error" && m["error_subtype"] == subtype; }));
    expect_undisturbed();
  }
  void expect_undisturbed() {
    EXPECT_EQ(request({{"type", "ListCapabilitiesRequest"}})["type"], "ListCapabilitiesResponse");
    EXPECT_EQ(obi_->runtime().graph(), graph_) << "a refused message changed the running graph";
  }

  uint64_t next_xid_ = 2'000'000;
  json graph_;
  std::unique_ptr<TestController> ctl_;
  std::unique_ptr<obi::Instance> obi_;
};

}  // namespace

TEST_F(LimitsTest, control_DeeplyNestedJsonIsRefusedBeforeParsing) {
  start();
  // 100k nested objects in a free-form field (600 KB): refused, no stack overflow.
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += "{\"a\":";
  deep += "1";
  deep += std::string(100'000, '}');
  expect_refused(
      post("SetParametersRequest", R"({"type": "SetParametersRequest", "xid": 5, "parameters": )" + deep + "}"),
      "ILLEGAL_ARGUMENT");
  // Nested arrays in any position, even in a body that is not otherwise valid JSON.
  expect_refused(
      post("WriteRequest", R"({"type": "WriteRequest", "xid": 6, "block_id": "in", "write_handle": "x", "value": )" +
                               std::string(200'000, '[')),
      "ILLEGAL_ARGUMENT");
  // Brackets inside strings do not count, and the limit itself is accepted.
  json ok = request({{"type", "WriteRequest"},
                     {"block_id", "nope"},
                     {"write_handle", std::string(1000, '[')},
                     {"value", json::parse(std::string(openbox::kMaxJsonDepth - 1, '[') +
                                           std::string(openbox::kMaxJsonDepth - 1, ']'))}});
  EXPECT_EQ(ok["type"], "Error");
  EXPECT_EQ(ok["error_subtype"], "ILLEGAL_ARGUMENT");  // no block "nope", not a depth refusal
  EXPECT_EQ(ok["message"].get<std::string>().find("nests"), std::string::npos) << ok.dump().substr(0, 300);
}

TEST_F(LimitsTest, control_DeepHeaderMatchIsRefusedInLinearTime) {
  start();
  using Clock = std::chrono::steady_clock;
  json g = graph_with_match({{"tcp_dst", nested_match_value(40'000)}, {"ip_proto", 6}, {"eth_type", "0x0800"}});
  g["xid"] = 9;
  const auto t0 = Clock::now();
  auto res = post("SetProcessingGraphRequest", g.dump());
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::printf("control: 40,000-deep header match refused in %.1f ms\n", ms);
  expect_refused(res, "BAD_HEADER_MATCH");
  EXPECT_NE(res->body.find("nested deeper than 32"), std::string::npos) << res->body;
  // The deepest value allowed still works.
  json r = request(graph_with_match(
      {{"tcp_dst", nested_match_value(openbox::kMaxMatchDepth)}, {"ip_proto", 6}, {"eth_type", "0x0800"}}));
  EXPECT_EQ(r["type"], "SetProcessingGraphResponse") << r.dump().substr(0, 300);
}

TEST_F(LimitsTest, control_IdleConnectionsDoNotLockTheServerOut) {
  const unsigned timeout_ms = 2000;
  start(32, timeout_ms);
  // 16 connections that never finish a request: 8 silent, 8 stopped inside the headers.
  std::vector<int> idle;
  for (int i = 0; i < 16; ++i) {
    int fd = connect_to(obi_->port());
    ASSERT_GE(fd, 0);
    if (i % 2) {
      const std::string part = "POST /message/KeepAlive HTTP/1.1\r\nHost: x\r\nContent-Le";
      ASSERT_EQ(send(fd, part.data(), part.size(), 0), static_cast<ssize_t>(part.size()));
    }
    idle.push_back(fd);
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  json caps = request({{"type", "ListCapabilitiesRequest"}});
  const auto took = Clock::now() - t0;
  EXPECT_EQ(caps["type"], "ListCapabilitiesResponse");
  EXPECT_LT(took, std::chrono::milliseconds(timeout_ms) + 1s);
  // The server drops each idle connection after its timeout (recv sees the close).
  for (int fd : idle) {
    timeval tv{static_cast<time_t>(timeout_ms / 1000 + 3), 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[512];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {}
    EXPECT_EQ(n, 0) << "connection not closed by the server";
    close(fd);
  }
  expect_undisturbed();
}

TEST_F(LimitsTest, control_ListenAddressIsNotShared) {
  start();
  const std::string taken = "127.0.0.1:" + std::to_string(obi_->port());
  // Another Instance on the same address fails to start, naming the address.
  obi::InstanceOptions o;
  o.listen = taken;
  o.controller = ctl_->url();
  o.workers = 1;
  o.quiet = true;
  obi::Instance second(o);
  try {
    second.start();
    ADD_FAILURE() << "a second OBI could listen on " << taken;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(taken), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
  }
  // Nor can any process that asks for port sharing itself.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof yes);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(obi_->port());
  EXPECT_NE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << "SO_REUSEPORT bind shared the OBI's port";
  close(fd);
  expect_undisturbed();
}

TEST_F(LimitsTest, control_ObiBinaryOnATakenAddressExitsWithOneLine) {
  if (!fs::exists(OBI_BINARY)) GTEST_SKIP() << OBI_BINARY << " is not built";
  const int port = free_port();
  ASSERT_GT(port, 0);
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  httplib::Server holder;  // the address's owner, without port sharing
  holder.set_socket_options([](int s) {
    int yes = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  ASSERT_TRUE(holder.bind_to_port("127.0.0.1", port));
  const fs::path err_file = fs::temp_directory_path() / ("obi-limits-" + std::to_string(getpid()) + ".err");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> args{OBI_BINARY,           "--listen",  listen, "--controller",
                                "http://127.0.0.1:1", "--workers", "1",    "--insecure"};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, OBI_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 400 && done == 0; ++i) {
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(50ms);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "obi kept running on a taken address";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "exit status " << status;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(err_file);
  const std::string err = ss.str();
  EXPECT_EQ(err, "obi: cannot listen on " + listen + ": address already in use\n");
}

TEST_F(LimitsTest, control_OversizedBodyIsRefusedBeforeItIsRead) {
  start();
  // A Content-Length of 1 GiB with none of the body sent: the Error comes at once.
  int fd = connect_to(obi_->port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /message/KeepAlive HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 1073741824\r\n\r\n{";
  ASSERT_EQ(send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  timeval tv{2, 0};  // well under the 5 s read timeout
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string answer;
  char buf[4096];
  ssize_t n;
  while (answer.find("\r\n\r\n") == std::string::npos || answer.back() != '}') {
    if ((n = recv(fd, buf, sizeof buf, 0)) <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  ASSERT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
  const size_t body = answer.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  json err = json::parse(answer.substr(body + 4), nullptr, false);
  EXPECT_EQ(err["type"], "Error");
  EXPECT_EQ(err["error_subtype"], "ILLEGAL_ARGUMENT");
  EXPECT_TRUE(
      ctl_->wait_for([](const json& m) { return m["type"] == "Error" && m["error_subtype"] == "ILLEGAL_ARGUMENT"; }));
  expect_undisturbed();
}

// A graph whose payload patterns take Hyperscan seconds to compile: the control plane keeps
// answering reads and stats meanwhile (from the running graph), the graph is refused at
// the compile budget with an Error, the running graph stays, and the next graph installs.
TEST_F(LimitsTest, control_SlowGraphCompileIsRefusedAtItsBudgetWhileReadsAreAnswered) {
  start(32, 5000, 1000);
  json slow = graph_with_match({{"eth_type", "0x0800"}});
  json patterns = json::array();
  for (int i = 0; i < 400; ++i) {  // bounded repeats between literals: seconds of compile
    std::string a, b;
    for (int k = 0; k < 4; ++k)
      a += static_cast<char>('a' + (i * 7 + k * 3) % 10), b += static_cast<char>('k' + (i * 5 + k) % 10);
    patterns.push_back(a + "[^\\n]{" + std::to_string(20 + i % 50) + "," + std::to_string(200 + i % 300) + "}" + b +
                       ".*x" + std::to_string(i) + "y");
  }
  slow["blocks"][1] = {{"type", "RegexClassifier"}, {"name", "rc"}, {"config", {{"pattern", patterns}}}};
  slow["connectors"] = json::array({{{"src", "in"}, {"src_port", 0}, {"dst", "rc"}, {"dst_port", 0}},
                                    {{"src", "rc"}, {"src_port", 0}, {"dst", "d1"}, {"dst_port", 0}}});
  slow["blocks"].erase(3);
  slow["xid"] = 77;
  const size_t before = ctl_->size();
  auto res = post("SetProcessingGraphRequest", slow.dump());
  ASSERT_TRUE(res && res->status == 200);
  // Answered at once, long before the graph's answer.
  json read = request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "count"}});
  EXPECT_EQ(read["type"], "ReadResponse") << read.dump();
  json stats = request({{"type", "GlobalStatsRequest"}});
  EXPECT_EQ(stats["type"], "GlobalStatsResponse") << stats.dump();
  auto refused = ctl_->wait_xid_received(77, before, 60s);
  ASSERT_TRUE(refused.has_value()) << "no answer to the slow graph";
  EXPECT_EQ(refused->message["type"], "Error") << refused->message.dump();
  EXPECT_EQ(refused->message["error_subtype"], "BAD_GRAPH");
  EXPECT_NE(refused->message.value("message", "").find("compile budget (--graph-budget-s 1 s)"), std::string::npos)
      << refused->message.dump();
  auto read_answer = ctl_->wait_xid_received(read["xid"].get<uint64_t>(), before, 1s);
  ASSERT_TRUE(read_answer.has_value());
  EXPECT_LT(read_answer->arrived, refused->arrived) << "the read waited for the graph";
  EXPECT_EQ(obi_->runtime().graph(), graph_) << "the refused graph replaced the running one";
  // The next graph waits for the abandoned compile to stop, then installs.
  json next = graph_with_match({{"eth_type", "0x0800"}, {"ip_proto", 17}});
  next["xid"] = 78;
  ASSERT_TRUE(post("SetProcessingGraphRequest", next.dump()));
  auto done = ctl_->wait_xid(78, 120s);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ((*done)["type"], "SetProcessingGraphResponse") << done->dump().substr(0, 300);
  EXPECT_NE(obi_->runtime().graph(), graph_);
  EXPECT_EQ(ctl_->count("Error"), 1u);  // the refusal only: the abandoned compile sent nothing more
}
