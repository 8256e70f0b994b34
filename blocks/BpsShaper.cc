#include "BpsShaper.hh"

#include "common/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(BpsShaper, BpsShaperElement);

}  // namespace obi
