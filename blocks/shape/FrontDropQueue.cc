#include "FrontDropQueue.hh"

#include "lib/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(FrontDropQueue, FrontDropQueueElement);

}  // namespace obi
