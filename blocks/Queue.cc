#include "Queue.hh"

namespace obi {

OBI_REGISTER_ELEMENT(Queue, QueueElement);

}  // namespace obi
