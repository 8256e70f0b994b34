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

namespace obi::control {

class CustomModules {
 public:
  CustomModules() = default;
  ~CustomModules();
  CustomModules(const CustomModules&) = delete;
  CustomModules& operator=(const CustomModules&) = delete;

  void add(const std::string& name, const std::string& shared_object, const nlohmann::json& translation);
  void remove(const std::string& name, const nlohmann::json& running_graph);
  bool has(const std::string& name) const { return modules_.count(name) != 0; }
  std::vector<std::string> names() const;
  std::vector<std::string> block_types(const std::string& name) const;

 private:
  struct Module {
    std::string path;
    void* handle = nullptr;
    std::vector<std::string> registered;     // factories the module added
    std::vector<std::string> descriptors;    // catalogue entries it added
  };
  const std::string& dir();

  std::string dir_;
  unsigned counter_ = 0;
  std::map<std::string, Module> modules_;
};

}  // namespace obi::control
