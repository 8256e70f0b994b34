#include "Queue.hh"

#include "lib/block_spec.hh"

namespace obi {

OBI_REGISTER_BLOCK(Queue, QueueElement);

}  // namespace obi
