// Loading and unloading of custom modules: check the module's signature, write the shared
// object to a private directory, dlopen it, run its registration function, extend the catalogue.
#include "control/custom_modules.hh"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string_view>

#include "catalogue/catalogue.hh"
#include "engine/element.hh"
#include "openbox/error.hh"

namespace obi::control {
namespace {

using json = nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

std::vector<json> descriptors_of(const json& translation) {
  if (translation.is_null()) return {};
  if (translation.is_array()) return translation.get<std::vector<json>>();
  if (translation.is_object() && translation.contains("blocks") && translation["blocks"].is_array())
    return translation["blocks"].get<std::vector<json>>();
  if (translation.is_object()) return {translation};
  throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED,
                      "translation must be a block descriptor, a list of them or {\"blocks\": [...]}");
}

std::string safe_file_name(const std::string& name) {
  std::string out;
  for (char c : name) out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_');
  return out.empty() ? "module" : out.substr(0, 64);
}

}  // namespace

ModulePolicy ModulePolicy::load(const std::string& trust_path, bool allow_unsigned) {
  ModulePolicy p;
  if (!trust_path.empty()) p.trust = ModuleTrust::load(trust_path);
  p.allow_unsigned = allow_unsigned;
  return p;
}

CustomModules::~CustomModules() {
  // Handles stay open: elements made by a module may outlive this object in a runtime
  // that is torn down later. Only the files go.
  for (auto& [name, m] : modules_) ::unlink(m.path.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

const std::string& CustomModules::dir() {
  if (dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/obi-modules-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
      throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED, "cannot create a private module directory");
    dir_ = buf.data();
  }
  return dir_;
}

void CustomModules::check_signature(const std::string& name, const std::string& so, const ModuleSignature& sig) const {
  if (!policy_.trust.empty()) {
    if (!sig.signature && policy_.allow_unsigned) {
      std::fprintf(stderr, "obi: WARN: loading unsigned custom module \"%s\" (--allow-unsigned-modules)\n",
                   name.c_str());
      return;
    }
    policy_.trust.verify(name, so, sig);  // throws ADD_MODULE_FAILED with the reason
    return;
  }
  if (policy_.allow_unsigned) {
    std::fprintf(stderr,
                 "obi: WARN: loading custom module \"%s\" without checking its signature "
                 "(--allow-unsigned-modules, no --module-trust)\n",
                 name.c_str());
    return;
  }
  throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED,
                      "custom module \"" + name +
                          "\" refused: this OBI has no module trust list; start it with "
                          "--module-trust FILE|DIR (the controller's module signing public key, e.g. "
                          "build/pki/module-signing.pub) to accept signed modules");
}

