// What a block of the catalogue takes from it: the generated tables of
// blocks/catalogue/<Type>.json (obi::spec::<Type>, see tools/catalogue_gen.py) and the
// registration that holds the block to them.
//
//   OBI_REGISTER_BLOCK(DecIpTtl, DecIpTtlElement);          // in DecIpTtl.cc
//   uint16_t output_count() const override { return spec::DecIpTtl::kOutputs.count; }
//   switch (spec::DecIpTtl::read_id(h).value_or(...)) { ... }  // handle ids, not strings
//
// OBI_REGISTER_BLOCK names the spec namespace of TYPE, so a block without a catalogue
// descriptor does not compile; its factory refuses a config key the descriptor does not
// list (BAD_BLOCK naming block and key) before the block's constructor reads the config.
#pragma once

#include <memory>
#include <span>

#include "blocks_spec.hh"  // generated from blocks/catalogue/*.json
#include "engine/element.hh"

namespace obi {

namespace blocks {
// Throws ProtocolError(BAD_BLOCK) "block 'n' (Type): field 'k': unknown field (known: ...)" for a key of
// args.config that `keys` does not list. A config that is not an object is left to the block.
void check_config_keys(std::span<const spec::ConfigKey> keys, const ElementArgs& args);
}  // namespace blocks

#define OBI_REGISTER_BLOCK(TYPE, CLASS)                                           \
  static ::obi::ElementRegistrar obi_registrar_##TYPE(                            \
      #TYPE, [](const ::obi::ElementArgs& a) -> std::unique_ptr<::obi::Element> { \
        ::obi::blocks::check_config_keys(::obi::spec::TYPE::kConfig, a);          \
        auto e = std::make_unique<CLASS>(a);                                      \
        e->set_identity(a.name, a.type);                                          \
        return e;                                                                 \
      })

}  // namespace obi
