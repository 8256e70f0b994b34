// GraphLimits: the hard caps on a processing graph, which comes from the network (a
// SetProcessingGraphRequest) or a file. compile_graph refuses a graph over a cap with
// openbox::ProtocolError naming the cap, its value and what exceeds it: BAD_GRAPH for the
// graph's size and depth, BAD_BLOCK for a classifier's rules, BAD_PAYLOAD_MATCH for
// payload patterns. The defaults pass every shipped rule set (fw1-10000: 9,990 rules;
// snort-http: about 3,400 patterns) with room to spare.
#pragma once

#include <cstddef>

namespace obi {

struct GraphLimits {
  std::size_t max_blocks = 100000;                        // blocks in a graph
  std::size_t max_depth = 50000;                          // blocks on the longest path
  std::size_t max_rules = 100000;                         // rules (outputs) of one classifier
  std::size_t max_patterns = 50000;                       // payload patterns of one block
  std::size_t max_pattern_bytes = std::size_t{16} << 20;  // payload pattern bytes of a graph
};

}  // namespace obi