void CustomModules::add(const std::string& name, const std::string& so, const json& translation,
                        const ModuleSignature& signature) {
  if (name.empty()) throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "module_name is empty");
  if (has(name))
    throw ProtocolError(ErrorSubtype::ILLEGAL_STATE, "custom module \"" + name + "\" is already installed");
  // Before anything of the module is written or loaded: dlopen() runs its constructors.
  check_signature(name, so, signature);
  std::vector<BlockDescriptor> descs;
  for (const json& d : descriptors_of(translation)) {
    try {
      descs.push_back(Catalogue::parse(d));
    } catch (const ProtocolError& e) {
      throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED, "custom module \"" + name + "\": " + e.what());
    }
  }
  if (so.size() < 4 || so.compare(0, 4,
                                  "\x7f"
                                  "ELF") != 0)
    throw ProtocolError(ErrorSubtype::BAD_FILE, "custom module \"" + name + "\" is not an ELF shared object");

  Module m;
  m.path = dir() + "/" + safe_file_name(name) + "-" + std::to_string(++counter_) + ".so";
  {
    std::ofstream out(m.path, std::ios::binary | std::ios::trunc);
    out.write(so.data(), static_cast<std::streamsize>(so.size()));
    if (!out) throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED, "cannot write " + m.path);
  }
  ::chmod(m.path.c_str(), 0700);

  const std::vector<std::string> before_list = registered_elements();
  const std::set<std::string> before(before_list.begin(), before_list.end());
  m.handle = ::dlopen(m.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m.handle) {
    std::string why = ::dlerror();
    ::unlink(m.path.c_str());
    throw ProtocolError(ErrorSubtype::BAD_FILE, "custom module \"" + name + "\" cannot be loaded: " + why);
  }
  auto undo = [&](const std::string& why) {
    for (const auto& t : registered_elements())
      if (!before.count(t)) register_element(t, nullptr);
    ::dlclose(m.handle);
    ::unlink(m.path.c_str());
    throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED, "custom module \"" + name + "\": " + why);
  };
  // Checked before any of the module's code runs: its static initialisers may already have
  // registered factories (undone above), but nothing built from mismatched headers is called.
  auto abi = reinterpret_cast<const char* (*)()>(::dlsym(m.handle, "obi_module_abi"));
  if (!abi) undo("no exported obi_module_abi function (declare OBI_MODULE_DECLARE_ABI() in the module)");
  if (std::string_view(abi()) != OBI_MODULE_ABI)
    undo(std::string("built against engine ABI ") + abi() + ", this OBI is " + OBI_MODULE_ABI +
         "; rebuild the module with this OBI's headers and compiler");
  auto reg = reinterpret_cast<int (*)()>(::dlsym(m.handle, "obi_module_register"));
  if (!reg) undo("no exported obi_module_register function");
  int rc = 0;
  try {
    rc = reg();
  } catch (const std::exception& e) {
    undo(std::string("registration threw: ") + e.what());
  }
  if (rc != 0) undo("obi_module_register returned " + std::to_string(rc));
  for (const auto& t : registered_elements())
    if (!before.count(t) && find_element(t)) m.registered.push_back(t);
  for (const auto& d : descs)
    if (!find_element(d.name)) undo("block \"" + d.name + "\" has a descriptor but no implementation");

  for (auto& d : descs) {
    m.descriptors.push_back(d.name);
    d.obi = true;  // its implementation was just registered (checked above)
    Catalogue::builtin().add(std::move(d));
  }
  modules_.emplace(name, std::move(m));
}

void CustomModules::remove(const std::string& name, const json& running_graph) {
  auto it = modules_.find(name);
  if (it == modules_.end())
    throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "no custom module named \"" + name + "\"");
  const std::vector<std::string> types = block_types(name);
  if (running_graph.is_object() && running_graph.contains("blocks") && running_graph["blocks"].is_array()) {
    for (const auto& b : running_graph["blocks"]) {
      std::string t = b.value("type", "");
      if (std::find(types.begin(), types.end(), t) != types.end())
        throw ProtocolError(ErrorSubtype::ILLEGAL_STATE, "custom module \"" + name + "\" is in use by block \"" +
                                                             b.value("name", "") + "\" (" + t + ")");
    }
  }
  Module& m = it->second;
  if (auto unreg = reinterpret_cast<void (*)()>(::dlsym(m.handle, "obi_module_unregister"))) unreg();
  for (const auto& t : m.registered) register_element(t, nullptr);
  for (const auto& d : m.descriptors) Catalogue::builtin().remove(d);
  // The handle is deliberately not closed: nothing may call into it any more, and keeping
  // the code mapped protects against a late reference (a retired graph being freed).
  ::unlink(m.path.c_str());
  modules_.erase(it);
}

std::vector<std::string> CustomModules::names() const {
  std::vector<std::string> out;
  for (const auto& [n, m] : modules_) out.push_back(n);
  return out;
}

std::vector<std::string> CustomModules::block_types(const std::string& name) const {
  auto it = modules_.find(name);
  if (it == modules_.end()) return {};
  std::vector<std::string> out = it->second.registered;
  for (const auto& d : it->second.descriptors)
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

}  // namespace obi::control
