// Block catalogue: parses the embedded descriptors (blocks/catalogue/*.json), resolves
// indexed handle names (count_3 against count_i) and checks a block's config against
// its descriptor's argument list.
#include "catalogue/catalogue.hh"

#include <cstdio>

#include "openbox/error.hh"

namespace obi {

extern const char* const kCatalogueJson;

namespace {

using json = nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

[[noreturn]] void bad(const std::string& why) { throw ProtocolError(ErrorSubtype::BAD_BLOCK, why); }

std::string req_string(const json& j, const char* f, const std::string& where) {
  auto it = j.find(f);
  if (it == j.end() || !it->is_string()) bad(where + ": \"" + f + "\" must be a string");
  return it->get<std::string>();
}

std::string opt_string(const json& j, const char* f, const std::string& where) {
  auto it = j.find(f);
  if (it == j.end()) return "";
  if (!it->is_string()) bad(where + ": \"" + f + "\" must be a string");
  return it->get<std::string>();
}

bool opt_bool(const json& j, const char* f, const std::string& where) {
  auto it = j.find(f);
  if (it == j.end()) return false;
  if (!it->is_boolean()) bad(where + ": \"" + f + "\" must be a boolean");
  return it->get<bool>();
}

PortSpec parse_ports(const json& j, const char* f, const std::string& where) {
  auto it = j.find(f);
  if (it == j.end()) bad(where + ": \"" + f + "\" is missing");
  PortSpec p;
  if (it->is_number_integer() && it->get<int64_t>() >= 0) {
    p.kind = PortSpec::Kind::kFixed;
    p.count = it->get<int>();
    return p;
  }
  if (it->is_object()) {
    if (auto per = it->find("per"); per != it->end() && per->is_string()) {
      p.kind = PortSpec::Kind::kPer;
      p.arg = per->get<std::string>();
      if (auto plus = it->find("plus"); plus != it->end()) {
        if (!plus->is_number_integer()) bad(where + ": \"" + f + ".plus\" must be an integer");
        p.plus = plus->get<int>();
      }
      return p;
    }
    if (auto from = it->find("from"); from != it->end() && from->is_string()) {
      p.kind = PortSpec::Kind::kFrom;
      p.arg = from->get<std::string>();
      return p;
    }
  }
  bad(where + ": \"" + f + "\" must be an integer, {\"per\": ARG} or {\"from\": ARG}");
}

std::vector<HandleDescriptor> parse_handles(const json& j, const char* f, const std::string& where) {
  std::vector<HandleDescriptor> out;
  auto it = j.find(f);
  if (it == j.end()) return out;
  if (!it->is_array()) bad(where + ": \"" + f + "\" must be an array");
  for (const auto& h : *it) {
    if (!h.is_object()) bad(where + ": every entry of \"" + f + "\" must be an object");
    HandleDescriptor d;
    d.name = req_string(h, "name", where + " " + f);
    d.type = opt_string(h, "type", where + " " + f + " " + d.name);
    d.description = opt_string(h, "description", where + " " + f + " " + d.name);
    d.indexed = opt_bool(h, "indexed", where + " " + f + " " + d.name);
    out.push_back(std::move(d));
  }
  return out;
}

// An indexed handle "count_i" (or "count") admits "count_0", "count_17", ... (no leading zeros).
bool handle_matches(const HandleDescriptor& h, std::string_view handle) {
  if (!h.indexed) return h.name == handle;
  std::string_view stem = h.name;
  if (stem.size() > 2 && stem.substr(stem.size() - 2) == "_i") stem.remove_suffix(2);
  if (handle.size() < stem.size() + 2 || handle.substr(0, stem.size()) != stem || handle[stem.size()] != '_')
    return false;
  std::string_view idx = handle.substr(stem.size() + 1);
  if (idx.size() > 1 && idx[0] == '0') return false;
  for (char c : idx)
    if (c < '0' || c > '9') return false;
  return true;
}

bool has_handle(const std::vector<HandleDescriptor>& hs, std::string_view handle) {
  for (const auto& h : hs)
    if (handle_matches(h, handle)) return true;
  return false;
}

// Does `v` have the JSON type an argument type names? Structured kinds are objects;
// unknown kinds are accepted (the block's factory checks them).
bool type_matches(std::string_view type, const json& v) {
  if (type.size() > 2 && type.substr(type.size() - 2) == "[]") {
    if (!v.is_array()) return false;
    for (const auto& e : v)
      if (!type_matches(type.substr(0, type.size() - 2), e)) return false;
    return true;
  }
  if (type == "any" || type.empty()) return true;
  if (type == "string") return v.is_string();
  if (type == "bool" || type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "null") return v.is_null();
  if (type == "array") return v.is_array();
  if (type == "object" || type == "header_match" || type == "header_payload_match" || type == "alert" ||
      type == "session_match" || type == "field_map")
    return v.is_object();
  return true;
}

std::string json_kind(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

}  // namespace

const ArgDescriptor* BlockDescriptor::arg(std::string_view n) const {
  for (const auto& a : config)
    if (a.name == n) return &a;
  return nullptr;
}

bool BlockDescriptor::has_read_handle(std::string_view handle) const { return has_handle(read_handles, handle); }
bool BlockDescriptor::has_write_handle(std::string_view handle) const { return has_handle(write_handles, handle); }

BlockDescriptor Catalogue::parse(const json& j) {
  if (!j.is_object()) bad("a block descriptor must be an object");
  BlockDescriptor d;
  d.name = req_string(j, "name", "block descriptor");
  if (d.name.empty()) bad("block descriptor: empty name");
  const std::string where = "block descriptor " + d.name;
  std::string cls = req_string(j, "class", where);
  if (cls == "terminal") d.block_class = BlockClass::kTerminal;
  else if (cls == "classifier") d.block_class = BlockClass::kClassifier;
  else if (cls == "modifier") d.block_class = BlockClass::kModifier;
  else if (cls == "static") d.block_class = BlockClass::kStatic;
  else if (cls == "shaper") d.block_class = BlockClass::kShaper;
  else bad(where + ": unknown class \"" + cls + "\"");
  d.description = opt_string(j, "description", where);
  d.spec = opt_string(j, "spec", where);
  d.required = opt_bool(j, "required", where);
  d.obi = opt_bool(j, "obi", where);
  if (auto c = j.find("config"); c != j.end()) {
    if (!c->is_array()) bad(where + ": \"config\" must be an array");
    for (const auto& a : *c) {
      if (!a.is_object()) bad(where + ": every config entry must be an object");
      ArgDescriptor ad;
      ad.name = req_string(a, "name", where + " config");
      ad.type = req_string(a, "type", where + " config " + ad.name);
      ad.description = opt_string(a, "description", where + " config " + ad.name);
      ad.required = opt_bool(a, "required", where + " config " + ad.name);
      if (auto def = a.find("default"); def != a.end()) ad.default_value = *def;
      d.config.push_back(std::move(ad));
    }
  }
  d.read_handles = parse_handles(j, "read_handles", where);
  d.write_handles = parse_handles(j, "write_handles", where);
  d.inputs = parse_ports(j, "inputs", where);
  d.outputs = parse_ports(j, "outputs", where);
  for (const PortSpec* p : {&d.inputs, &d.outputs})
    if (p->kind != PortSpec::Kind::kFixed && !d.arg(p->arg))
      bad(where + ": port count refers to unknown argument \"" + p->arg + "\"");
  d.source = j;
  return d;
}

Catalogue& Catalogue::builtin() {
  static Catalogue* cat = [] {
    auto* c = new Catalogue();
    json all = json::parse(kCatalogueJson, nullptr, false);
    if (!all.is_array()) {
      std::fprintf(stderr, "obi: the embedded block catalogue is not a JSON array\n");
      return c;
    }
    for (const auto& j : all) {
      try {
        c->add(parse(j));
      } catch (const ProtocolError& e) {
        std::fprintf(stderr, "obi: skipping block descriptor: %s\n", e.what());
      }
    }
    return c;
  }();
  return *cat;
}

const BlockDescriptor* Catalogue::find(std::string_view type) const {
  for (const auto& b : blocks_)
    if (b.name == type) return &b;
  return nullptr;
}

void Catalogue::add(BlockDescriptor d) {
  for (auto& b : blocks_) {
    if (b.name == d.name) {
      b = std::move(d);
      return;
    }
  }
  blocks_.push_back(std::move(d));
}

void Catalogue::remove(std::string_view type) {
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
    if (it->name == type) {
      blocks_.erase(it);
      return;
    }
  }
}

void Catalogue::check_config(const BlockDescriptor& d, const std::string& block_name, const json& config) const {
  // Named only in an error: a large graph checks thousands of blocks.
  auto who = [&] { return "block \"" + block_name + "\" (" + d.name + ")"; };
  if (config.is_null()) {
    for (const auto& a : d.config)
      if (a.required) bad(who() + ": missing required argument \"" + a.name + "\"");
    return;
  }
  if (!config.is_object()) bad(who() + ": config must be an object");
  for (const auto& [key, value] : config.items()) {
    const ArgDescriptor* a = d.arg(key);
    if (!a) bad(who() + ": unknown argument \"" + key + "\"");
    if (!type_matches(a->type, value))
      bad(who() + ": argument \"" + key + "\" must be " + a->type + ", got " + json_kind(value));
  }
  for (const auto& a : d.config)
    if (a.required && !config.contains(a.name)) bad(who() + ": missing required argument \"" + a.name + "\"");
}

const char* to_string(BlockClass c) {
  switch (c) {
    case BlockClass::kTerminal: return "terminal";
    case BlockClass::kClassifier: return "classifier";
    case BlockClass::kModifier: return "modifier";
    case BlockClass::kStatic: return "static";
    case BlockClass::kShaper: return "shaper";
  }
  return "terminal";
}

}  // namespace obi
