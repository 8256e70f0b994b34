// A custom module that claims to be built for another engine ABI (as one compiled from older
// engine headers would): the loader must refuse it before calling any of its code.
#include "engine/element.hh"

extern "C" __attribute__((visibility("default"))) const char* obi_module_abi() { return "0000000000000000"; }

extern "C" int obi_module_register() { return 0; }
