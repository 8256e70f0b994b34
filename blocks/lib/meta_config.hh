// Metadata keys and values in block configuration (WriteMetadata, ReadMetadata,
// EncapsulateMetadata), checked against the limits of the packet's metadata store
// (engine/metadata.hh) with errors that name the block and the field.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/metadata.hh"
#include "lib/config.hh"

namespace obi::blocks {

// A key: a string of 1..kMetaKeyMax bytes.
std::string parse_meta_key(const nlohmann::json& v, const Where& w);
// A value: a JSON integer or a string of at most kMetaTextMax bytes.
MetaValue parse_meta_value(const nlohmann::json& v, const Where& w);
nlohmann::json meta_value_json(const MetaValue& v);

}  // namespace obi::blocks
