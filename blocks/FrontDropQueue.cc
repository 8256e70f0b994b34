#include "FrontDropQueue.hh"

namespace obi {

OBI_REGISTER_ELEMENT(FrontDropQueue, FrontDropQueueElement);

}  // namespace obi
