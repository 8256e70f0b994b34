// control_bench: the OBI side of the OpenBox protocol, measured on loopback against a real
// `obi` process driven by a real controller-side HTTP endpoint (ControllerEndpoint).
//
//   control_bench --obi build/obi/obi --firewall DIR/firewall.json [--module sample_module.so]
//                 [--pcap P] [--swaps 20] [--swap-gap-ms 40] [--n 200] [--pps 20000] [--workers 1]
//                 [--no-netns] [--reopen-source] [--pki DIR]
//   (--swap-gap-ms G: the pause after each swap's response, plus 0-28 ms varying the swap's
//    moment; at the default 40 ms the next graph arrives while the OBI still builds the
//    previous one's rte_acl structure in the background, at 2000 it finds the OBI settled;
//    --no-netns: stay in the current namespace, where the veth pair obb0/obb1 must exist;
//    --reopen-source: the second graph also sets FromDevice promisc, so every swap replaces
//    the source and its socket: a check that the loss accounting does see what that costs;
//    --pki DIR: mutual TLS both ways, as deployed: the endpoint serves DIR/controller.crt and
//    requires the OBI's certificate, the OBI runs with --pki DIR (DIR/obi-7.crt), and the
//    requests to the OBI present the controller's certificate on a kept-alive connection.
//    Without it both directions are plain HTTP (--insecure). Every line says which:
//    "transport": "tls" or "plain".)
//
// Prints one JSON line per message type:
//   SetProcessingGraph  request POST -> SetProcessingGraphResponse at the endpoint, over
//                       --swaps swaps alternating the 4560-rule firewall and the same rules
//                       in reverse order, while traffic runs through the OBI, with the
//                       zero-loss accounting (below); obi_live_ms and obi_parse_ms,
//                       obi_queued_ms, obi_compile_ms, obi_activate_ms, obi_switch_ms: the
//                       OBI's own figures of each swap (medians), from the "timing" of its
//                       SetProcessingGraphResponse (request received -> every worker runs
//                       the new graph, and its parts);
//   KeepAlive           with keepalive_interval 20 ms: from the endpoint answering one
//                       KeepAlive to the next one arriving, minus the interval (the OBI's
//                       receipt of the answer, its timer, a new connection and the POST);
//   GlobalStats, Read, Write   request POST -> response at the endpoint;
//   AddCustomModule, RemoveCustomModule   the sample module padded to 22.3 KB, added and
//                       removed in turn; signed with a key made for the run, which the OBI
//                       trusts (--module-trust), so the figure includes its signature check.
//
// Traffic: the process moves into a private network namespace (needs root; it vanishes
// with the process) with a veth pair obb0/obb1. The graphs read obb1 (FromDevice) and send
// every allowed packet back out of obb1 (ToDevice). A generator thread replays the frames
// of the trace pcap on obb0 at --pps, each with a 4-byte sequence number appended (after
// the headers, so classification is unchanged), and a receiver thread on obb0 records
// which sequence numbers came back. A frame whose copies never come back is dropped by the
// rules; a lost packet is a copy of a frame that does come back that did not. The OBI's
// own figures (GlobalStats packets_in / out / dropped, FromDevice drops) are cross-checked.
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "control/controller_endpoint.hh"
#include "control/module_signature.hh"
#include "control/tls.hh"
#include "io/pcap.hh"

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr uint8_t kMarker[6] = {0x02, 0x0b, 0x0b, 0x0b, 0x0b, 0x01};  // source MAC of our frames
constexpr const char* kGenIf = "obb0";
constexpr const char* kObiIf = "obb1";

struct Options {
  std::string obi = "build/obi/obi";
  std::string firewall;
  std::string module;
  std::string pcap = std::string(OPENBOX_ROOT) + "/../shared/data/fw-4560.trace.pcap";
  int swaps = 20;
  int swap_gap_ms = 40;
  int n = 200;
  int module_n = 40;
  int pps = 20000;
  unsigned workers = 1;
  bool netns = true;
  bool reopen_source = false;
  std::string pki;           // empty: plain HTTP
  std::string module_trust;  // the run's module signing public key (PEM file)
};

