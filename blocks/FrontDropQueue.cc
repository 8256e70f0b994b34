#include "FrontDropQueue.hh"

#include "common/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(FrontDropQueue, FrontDropQueueElement);

}  // namespace obi
