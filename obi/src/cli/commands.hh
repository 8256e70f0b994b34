// The obi subcommands. Each takes the arguments after its name and returns the exit code;
// bad arguments throw UsageError.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace obi::cli {

int run_graph(const std::vector<std::string>& args);      // obi run
int bench(const std::vector<std::string>& args);          // obi bench
int export_click(const std::vector<std::string>& args);   // obi export-click
int check(const std::vector<std::string>& args);          // obi check
int instance(const std::vector<std::string>& args);       // obi [--dpid ...]
int verify_module(const std::vector<std::string>& args);  // obi verify-module

// Reads and parses a graph file; throws UsageError naming the file on failure.
nlohmann::json load_graph_file(const std::string& path);

// The whole of a file; throws UsageError ("WHAT PATH: cannot be read" / ": too large").
std::string read_file(const std::string& path, std::size_t limit, const char* what);

}  // namespace obi::cli
