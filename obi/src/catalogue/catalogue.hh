// The block catalogue (blocks/catalogue/*.json) as the OBI sees it. The JSON files are
// embedded into the binary at build time, so there is one source of block metadata for
// the controller and the OBI. Custom modules add descriptors at run time.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace obi {

enum class BlockClass { kTerminal, kClassifier, kModifier, kStatic, kShaper };

struct ArgDescriptor {
  std::string name, type, description;
  bool required = false;
  nlohmann::json default_value;  // null when none
};

struct HandleDescriptor {
  std::string name, type, description;
  bool indexed = false;  // "count_i": one handle per output / rule / protocol
};

// Port count: fixed, one per element of a config array (plus a constant), or computed by
// the block from a config argument.
struct PortSpec {
  enum class Kind { kFixed, kPer, kFrom } kind = Kind::kFixed;
  int count = 1;    // kFixed
  std::string arg;  // kPer / kFrom
  int plus = 0;     // kPer
};

struct BlockDescriptor {
  std::string name, description, spec;
  BlockClass block_class = BlockClass::kTerminal;
  bool required = false;  // spec 3.6.1
  bool obi = false;       // the OBI implements it (has a registered factory)
  std::vector<ArgDescriptor> config;
  std::vector<HandleDescriptor> read_handles, write_handles;
  PortSpec inputs, outputs;
  nlohmann::json source;  // the descriptor JSON as written

  const ArgDescriptor* arg(std::string_view n) const;
  bool has_read_handle(std::string_view handle) const;  // resolves "count_3" against "count_i"
  bool has_write_handle(std::string_view handle) const;
};

class Catalogue {
 public:
  static Catalogue& builtin();  // the embedded descriptors (+ those added by custom modules)
  static BlockDescriptor parse(const nlohmann::json& descriptor);  // throws ProtocolError(BAD_BLOCK)

  const BlockDescriptor* find(std::string_view type) const;
  const std::deque<BlockDescriptor>& all() const { return blocks_; }
  void add(BlockDescriptor d);  // replaces one with the same name
  void remove(std::string_view type);

  // Generic config check against the descriptor: unknown argument, missing required
  // argument, wrong JSON type. Throws ProtocolError(BAD_BLOCK) naming block and argument.
  void check_config(const BlockDescriptor& d, const std::string& block_name, const nlohmann::json& config) const;

 private:
  std::deque<BlockDescriptor> blocks_;
};

const char* to_string(BlockClass c);

}  // namespace obi
