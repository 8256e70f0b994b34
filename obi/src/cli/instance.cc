// obi without a subcommand: an OBI that connects to a controller (the control plane).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/args.hh"
#include "cli/commands.hh"
#include "engine/element.hh"

#if __has_include("control/instance.hh")
#include "control/instance.hh"
#include "control/tls.hh"
#define OBI_HAVE_CONTROL 1
#endif

namespace obi::cli {

#ifdef OBI_HAVE_CONTROL
namespace {

// --pki DIR, --cert/--key/--ca (each overrides the file --pki names) or --insecure (null:
// plain HTTP); none of them is a usage error. A file that is missing, unreadable or does
// not fit is a usage error.
std::shared_ptr<const control::Tls> tls_arg(const Args& args, uint64_t dpid, const std::string& controller) {
  const bool any_file = args.has("cert") || args.has("key") || args.has("ca");
  if (args.has("insecure")) {
    if (any_file || args.has("pki")) throw UsageError("--insecure cannot be combined with --pki/--cert/--key/--ca");
    if (controller.rfind("https://", 0) == 0)
      throw UsageError("--insecure needs an http:// controller URL, got '" + controller + "'");
    return nullptr;
  }
  if (!any_file && !args.has("pki")) {
    // plain HTTP only when asked for: a forgotten flag must not open the control channel
    if (controller.rfind("https://", 0) == 0)
      throw UsageError(
          "--controller " + controller +
          " needs certificates: --pki DIR or --cert FILE --key FILE --ca FILE (or --insecure with http://)");
    throw UsageError(
        "no certificates given: --pki DIR or --cert FILE --key FILE --ca FILE for mutual TLS, or "
        "--insecure for plain HTTP (anyone who reaches the OBI's port can then drive it)");
  }
  if (controller.rfind("http://", 0) == 0)
    throw UsageError("--controller " + controller + " is plain HTTP while TLS is on: use https:// (or --insecure)");
  control::TlsFiles files;
  if (args.has("pki")) {
    const std::string dir = args.get("pki");
    const std::string name = dir + "/obi-" + std::to_string(dpid);
    files = {name + ".crt", name + ".key", dir + "/ca.crt"};
  } else if (!(args.has("cert") && args.has("key") && args.has("ca"))) {
    throw UsageError("--cert, --key and --ca go together (or --pki DIR)");
  }
  files.cert = args.get("cert", files.cert);
  files.key = args.get("key", files.key);
  files.ca = args.get("ca", files.ca);
  try {
    return std::make_shared<const control::Tls>(files);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace
#endif

int instance(const std::vector<std::string>& argv) {
  Args args(argv,
            {"dpid",
             "listen",
             "controller",
             "workers",
             "dpdk",
             "device-map",
             "max-body-mib",
             "http-threads",
             "http-timeout-ms",
             "http-keepalive-ms",
             "cert",
             "key",
             "ca",
             "pki",
             "max-blocks",
             "max-depth",
             "max-rules",
             "max-patterns",
             "max-pattern-kib",
             "graph-budget-s",
             "send-queue-mib",
             "module-trust",
             "without-blocks"},
            {"quiet", "insecure", "allow-unsigned-modules", "busy-poll"});
#ifdef OBI_HAVE_CONTROL
  InstanceOptions o;
  if (args.has("dpid")) {
    std::string v = args.get("dpid");
    char* end = nullptr;
    unsigned long long x = std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || *end || v[0] == '-') throw UsageError("--dpid must be a non-negative integer, got '" + v + "'");
    o.dpid = x;
  }
  o.listen = args.get("listen", o.listen);
  if (o.listen.find(':') == std::string::npos) throw UsageError("--listen must be HOST:PORT, got '" + o.listen + "'");
  o.tls = tls_arg(args, o.dpid, args.get("controller"));
  o.controller = args.get("controller", o.tls ? "https://127.0.0.1:3637" : o.controller);
  o.workers = args.get_unsigned("workers", 0, 1, 1024);
  o.eal_args = split_words(args.get("dpdk"));
  o.busy_poll = args.has("busy-poll");
  o.devices = device_map_arg(args);
  o.max_body_bytes = std::size_t{args.get_unsigned("max-body-mib", 64, 1, 4096)} << 20;
  o.http_threads = args.get_unsigned("http-threads", o.http_threads, 1, 1024);
  o.http_timeout_ms = args.get_unsigned("http-timeout-ms", o.http_timeout_ms, 100, 600000);
  o.http_keepalive_ms = args.get_unsigned("http-keepalive-ms", o.http_keepalive_ms, 1000, 600000);
  o.limits.max_blocks = args.get_unsigned("max-blocks", o.limits.max_blocks, 2, 10000000);
  o.limits.max_depth = args.get_unsigned("max-depth", o.limits.max_depth, 2, 10000000);
  o.limits.max_rules = args.get_unsigned("max-rules", o.limits.max_rules, 1, 10000000);
  o.limits.max_patterns = args.get_unsigned("max-patterns", o.limits.max_patterns, 1, 10000000);
  o.limits.max_pattern_bytes =
      std::size_t{args.get_unsigned("max-pattern-kib", o.limits.max_pattern_bytes >> 10, 1, 1u << 22)} << 10;
  o.graph_budget_ms =
      static_cast<unsigned>(args.get_double("graph-budget-s", o.graph_budget_ms / 1000.0, 0.1, 3600) * 1000);
  o.send_queue_bytes = std::size_t{args.get_unsigned("send-queue-mib", o.send_queue_bytes >> 20, 1, 4096)} << 20;
  o.quiet = args.has("quiet");
  o.module_trust = args.get("module-trust");
  if (args.has("module-trust") && o.module_trust.empty()) throw UsageError("--module-trust needs a FILE or DIR");
  // Block types this OBI does not run: left out of its Hello, refused in its graphs.
  if (args.has("without-blocks")) {
    std::string list = args.get("without-blocks");
    for (char& c : list)
      if (c == ',') c = ' ';
    const std::vector<std::string> types = split_words(list);
    if (types.empty()) throw UsageError("--without-blocks needs block types, e.g. HtmlNormalizer,JsNormalizer");
    for (const std::string& t : types)
      if (!unregister_element(t)) throw UsageError("--without-blocks: '" + t + "' is not a block type this OBI runs");
  }
  o.allow_unsigned_modules = args.has("allow-unsigned-modules");
  if (o.allow_unsigned_modules)
    std::fprintf(stderr,
                 "obi: WARN: --allow-unsigned-modules: custom modules without a valid signature are "
                 "loaded and run with this OBI's rights; use it for development only\n");
  return run_instance(o);
#else
  std::fprintf(stderr, "obi: this build has no control plane (src/control); use 'obi run --graph G.json'\n");
  return 1;
#endif
}

}  // namespace obi::cli
