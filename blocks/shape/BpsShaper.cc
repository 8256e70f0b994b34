#include "BpsShaper.hh"

#include "lib/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(BpsShaper, BpsShaperElement);

}  // namespace obi
