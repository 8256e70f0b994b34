#include "PpsShaper.hh"

#include "common/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(PpsShaper, PpsShaperElement);

}  // namespace obi
