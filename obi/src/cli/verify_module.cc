// obi verify-module: checks a custom module's signature file exactly as an OBI with the
// same trust list would check its AddCustomModuleRequest (control/module_signature.hh).
//
//   obi verify-module --module-trust build/pki/module-signing.pub --sig sampler.sig sampler.so
//
// The signature file is what `./openbox sign-module -o` writes: a JSON object with
// module_name, module_version, key_id and signature. --name / --version check the module
// under another name or version than the file states (as the controller would send it).
// Exit 0: accepted; 1: refused (the reason on stderr); 2: bad arguments or unreadable files.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/args.hh"
#include "cli/commands.hh"

#if __has_include("control/module_signature.hh")
#include "control/module_signature.hh"
#define OBI_HAVE_CONTROL 1
#endif

namespace obi::cli {
namespace {

constexpr std::size_t kMaxSigFileBytes = 64 * 1024;
constexpr std::size_t kMaxModuleBytes = std::size_t{4096} << 20;

}  // namespace

int verify_module(const std::vector<std::string>& argv) {
  // MODULE.so is the last argument, the options come before it.
  if (argv.empty() || argv.back().rfind("--", 0) == 0)
    throw UsageError(
        "usage: obi verify-module --module-trust FILE|DIR --sig MODULE.sig [--name N] [--version V] MODULE.so");
  Args args(std::vector<std::string>(argv.begin(), argv.end() - 1), {"module-trust", "sig", "name", "version"}, {});
#ifdef OBI_HAVE_CONTROL
  const std::string module_path = argv.back();
  const std::string sig_path = args.required("sig");
  control::ModuleTrust trust;
  try {
    trust = control::ModuleTrust::load(args.required("module-trust"));
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--module-trust ") + e.what());
  }
  nlohmann::json sig;
  try {
    sig = nlohmann::json::parse(read_file(sig_path, kMaxSigFileBytes, "signature file"));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(sig_path + ": not a JSON signature file: " + e.what());
  }
  if (!sig.is_object()) throw UsageError(sig_path + ": not a JSON object");
  auto field = [&](const char* k) -> std::optional<std::string> {
    auto it = sig.find(k);
    if (it == sig.end()) return std::nullopt;
    if (!it->is_string()) throw UsageError(sig_path + ": \"" + k + "\" is not a string");
    return it->get<std::string>();
  };
  const std::string name = args.has("name") ? args.get("name") : field("module_name").value_or("");
  if (name.empty()) throw UsageError(sig_path + ": no module_name (give --name)");
  control::ModuleSignature s{
      args.has("version") ? std::optional<std::string>(args.get("version")) : field("module_version"),
      field("signature"), field("key_id")};
  const std::string so = read_file(module_path, kMaxModuleBytes, "module");
  trust.verify(name, so, s);  // ProtocolError: main prints it, exit 1
  std::printf("%s: good signature by key %s for module \"%s\" version \"%s\"\n", module_path.c_str(), s.key_id->c_str(),
              name.c_str(), s.version.value_or("").c_str());
  return 0;
#else
  std::fprintf(stderr, "obi: this build has no control plane (src/control)\n");
  return 1;
#endif
}

}  // namespace obi::cli
