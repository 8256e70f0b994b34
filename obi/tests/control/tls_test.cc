// Mutual TLS of the OBI's control plane: an in-process obi::Instance with its certificate
// talking to a TLS test controller on loopback, and clients with the controller's
// certificate, another OBI's, another CA's, an expired one or none. The certificates are
// made at test time by the front end (`openbox pki`, the openssl CLI) in a temporary
// directory.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "control/controller_endpoint.hh"
#include "control/instance.hh"
#include "control/tls.hh"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

int run(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("obi-tls-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string pki = std::string(OPENBOX_ROOT) + "/openbox pki --dir ";
    const std::string d = dir_.string();
    ASSERT_EQ(run(pki + d + " controller 2>/dev/null"), 0);
    ASSERT_EQ(run(pki + d + " obi 7 --ip 127.0.0.1 2>/dev/null"), 0);
    ASSERT_EQ(run(pki + d + " obi 3 --ip 127.0.0.1 2>/dev/null"), 0);
    ASSERT_EQ(run(pki + d + "/other controller 2>/dev/null"), 0);  // a CA of its own
    // The controller's name from the right CA, but expired yesterday.
    ASSERT_EQ(run("cd " + d +
                  " && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out expired.key"
                  " 2>/dev/null && openssl req -new -key expired.key -subj /CN=openbox-controller -out expired.csr"
                  " && printf 'extendedKeyUsage=serverAuth,clientAuth\\n' > expired.ext"
                  " && openssl x509 -req -in expired.csr -CA ca.crt -CAkey ca.key -days -1 -extfile expired.ext"
                  " -out expired.crt 2>/dev/null"),
              0);
    std::ofstream(dir_ / "garbage.crt") << "not a certificate\n";
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string f(const std::string& name) { return (dir_ / name).string(); }
  static obi::control::TlsFiles files(const std::string& who, const std::string& ca = "ca.crt") {
    return {f(who + ".crt"), f(who + ".key"), f(ca)};
  }
  static std::string load_error(const obi::control::TlsFiles& fl) {
    try {
      obi::control::Tls t(fl);
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  // A TLS controller (its own certificate) and OBI 7 connected to it over TLS.
  void start(const std::string& controller_cert = "controller", const std::string& controller_ca = "ca.crt") {
    ctl_tls_ = std::make_shared<obi::control::Tls>(files(controller_cert, controller_ca));
    ctl_ = std::make_unique<obi::control::ControllerEndpoint>(
        0, [t = ctl_tls_](SSL_CTX& c) { return t->setup_server(c); });
    obi::InstanceOptions o;
    o.dpid = 7;
    o.listen = "127.0.0.1:0";
    o.controller = ctl_->url();
    o.tls = std::make_shared<obi::control::Tls>(files("obi-7"));
    o.workers = 1;
    o.quiet = std::getenv("OBI_TEST_VERBOSE") == nullptr;
    o.hello_retry_max_ms = 200;
    obi_ = std::make_unique<obi::Instance>(o);
    obi_->start();
  }
  void TearDown() override {
    if (obi_) obi_->stop();
    if (ctl_) ctl_->stop();
  }

  // POST to the OBI as a client holding `who`.crt/.key (none when empty), verifying the
  // OBI's certificate against our CA.
  httplib::Result post_as(const std::string& who, const json& m) {
    httplib::SSLClient c("127.0.0.1", obi_->port(), who.empty() ? "" : f(who + ".crt"),
                         who.empty() ? "" : f(who + ".key"));
    c.set_ca_cert_path(f("ca.crt"));
    c.enable_server_certificate_verification(true);
    c.set_connection_timeout(2s);
    c.set_read_timeout(5s);
    return c.Post(("/message/" + m["type"].get<std::string>()).c_str(), m.dump(), "application/json");
  }

  static inline fs::path dir_;
  std::shared_ptr<obi::control::Tls> ctl_tls_;
  std::unique_ptr<obi::control::ControllerEndpoint> ctl_;
  std::unique_ptr<obi::Instance> obi_;
};

}  // namespace

TEST_F(TlsTest, tls_LoadingRefusesBadFilesWithOneLineNamingThem) {
  EXPECT_EQ(load_error(files("obi-7")), "");
  EXPECT_EQ(obi::control::Tls(files("controller")).subject_name(), "openbox-controller");

  std::string e = load_error({f("none.crt"), f("obi-7.key"), f("ca.crt")});
  EXPECT_NE(e.find("--cert " + f("none.crt") + ": cannot read: No such file or directory"), std::string::npos) << e;
  e = load_error({f("obi-7.crt"), f("obi-3.key"), f("ca.crt")});
  EXPECT_NE(e.find("--key " + f("obi-3.key") + " does not match --cert " + f("obi-7.crt")), std::string::npos) << e;
  e = load_error({f("garbage.crt"), f("obi-7.key"), f("ca.crt")});
  EXPECT_NE(e.find("--cert " + f("garbage.crt") + ": no PEM certificate"), std::string::npos) << e;
  e = load_error({f("obi-7.crt"), f("obi-7.key"), f("garbage.crt")});
  EXPECT_NE(e.find("--ca " + f("garbage.crt")), std::string::npos) << e;
  e = load_error({f("other/controller.crt"), f("other/controller.key"), f("ca.crt")});
  EXPECT_NE(e.find("does not verify against --ca"), std::string::npos) << e;
  e = load_error(files("expired"));
  EXPECT_NE(e.find("certificate has expired"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST_F(TlsTest, tls_HelloAndAnswersReachTheControllerOverMutualTls) {
  start();
  auto hello = ctl_->wait_type("Hello");
  ASSERT_TRUE(hello) << "no Hello over TLS";
  EXPECT_EQ((*hello)["dpid"], 7);
  auto res = post_as("controller", {{"type", "GlobalStatsRequest"}, {"xid", 501}});
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200) << res->body;
  auto answer = ctl_->wait_xid(501);
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["type"], "GlobalStatsResponse");
  EXPECT_TRUE(ctl_->violations().empty());
}

TEST_F(TlsTest, tls_ServerRefusesEveryClientButTheController) {
  start();
  ASSERT_TRUE(ctl_->wait_type("Hello"));
  const json graph_request = {{"type", "SetProcessingGraphRequest"},
                              {"xid", 601},
                              {"blocks", json::array({{{"type", "Discard"}, {"name", "d"}}})},
                              {"connectors", json::array()}};
  // No certificate, another CA's controller certificate, an expired one: the handshake fails.
  for (const std::string who : {"", "other/controller", "expired"}) {
    auto res = post_as(who, graph_request);
    EXPECT_FALSE(res) << "client '" << who << "' got HTTP " << res->status;
  }
  // An OBI's certificate from the right CA: 403 with the protocol's permission Error.
  auto res = post_as("obi-3", graph_request);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 403);
  json err = json::parse(res->body);
  EXPECT_EQ(err["type"], "Error");
  EXPECT_EQ(err["error_type"], "FORBIDDEN");
  EXPECT_EQ(err["error_subtype"], "NOT_PERMITTED");
  // Plain HTTP to the TLS port gets no answer.
  httplib::Client plain("127.0.0.1", obi_->port());
  plain.set_read_timeout(2s);
  auto p = plain.Post("/message/SetProcessingGraphRequest", graph_request.dump(), "application/json");
  EXPECT_TRUE(!p || p->status >= 400);
  // None of them reached the control worker: no answer to xid 601 was sent.
  EXPECT_FALSE(ctl_->wait_xid(601, 1500ms).has_value());
  // The controller still is served.
  res = post_as("controller", {{"type", "GlobalStatsRequest"}, {"xid", 602}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(ctl_->wait_xid(602).has_value());
}

// One HTTPS exchange with the OBI over a raw OpenSSL connection holding the controller's
// certificate, offering `resume` as the session; returns the status line and, through
// `session`, the session to resume next time.
std::string exchange(SSL_CTX* ctx, int port, SSL_SESSION* resume, SSL_SESSION** session, bool* reused) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "connect failed";
  }
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (resume) SSL_set_session(ssl, resume);
  std::string line;
  if (SSL_connect(ssl) == 1) {
    const std::string body = R"({"type":"GlobalStatsRequest","xid":77})";
    const std::string req =
        "POST /message/GlobalStatsRequest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        "application/json\r\nConnection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    SSL_write(ssl, req.data(), static_cast<int>(req.size()));
    char buf[512];
    int n = SSL_read(ssl, buf, sizeof buf - 1);  // also takes the TLS 1.3 session tickets
    if (n > 0) line.assign(buf, static_cast<size_t>(n));
    line = line.substr(0, line.find('\r'));
    *reused = SSL_session_reused(ssl) == 1;
    *session = SSL_get1_session(ssl);
  } else {
    line = "handshake failed";
  }
  SSL_shutdown(ssl);
  SSL_free(ssl);
  ::close(fd);
  return line;
}

TEST_F(TlsTest, tls_ControllerMayResumeItsSession) {
  start();
  ASSERT_TRUE(ctl_->wait_type("Hello"));
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  ASSERT_EQ(SSL_CTX_use_certificate_chain_file(ctx, f("controller.crt").c_str()), 1);
  ASSERT_EQ(SSL_CTX_use_PrivateKey_file(ctx, f("controller.key").c_str(), SSL_FILETYPE_PEM), 1);
  ASSERT_EQ(SSL_CTX_load_verify_locations(ctx, f("ca.crt").c_str(), nullptr), 1);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  SSL_SESSION* first = nullptr;
  SSL_SESSION* second = nullptr;
  bool reused = true;
  EXPECT_EQ(exchange(ctx, obi_->port(), nullptr, &first, &reused), "HTTP/1.1 200 OK");
  EXPECT_FALSE(reused);
  ASSERT_NE(first, nullptr);
  // A resumed session is served like a fresh one (not an internal_error alert).
  EXPECT_EQ(exchange(ctx, obi_->port(), first, &second, &reused), "HTTP/1.1 200 OK");
  EXPECT_TRUE(reused);
  SSL_SESSION_free(first);
  SSL_SESSION_free(second);
  SSL_CTX_free(ctx);
}

TEST_F(TlsTest, tls_ClientSpeaksOnlyToTheController) {
  // A server with an OBI's certificate from the right CA is not the controller.
  start("obi-3");
  EXPECT_FALSE(ctl_->wait_type("Hello", 1500ms).has_value());
  EXPECT_FALSE(obi_->connected());
  obi_->stop();
  obi_.reset();
  ctl_->stop();
  // The controller's name from another CA is not our controller either.
  start("other/controller", "other/ca.crt");
  EXPECT_FALSE(ctl_->wait_type("Hello", 1500ms).has_value());
  EXPECT_FALSE(obi_->connected());
}

TEST_F(TlsTest, tls_ObiBinaryRefusesMissingOrBadCertificatesWithExit2) {
  const std::string obi = std::string(OBI_BINARY) + " --listen 127.0.0.1:0 ";
  const std::string out = f("obi.out");
  auto one_line = [&](const std::string& args, const std::string& expect) {
    EXPECT_EQ(run(obi + args + " > " + out + " 2>&1"), 2) << args;
    const std::string text = slurp(out);
    EXPECT_NE(text.find(expect), std::string::npos) << args << ": " << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  };
  one_line("--controller https://127.0.0.1:1", "needs certificates");
  one_line("--pki " + f("none"), "--cert " + f("none/obi-1.crt") + ": cannot read");
  one_line("--dpid 7 --pki " + dir_.string() + " --key " + f("obi-3.key"), "does not match");
  one_line("--dpid 7 --pki " + dir_.string() + " --controller http://127.0.0.1:1", "plain HTTP while TLS is on");
  one_line("--cert " + f("obi-7.crt") + " --key " + f("obi-7.key"), "--cert, --key and --ca go together");
  one_line("--insecure --pki " + dir_.string(), "--insecure cannot be combined");
}
