#include "lib/block_spec.hh"

#include <string>

#include "openbox/error.hh"

namespace obi::blocks {

void check_config_keys(std::span<const spec::ConfigKey> keys, const ElementArgs& args) {
  if (!args.config.is_object()) return;
  for (auto it = args.config.begin(); it != args.config.end(); ++it) {
    if (spec::find_key(keys, it.key())) continue;
    std::string known;
    for (const spec::ConfigKey& k : keys) known += (known.empty() ? "" : ", ") + std::string(k.name);
    throw openbox::ProtocolError(openbox::ErrorSubtype::BAD_BLOCK,
                                 "block '" + args.name + "' (" + args.type + "): field '" + it.key() +
                                     "': unknown field (known: " + (known.empty() ? "none" : known) + ")");
  }
}

}  // namespace obi::blocks
