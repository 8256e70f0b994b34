#include "Queue.hh"

#include "common/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(Queue, QueueElement);

}  // namespace obi