const char* g_transport = "plain";  // "tls" with --pki: stamped on every line

pid_t g_obi_pid = -1;  // the OBI under test: die() stops it too (exit runs no destructors)

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "control_bench: %s\n", why.c_str());
  if (g_obi_pid > 0) ::kill(g_obi_pid, SIGTERM);
  std::exit(1);
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

// Keys in insertion order: message, p50_ms, p99_ms, n first, as the controller-side lines.
using Line = nlohmann::ordered_json;

double r3(double x) { return std::round(x * 1000) / 1000; }

Line figures(const std::string& message, const std::vector<double>& v, const std::string& measure) {
  Line j;
  j["message"] = message;
  j["p50_ms"] = r3(percentile(v, 0.5));
  j["p99_ms"] = r3(percentile(v, 0.99));
  j["n"] = v.size();
  j["side"] = "obi";
  j["transport"] = g_transport;
  j["measure"] = measure;
  return j;
}

void print(const Line& j) {
  std::string out = j.dump(-1);
  // one space after ':' and ',' outside strings, like the controller-side lines
  std::string spaced;
  bool in_string = false;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    spaced.push_back(c);
    if (c == '"' && (i == 0 || out[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && (c == ':' || c == ',')) spaced.push_back(' ');
  }
  std::printf("%s\n", spaced.c_str());
  std::fflush(stdout);
}

void sh(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) die("command failed: " + cmd);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) die("cannot write " + path);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A private network namespace with lo and the veth pair; IPv6 off so the kernel sends no
// neighbour discovery of its own on the pair.
void enter_netns() {
  if (::unshare(CLONE_NEWNET) != 0)
    die(std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno) + " (run as root, or pass --no-netns)");
  write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
  write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
  sh("ip link set lo up");
  sh(std::string("ip link add ") + kGenIf + " type veth peer name " + kObiIf);
  sh(std::string("ip link set ") + kGenIf + " up");
  sh(std::string("ip link set ") + kObiIf + " up");
}

