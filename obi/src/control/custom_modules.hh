// Custom modules (AddCustomModuleRequest / RemoveCustomModuleRequest, spec 4.2.11-12).
//
// A module is a shared object built against the OBI headers. It exports
//   extern "C" int obi_module_register();   // registers its element factories with
//                                           // obi::register_element; returns 0 on success
// and states the engine ABI it was built for with OBI_MODULE_DECLARE_ABI() (engine/element.hh);
// a module built from other engine headers or by another compiler is refused before any of
// its code is called (ADD_MODULE_FAILED naming both fingerprints).
// (factories registered by static initialisers with OBI_REGISTER_ELEMENT count too), and
// the request's `translation` carries its block descriptors (one descriptor object, a list
// of them, or {"blocks": [...]}) in the blocks/catalogue format; they are added to
// Catalogue::builtin() so graphs may use the new block types.
//
// Signatures (control/module_signature.hh) are checked before the shared object is written
// or dlopen()ed, since loading runs its constructors: with a trust list (obi --module-trust)
// a module must carry a valid Ed25519 signature of a trusted key; without one, custom
// modules are refused altogether unless the policy allows unsigned modules (obi
// --allow-unsigned-modules, for development). Every refusal is ADD_MODULE_FAILED with the
// reason, and nothing of the module is written, loaded or registered.
//
// Errors: a module name already installed -> ILLEGAL_STATE; not a loadable shared object ->
// BAD_FILE; no registration function, registration failure or a bad/unimplemented
// descriptor -> ADD_MODULE_FAILED. remove() refuses with ILLEGAL_STATE while the running
// graph uses one of the module's block types. The OBI binary must export its symbols
// (-rdynamic) so modules resolve obi::register_element and the Element base class.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/module_signature.hh"

namespace obi::control {

// What add() accepts (obi --module-trust FILE|DIR, --allow-unsigned-modules).
struct ModulePolicy {
  ModuleTrust trust;            // empty: no trust list configured
  bool allow_unsigned = false;  // load modules without a signature (or without a trust list to check one)

  // The trust list read from `trust_path` (a PEM file or directory; empty: none). Throws
  // std::runtime_error naming the file when it cannot be used.
  static ModulePolicy load(const std::string& trust_path, bool allow_unsigned);
};

class CustomModules {
 public:
  explicit CustomModules(ModulePolicy policy = {}) : policy_(std::move(policy)) {}
  ~CustomModules();
  CustomModules(const CustomModules&) = delete;
  CustomModules& operator=(const CustomModules&) = delete;

  void add(const std::string& name, const std::string& shared_object, const nlohmann::json& translation,
           const ModuleSignature& signature = {});
  void remove(const std::string& name, const nlohmann::json& running_graph);
  bool has(const std::string& name) const { return modules_.count(name) != 0; }
  std::vector<std::string> names() const;
  std::vector<std::string> block_types(const std::string& name) const;

 private:
  struct Module {
    std::string path;
    void* handle = nullptr;
    std::vector<std::string> registered;   // factories the module added
    std::vector<std::string> descriptors;  // catalogue entries it added
  };
  const std::string& dir();
  void check_signature(const std::string& name, const std::string& shared_object, const ModuleSignature& sig) const;

  ModulePolicy policy_;
  std::string dir_;
  unsigned counter_ = 0;
  std::map<std::string, Module> modules_;
};

}  // namespace obi::control
