// A custom module whose constructor leaves a marker file at $OBI_TEST_MODULE_MARKER when the
// shared object is loaded (dlopen runs it before any check the loader can make). Tests send
// it signed and unsigned: the marker appears only when the module was accepted and loaded.
#include <cstdlib>
#include <fstream>

#include "engine/element.hh"

namespace {

__attribute__((constructor)) void leave_marker() {
  if (const char* path = std::getenv("OBI_TEST_MODULE_MARKER")) std::ofstream(path) << "loaded\n";
}

}  // namespace

OBI_MODULE_DECLARE_ABI()

extern "C" int obi_module_register() { return 0; }
