// obi without a subcommand: an OBI that connects to a controller (the control plane).
#include <cstdio>
#include <cstdlib>

#include "cli/args.hh"
#include "cli/commands.hh"

#if __has_include("control/instance.hh")
#include "control/instance.hh"
#define OBI_HAVE_CONTROL 1
#endif

namespace obi::cli {

int instance(const std::vector<std::string>& argv) {
  Args args(argv, {"dpid", "listen", "controller", "workers", "dpdk", "device-map",
                   "max-body-mib", "http-threads", "http-timeout-ms"}, {"quiet"});
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
  o.controller = args.get("controller", o.controller);
  o.workers = args.get_unsigned("workers", 0, 1, 1024);
  o.eal_args = split_words(args.get("dpdk"));
  o.devices = device_map_arg(args);
  o.max_body_bytes = std::size_t{args.get_unsigned("max-body-mib", 64, 1, 4096)} << 20;
  o.http_threads = args.get_unsigned("http-threads", o.http_threads, 1, 1024);
  o.http_timeout_ms = args.get_unsigned("http-timeout-ms", o.http_timeout_ms, 100, 600000);
  o.quiet = args.has("quiet");
  return run_instance(o);
#else
  std::fprintf(stderr, "obi: this build has no control plane (src/control); use 'obi run --graph G.json'\n");
  return 1;
#endif
}

}  // namespace obi::cli
