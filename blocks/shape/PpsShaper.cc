#include "PpsShaper.hh"

#include "lib/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(PpsShaper, PpsShaperElement);

}  // namespace obi
