// obi: the OpenBox Instance executable.
//
//   obi [--dpid N] [--listen H:P] [--controller URL] [--pki DIR | --cert F --key F --ca F | --insecure] ...
//   obi run --graph G.json [--workers N] [--dpdk 'EAL ARGS']
//   obi bench --graph G.json --pcap P.pcap [--seconds S] [--workers N] [--json]
//   obi export-click --graph G.json
//   obi check --graph G.json [--json]
//   obi verify-module --module-trust FILE|DIR --sig MODULE.sig [--name N] [--version V] MODULE.so

#ifdef OBI_MIMALLOC
#include <mimalloc.h>
#endif

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/args.hh"
#include "cli/commands.hh"
#include "openbox/error.hh"

namespace {

const char* kUsage =
    "usage: obi [--dpid N] [--listen HOST:PORT] [--controller URL] [--workers N] [--dpdk 'EAL ARGS'] [--device-map M]\n"
    "           [--busy-poll] [--pki DIR | --cert FILE --key FILE --ca FILE | --insecure]\n"
    "           [limits below]\n"
    "       obi run --graph G.json [--workers N] [--dpdk 'EAL ARGS'] [--device-map M] [--busy-poll]\n"
    "       obi bench --graph G.json --pcap P.pcap [--seconds S] [--workers N] [--json]\n"
    "       obi export-click --graph G.json\n"
    "       obi check --graph G.json [--json]\n"
    "       obi verify-module --module-trust FILE|DIR --sig MODULE.sig [--name N] [--version V] MODULE.so\n"
    "Without a subcommand, runs an OBI that connects to a controller. 'obi <command> --help' for details.\n"
    "  --busy-poll           idle workers never sleep: lowest latency, a whole core per worker (by\n"
    "                        default an idle worker sleeps 50 us per empty round, 1 ms after 1024)\n"
    "Transport security (mutual TLS 1.2+ both ways):\n"
    "  --pki DIR             DIR/obi-<dpid>.crt, DIR/obi-<dpid>.key and DIR/ca.crt ('./openbox pki' makes them)\n"
    "  --cert F --key F --ca F  the OBI's certificate and key (PEM) and the CA peers must chain to;\n"
    "                        each overrides the file --pki names\n"
    "  With TLS the REST server requires a client certificate from the CA and serves only CN\n"
    "  openbox-controller (others: 403 FORBIDDEN/NOT_PERMITTED); messages to the controller\n"
    "  (--controller https://HOST:PORT, the default https://127.0.0.1:3637) present the OBI's\n"
    "  certificate and accept only a controller certificate (CN openbox-controller) from the CA.\n"
    "  --insecure            plain HTTP both ways (http:// controller URL), with a warning; also\n"
    "                        what an OBI without certificates does with an http:// URL.\n"
    "  A missing or unreadable file, a key not matching its certificate, a certificate not\n"
    "  chaining to the CA, or an https:// URL without certificates: one line, exit 2.\n"
    "Limits of the OBI's REST server (requests over a limit get an Error, never reach the graph):\n"
    "  --max-body-mib N      largest message body, MiB (default 64; larger: an Error, unread)\n"
    "  --http-threads N      connections served at once (default 32; more wait for a thread)\n"
    "  --http-timeout-ms T   per read/write of a request and its answer (default 5000)\n"
    "  --http-keepalive-ms T wait for the next request on an idle connection, which holds a\n"
    "                        thread meanwhile (default 15000; keep it above the controller's 12 s)\n"
    "Custom modules (AddCustomModuleRequest; refused unless one of these is given):\n"
    "  --module-trust FILE|DIR   Ed25519 public keys (PEM) whose signatures are accepted\n"
    "  --allow-unsigned-modules  development only: also load modules without a signature (WARN)\n"
    "  fixed: JSON nesting depth 64, header-match bracket depth 32; the listen address is never\n"
    "  shared (a second OBI on the same --listen fails to start)\n"
    "Blocks:\n"
    "  --without-blocks T,T  block types this OBI does not run: its Hello leaves them out and a\n"
    "                        graph using one is refused (UNSUPPORTED_BLOCK)\n"
    "Limits of a graph (over one: an Error naming it; the running graph stays):\n"
    "  --max-blocks N        blocks per graph (default 100000)\n"
    "  --max-depth N         blocks on the graph's longest path (default 50000)\n"
    "  --max-rules N         rules of one classifier block (default 100000)\n"
    "  --max-patterns N      payload patterns of one block (default 50000)\n"
    "  --max-pattern-kib N   payload pattern bytes of a graph, KiB (default 16384)\n"
    "  --graph-budget-s S    compile time of a graph (default 50, below the controller's 60 s);\n"
    "                        reads and stats are answered while a graph compiles\n"
    "Messages to the controller:\n"
    "  --send-queue-mib N    queued for a controller that does not answer, MiB (default 64, at\n"
    "                        most 4096 messages); over it the oldest alerts and logs are dropped\n"
    "                        (GlobalStats events_unsent)\n";

}  // namespace

int main(int argc, char** argv) {
#ifdef OBI_MIMALLOC
  // A graph is parsed and built as many small allocations (the JSON tree, the blocks, the
  // rule tables) and freed when the next one replaces it. Freed memory stays in the
  // process, so the next graph does not fault in fresh pages from the kernel while the
  // workers run; what one swap needed at its peak is kept, nothing more. (mimalloc would
  // hand freed pages back after a fraction of a second: a settled swap of a 9,000-block
  // graph then compiled in 66 ms instead of 48-54.)
  mi_option_disable(mi_option_allow_decommit);
  mi_option_disable(mi_option_page_reset);
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string cmd = args.empty() || args[0].rfind("--", 0) == 0 ? "" : args[0];
  if (!cmd.empty()) args.erase(args.begin());
  try {
    if (cmd == "run") return obi::cli::run_graph(args);
    if (cmd == "bench") return obi::cli::bench(args);
    if (cmd == "export-click") return obi::cli::export_click(args);
    if (cmd == "check") return obi::cli::check(args);
    if (cmd == "verify-module") return obi::cli::verify_module(args);
    if (cmd == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!cmd.empty())
      throw obi::cli::UsageError("unknown command '" + cmd + "' (run, bench, export-click, check, verify-module)");
    for (const auto& a : args)
      if (a == "--help" || a == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
    return obi::cli::instance(args);
  } catch (const obi::cli::UsageError& e) {
    std::fprintf(stderr, "obi%s%s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(), e.what());
    return 2;
  } catch (const openbox::ProtocolError& e) {
    std::fprintf(stderr, "obi%s%s: %s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(),
                 std::string(openbox::to_string(e.subtype())).c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "obi%s%s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(), e.what());
    return 1;
  }
}