int packet_socket(const char* ifname, int protocol) {
  int fd = ::socket(AF_PACKET, SOCK_RAW, protocol);
  if (fd < 0) die(std::string("AF_PACKET socket: ") + std::strerror(errno));
  sockaddr_ll a{};
  a.sll_family = AF_PACKET;
  a.sll_protocol = static_cast<uint16_t>(protocol);
  a.sll_ifindex = static_cast<int>(if_nametoindex(ifname));
  if (!a.sll_ifindex || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    die(std::string("bind AF_PACKET to ") + ifname + ": " + std::strerror(errno));
  return fd;
}

// Replays the trace frames on obb0 at a fixed rate and records which copies come back.
class Traffic {
 public:
  Traffic(const std::string& pcap, int pps, size_t capacity) : pps_(pps), back_(capacity) {
    obi::io::PcapReader r(pcap);
    uint64_t off = r.begin();
    obi::io::PcapRecord rec;
    while (frames_.size() < 20000 && r.next(off, rec)) {
      if (rec.caplen < 14 || rec.caplen > 1500) continue;
      std::string f(reinterpret_cast<const char*>(rec.data), rec.caplen);
      std::memcpy(f.data() + 6, kMarker, 6);
      f.append(4, '\0');  // sequence number trailer
      frames_.push_back(std::move(f));
    }
    if (frames_.empty()) die("no usable frames in " + pcap);
    tx_ = packet_socket(kGenIf, 0);
    rx_ = packet_socket(kGenIf, htons(ETH_P_ALL));
    int one = 1, buf = 32 << 20;
    ::setsockopt(rx_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    ::setsockopt(rx_, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
    timeval tv{0, 50000};
    ::setsockopt(rx_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Traffic() {
    stop_tx();
    stop_rx();
    ::close(tx_);
    ::close(rx_);
  }

  void start() {
    rx_run_ = true;
    tx_run_ = true;
    rx_thread_ = std::thread([this] { receive(); });
    tx_thread_ = std::thread([this] { transmit(); });
  }
  void stop_tx() {
    tx_run_ = false;
    if (tx_thread_.joinable()) tx_thread_.join();
  }
  void stop_rx() {
    rx_run_ = false;
    if (rx_thread_.joinable()) rx_thread_.join();
  }

  struct Result {
    uint64_t sent = 0, returned = 0, rule_dropped = 0, lost = 0, strays = 0, rx_socket_drops = 0;
  };
  Result result() {
    Result r;
    r.sent = sent_;
    std::vector<uint8_t> passes(frames_.size(), 0);
    for (uint64_t s = 0; s < r.sent; ++s)
      if (back_[s]) passes[s % frames_.size()] = 1;
    for (uint64_t s = 0; s < r.sent; ++s) {
      if (back_[s]) ++r.returned;
      else if (passes[s % frames_.size()]) ++r.lost;
      else ++r.rule_dropped;
    }
    r.strays = strays_;
    tpacket_stats st{};
    socklen_t len = sizeof st;
    if (::getsockopt(rx_, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) rx_drops_ += st.tp_drops;
    r.rx_socket_drops = rx_drops_;
    return r;
  }

 private:
  void transmit() {
    constexpr unsigned kBurst = 16;
    const auto period = std::chrono::nanoseconds(1'000'000'000LL * kBurst / pps_);
    auto next = Clock::now();
    std::vector<std::string> burst(kBurst);
    mmsghdr msgs[kBurst];
    iovec iov[kBurst];
    while (tx_run_ && sent_ + kBurst < back_.size()) {
      for (unsigned i = 0; i < kBurst; ++i) {
        uint32_t seq = static_cast<uint32_t>(sent_ + i);
        burst[i] = frames_[seq % frames_.size()];
        std::memcpy(burst[i].data() + burst[i].size() - 4, &seq, 4);
        iov[i] = {burst[i].data(), burst[i].size()};
        msgs[i] = {};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
      }
      unsigned done = 0;
      while (done < kBurst) {
        int k = ::sendmmsg(tx_, msgs + done, kBurst - done, 0);
        if (k > 0) done += static_cast<unsigned>(k);
        else if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
          die(std::string("sendmmsg: ") + std::strerror(errno));
      }
      sent_ += kBurst;
      next += period;
      if (next < Clock::now() - 20ms) next = Clock::now();  // fell far behind: do not burst
      std::this_thread::sleep_until(next);
    }
  }

  void receive() {
    constexpr unsigned kVec = 64;
    std::vector<std::array<char, 2048>> bufs(kVec);
    mmsghdr msgs[kVec];
    iovec iov[kVec];
    while (rx_run_) {
      for (unsigned i = 0; i < kVec; ++i) {
        iov[i] = {bufs[i].data(), bufs[i].size()};
        msgs[i] = {};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
      }
      int k = ::recvmmsg(rx_, msgs, kVec, MSG_WAITFORONE, nullptr);
      for (int i = 0; i < k; ++i) {
        const char* f = bufs[i].data();
        uint32_t len = msgs[i].msg_len;
        if (len < 18 || std::memcmp(f + 6, kMarker, 6) != 0) {
          ++strays_;
          continue;
        }
        uint32_t seq;
        std::memcpy(&seq, f + len - 4, 4);
        if (seq < back_.size()) back_[seq] = 1;
        else ++strays_;
      }
    }
  }

  int pps_;
  std::vector<std::string> frames_;
  std::vector<uint8_t> back_;  // [seq]: came back (written by the receiver only)
  std::atomic<uint64_t> sent_{0};
  uint64_t strays_ = 0, rx_drops_ = 0;
  std::atomic<bool> tx_run_{false}, rx_run_{false};
  std::thread tx_thread_, rx_thread_;
  int tx_ = -1, rx_ = -1;
};

// The OBI under test, as a child process.
class ObiProcess {
 public:
  ObiProcess(const Options& o, const std::string& controller) {
    std::vector<std::string> args = {o.obi,      "--dpid",         "7",
                                     "--listen", "127.0.0.1:0",    "--controller",
                                     controller, "--workers",      std::to_string(o.workers),
                                     "--quiet",  "--module-trust", o.module_trust};
    if (o.pki.empty()) args.push_back("--insecure");
    else args.insert(args.end(), {"--pki", o.pki});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, o.obi.c_str(), nullptr, nullptr, argv.data(), environ) != 0) die("cannot start " + o.obi);
    g_obi_pid = pid_;
  }
  ~ObiProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st;
      ::waitpid(pid_, &st, 0);
      g_obi_pid = -1;
    }
  }
  bool alive() const { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

// An Ed25519 key made for this run: the OBI trusts its public half, the bench signs the
// module it adds with it, as the controller does with its own key.
class ModuleKey {
 public:
  ModuleKey() : key_(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), EVP_PKEY_free) {
    if (!key_) die("cannot create an Ed25519 key");
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/control-bench-trust-XXXXXX";
    int fd = ::mkstemp(templ.data());
    if (fd < 0) die("cannot create a trust file");
    path_ = templ;
    FILE* f = ::fdopen(fd, "w");
    if (!f || PEM_write_PUBKEY(f, key_.get()) != 1) die("cannot write the trust file " + path_);
    std::fclose(f);
    unsigned char raw[32];
    size_t len = sizeof raw;
    EVP_PKEY_get_raw_public_key(key_.get(), raw, &len);
    key_id_ = obi::control::module_key_id(std::string_view(reinterpret_cast<const char*>(raw), len));
  }
  ~ModuleKey() { ::unlink(path_.c_str()); }
  const std::string& trust_file() const { return path_; }
  const std::string& key_id() const { return key_id_; }
  std::string sign(const std::string& name, const std::string& version, const std::string& content) const {
    const std::string input = obi::control::module_signing_input(name, version, content);
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char sig[64];
    size_t len = sizeof sig;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
        EVP_DigestSign(ctx.get(), sig, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
      die("Ed25519 signing failed");
    return openbox::base64_encode(std::string(reinterpret_cast<const char*>(sig), len));
  }

 private:
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key_;
  std::string path_, key_id_;
};

class Bench {
 public:
  Bench(const Options& o, const ModuleKey& key) : opt_(o), key_(key) {}

  int run() {
    std::shared_ptr<obi::control::Tls> tls;
    obi::control::ControllerEndpoint::TlsSetup setup;
    if (!opt_.pki.empty()) {
      try {
        tls = std::make_shared<obi::control::Tls>(
            obi::control::TlsFiles{opt_.pki + "/controller.crt", opt_.pki + "/controller.key", opt_.pki + "/ca.crt"});
      } catch (const std::exception& e) {
        die(e.what());
      }
      setup = [tls](SSL_CTX& c) { return tls->setup_server(c); };
    }
    obi::control::ControllerEndpoint ctl(0, setup);
    ctl_ = &ctl;
    ObiProcess obi(opt_, ctl.url());
    auto hello = ctl.wait_type("Hello", 20s);
    if (!hello) die("the OBI sent no Hello within 20 s");
    const std::string obi_url =
        std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string((*hello)["source_port"].get<int>());
    if (tls) {
      cli_ = std::make_unique<httplib::Client>(obi_url, opt_.pki + "/controller.crt", opt_.pki + "/controller.key");
      cli_->set_ca_cert_path(opt_.pki + "/ca.crt");
      cli_->enable_server_certificate_verification(true);
    } else {
      cli_ = std::make_unique<httplib::Client>(obi_url);
    }
    cli_->set_keep_alive(true);
    cli_->set_tcp_nodelay(true);
    cli_->set_read_timeout(30s);
    cli_->set_write_timeout(30s);

    swaps();
    round_trips("GlobalStats", json{{"type", "GlobalStatsRequest"}}, "GlobalStatsResponse");
    round_trips("Read", json{{"type", "ReadRequest"}, {"block_id", "in"}, {"read_handle", "count"}}, "ReadResponse");
    round_trips(
        "Write",
        json{{"type", "WriteRequest"}, {"block_id", "fw"}, {"write_handle", "reset_counts"}, {"value", nullptr}},
        "WriteResponse");
    keepalives();
    if (!opt_.module.empty()) custom_modules();
    if (!ctl.violations().empty()) die("the OBI sent invalid messages: " + ctl.violations().front());
    if (!obi.alive()) die("the OBI exited during the benchmark");
    return 0;
  }

 private:
  // POSTs body (a message without xid) with a fresh xid; the time until the endpoint has
  // the answer. Dies unless the answer has type `expect`.
  double timed(const std::string& type, const std::string& body_without_xid, const std::string& expect) {
    const uint64_t xid = next_xid_++;
    std::string body =
        body_without_xid.substr(0, body_without_xid.size() - 1) + ",\"xid\":" + std::to_string(xid) + "}";
    const size_t from = ctl_->size();
    const auto t0 = Clock::now();
    auto res = cli_->Post(("/message/" + type).c_str(), body, "application/json");
    if (!res || res->status != 200)
      die(type + ": HTTP " + (res ? std::to_string(res->status) + " " + res->body : httplib::to_string(res.error())));
    auto got = ctl_->wait_xid_received(xid, from, 30s);
    if (!got) die(type + ": no answer within 30 s");
    if (got->message["type"] != expect) die(type + ": answered " + got->message.dump().substr(0, 300));
    last_answer_ = got->message;
    return ms(got->arrived - t0);
  }
  json last_answer_;  // the answer of the last timed() request
  double timed(const json& m, const std::string& expect) { return timed(m["type"], m.dump(), expect); }

  json read(const std::string& block, const std::string& handle) {
    const uint64_t xid = next_xid_;
    timed(json{{"type", "ReadRequest"}, {"block_id", block}, {"read_handle", handle}}, "ReadResponse");
    return ctl_->wait_xid(xid)->at("result");
  }
  json global_stats() {
    const uint64_t xid = next_xid_;
    timed(json{{"type", "GlobalStatsRequest"}}, "GlobalStatsResponse");
    return ctl_->wait_xid(xid)->at("stats");
  }

  // The firewall with FromDevice obb1 as its source and ToDevice obb1 as its sink.
  json firewall(bool reversed) {
    json g = json::parse(slurp(opt_.firewall));
    for (auto& b : g["blocks"]) {
      if (b["type"] == "FromDump") {
        b = {{"type", "FromDevice"}, {"name", b["name"]}, {"config", {{"devname", kObiIf}}}};
        if (reversed && opt_.reopen_source) b["config"]["promisc"] = true;
      } else if (b["type"] == "Discard")
        b = {{"type", "ToDevice"}, {"name", b["name"]}, {"config", {{"devname", kObiIf}}}};
      else if (b["type"] == "HeaderClassifier") {
        rules_ = b["config"]["match"].size();
        if (reversed) std::reverse(b["config"]["match"].begin(), b["config"]["match"].end());
      }
    }
    g["type"] = "SetProcessingGraphRequest";
    return g;
  }

  void swaps() {
    const std::string a = firewall(false).dump(), b = firewall(true).dump();
    // The first install opens the devices; it is not one of the measured swaps.
    const double first = timed("SetProcessingGraphRequest", a, "SetProcessingGraphResponse");
    // Room for the whole run: warm-up, swaps with their gaps, drain.
    const size_t capacity = static_cast<size_t>(opt_.pps * (8 + opt_.swaps * (1 + opt_.swap_gap_ms / 1000.0))) + 100000;
    Traffic traffic(opt_.pcap, opt_.pps, capacity);
    traffic.start();
    std::this_thread::sleep_for(500ms);
    std::vector<double> t;
    std::map<std::string, std::vector<double>> parts;  // the OBI's own "timing" of each swap
    for (int i = 0; i < opt_.swaps; ++i) {
      t.push_back(timed("SetProcessingGraphRequest", i % 2 == 0 ? b : a, "SetProcessingGraphResponse"));
      if (auto timing = last_answer_.find("timing"); timing != last_answer_.end() && timing->is_object())
        for (const auto& [k, v] : timing->items())
          if (v.is_number() && k != "live_at") parts[k].push_back(v.get<double>());
      std::this_thread::sleep_for(std::chrono::milliseconds(opt_.swap_gap_ms + 7 * (i % 5)));  // vary the swap's moment
    }
    std::this_thread::sleep_for(200ms);
    traffic.stop_tx();
    std::this_thread::sleep_for(700ms);  // in-flight packets come back; GlobalStats samples every 250 ms
    traffic.stop_rx();
    Traffic::Result r = traffic.result();
    json stats = global_stats();
    const uint64_t in = stats["packets_in"], out = stats["packets_out"], dropped = stats["packets_dropped"];
    const uint64_t ring_drops = read("in", "drops").get<uint64_t>();
    const uint64_t tx_drops = read("out", "drops").get<uint64_t>();
    const bool zero_loss = r.lost == 0 && in == r.sent && in == out + dropped && dropped == r.rule_dropped &&
                           out == r.returned && ring_drops == 0 && tx_drops == 0;
    Line j = figures("SetProcessingGraph", t,
                     "request POST -> SetProcessingGraphResponse at the endpoint; 4560-rule firewall and the "
                     "same rules reversed, alternately, while traffic runs");
    j["rules"] = rules_;
    j["first_install_ms"] = r3(first);
    // The OBI's figures (medians): request received -> every worker runs the new graph, and its parts.
    for (auto& [k, v] : parts) j["obi_" + k] = r3(percentile(v, 0.5));
    j["pps"] = opt_.pps;
    j["sent"] = r.sent;
    j["returned"] = r.returned;
    j["rule_dropped"] = r.rule_dropped;
    j["lost"] = r.lost;
    j["obi_packets_in"] = in;
    j["obi_packets_out"] = out;
    j["obi_packets_dropped"] = dropped;
    j["obi_ring_drops"] = ring_drops;
    j["obi_tx_drops"] = tx_drops;
    j["bench_rx_socket_drops"] = r.rx_socket_drops;
    j["zero_loss"] = zero_loss;
    print(j);
  }

  void round_trips(const std::string& name, const json& m, const std::string& expect) {
    const std::string body = m.dump(), type = m["type"];
    for (int i = 0; i < 20; ++i) timed(type, body, expect);  // warm-up
    std::vector<double> t;
    for (int i = 0; i < opt_.n; ++i) t.push_back(timed(type, body, expect));
    print(figures(name, t, "request POST -> response at the endpoint"));
  }

  void keepalives() {
    constexpr double kInterval = 0.02;
    timed(json{{"type", "SetParametersRequest"}, {"parameters", {{"keepalive_interval", kInterval}}}},
          "SetParametersResponse");
    const size_t from = ctl_->size();
    const int want = opt_.n + 5;
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<int>(want * kInterval * 1000 * 3) + 5000);
    while (static_cast<int>(ctl_->count("KeepAlive")) < want + 2 && Clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    std::vector<obi::control::ControllerEndpoint::Received> ka;
    auto all = ctl_->received();
    for (size_t i = from; i < all.size(); ++i)
      if (all[i].message["type"] == "KeepAlive") ka.push_back(all[i]);
    std::vector<double> t;
    for (size_t i = 3; i < ka.size() && t.size() < static_cast<size_t>(opt_.n); ++i)  // the first use the new interval
      t.push_back(ms(ka[i].arrived - ka[i - 1].answered) - kInterval * 1000);
    timed(json{{"type", "SetParametersRequest"}, {"parameters", {{"keepalive_interval", 10}}}},
          "SetParametersResponse");
    print(figures("KeepAlive", t,
                  "endpoint answers a KeepAlive -> next KeepAlive arrives, minus keepalive_interval (20 ms): the "
                  "OBI's receipt of the answer, its timer and its next POST"));
  }

  void custom_modules() {
    std::string so = slurp(opt_.module);
    constexpr size_t kSize = 22835;                             // 22.3 KiB, the paper's module
    if (so.size() < kSize) so.append(kSize - so.size(), '\0');  // trailing bytes: the loader ignores them
    const json descriptor = json::parse(R"({"name": "SampleCounter", "class": "static", "spec": "extension",
        "description": "Counts packets.", "config": [], "read_handles": [{"name": "count", "type": "integer"}],
        "write_handles": [], "inputs": 1, "outputs": 1})");
    const std::string add = json{
        {"type", "AddCustomModuleRequest"},
        {"module_name", "bench"},
        {"module_content", openbox::base64_encode(so)},
        {"content_type", "application/octet-stream"},
        {"content_transfer_encoding", "base64"},
        {"translation", json::array({descriptor})},
        {"module_version", "1"},
        {"signature", key_.sign("bench", "1", so)},
        {"key_id",
         key_.key_id()}}.dump();
    const std::string remove = json{{"type", "RemoveCustomModuleRequest"}, {"module_name", "bench"}}.dump();
    std::vector<double> ta, tr;
    for (int i = 0; i < opt_.module_n + 3; ++i) {
      double a = timed("AddCustomModuleRequest", add, "AddCustomModuleResponse");
      double r = timed("RemoveCustomModuleRequest", remove, "RemoveCustomModuleResponse");
      if (i >= 3) {
        ta.push_back(a);
        tr.push_back(r);
      }  // first rounds: warm-up
    }
    Line j = figures("AddCustomModule", ta, "request POST -> AddCustomModuleResponse at the endpoint");
    j["module_bytes"] = so.size();
    print(j);
    print(figures("RemoveCustomModule", tr, "request POST -> RemoveCustomModuleResponse at the endpoint"));
  }

  Options opt_;
  const ModuleKey& key_;
  obi::control::ControllerEndpoint* ctl_ = nullptr;
  std::unique_ptr<httplib::Client> cli_;
  uint64_t next_xid_ = 1000;
  size_t rules_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
#ifdef OBI_SAMPLE_MODULE
  o.module = OBI_SAMPLE_MODULE;
#endif
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--obi") o.obi = value();
    else if (a == "--firewall") o.firewall = value();
    else if (a == "--module") o.module = value();
    else if (a == "--pcap") o.pcap = value();
    else if (a == "--swaps") o.swaps = std::stoi(value());
    else if (a == "--swap-gap-ms") o.swap_gap_ms = std::stoi(value());
    else if (a == "--n") o.n = std::stoi(value());
    else if (a == "--pps") o.pps = std::stoi(value());
    else if (a == "--workers") o.workers = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--no-netns") o.netns = false;
    else if (a == "--reopen-source") o.reopen_source = true;
    else if (a == "--pki") o.pki = value();
    else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: control_bench --obi OBI --firewall firewall.json [--module M.so] [--pcap P] [--swaps N] "
          "[--swap-gap-ms G] [--n N] [--pps R] [--workers N] [--no-netns] [--reopen-source] [--pki DIR]\n");
      return 0;
    } else die("unknown argument " + a);
  }
  if (o.firewall.empty()) die("--firewall is required (obi/bench/make_graphs.py writes firewall.json)");
  if (!fs::exists(o.obi)) die("no OBI executable at " + o.obi);
  if (o.pps <= 0 || o.swaps <= 0 || o.n <= 0) die("--pps, --swaps and --n must be positive");
  if (o.swap_gap_ms < 0) die("--swap-gap-ms must not be negative");
  if (!o.pki.empty()) g_transport = "tls";
  ::signal(SIGPIPE, SIG_IGN);
  if (o.netns) enter_netns();  // before any thread: unshare applies to the calling thread
  ModuleKey key;
  o.module_trust = key.trust_file();
  return Bench(o, key).run();
}
