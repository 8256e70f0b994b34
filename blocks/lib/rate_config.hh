// Rate arguments of the rate classifiers: bandwidths such as "384 kbps", "10 Mbps",
// "1500 Bps", "2.5 MB/s" (k/K = 1e3, M = 1e6, G = 1e9; "bps"/"b/s" bits, "Bps"/"B/s"
// bytes; a bare number is bytes per second) and plain packet rates.
#pragma once

#include <string>

namespace obi::blocks {

// Bytes per second; false (with `why`) when the text is not a bandwidth.
bool parse_bandwidth(const std::string& text, double& bytes_per_s, std::string& why);

}  // namespace obi::blocks
