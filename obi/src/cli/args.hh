// Command-line parsing for the obi subcommands: "--name value", "--name=value" and flags.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace obi::cli {

// Thrown for a bad command line; main prints "obi <cmd>: <message>" and exits with 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `with_value`: options that take a value; `flags`: options that do not.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& with_value,
       const std::set<std::string>& flags);
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  std::string required(const std::string& name) const;
  unsigned get_unsigned(const std::string& name, unsigned fallback, unsigned min, unsigned max) const;
  double get_double(const std::string& name, double fallback, double min, double max) const;

 private:
  std::map<std::string, std::string> values_;
};

// --device-map NAME=TARGET,... (see obi::DeviceMap); empty when absent.
std::map<std::string, std::string> device_map_arg(const Args& args);

// Splits "--no-huge -m 512 --vdev x" on blanks (no quoting inside).
std::vector<std::string> split_words(const std::string& s);

}  // namespace obi::cli
