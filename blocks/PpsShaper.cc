#include "PpsShaper.hh"

namespace obi {

OBI_REGISTER_ELEMENT(PpsShaper, PpsShaperElement);

}  // namespace obi
