#include "BpsShaper.hh"

namespace obi {

OBI_REGISTER_ELEMENT(BpsShaper, BpsShaperElement);

}  // namespace obi
