// Element defaults, the block-type registry and Context::drop.
#include "engine/element.hh"

#include <algorithm>
#include <map>
#include <mutex>

#include "engine/pool.hh"

namespace obi {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, ElementFactory, std::less<>> factories;
};

// Function-local static: registrations run from static initialisers of the block files.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void Context::drop(Packet* p) {
  ++drops;
  pool->free(p);
}

void Context::drop(Batch& b) {
  drops += b.n;
  for (uint32_t i = 0; i < b.n; ++i) pool->free(b.pkts[i]);
  b.n = 0;
}

void Context::defer(Node* node, uint16_t port, Batch& b) {
  if (!pool->defer(node, port, b)) {
    drop(b);
    return;
  }  // cannot happen: see PacketPool::defer
  ++pending;
  b.n = 0;
}

void Context::run_pending() {
  Node* node = nullptr;
  uint16_t port = 0;
  Batch b;
  depth = 1;
  while (pool->take_pending(node, port, b)) {
    --pending;
    node->element->push(port, b, *this, node->outputs);
  }
  depth = 0;
}

nlohmann::json Element::read(std::string_view handle) const {
  throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT,
                               "block '" + name() + "' (" + type() + "): unknown handle '" + std::string(handle) + "'");
}

void Element::write(std::string_view handle, const nlohmann::json& value) {
  (void)value;
  throw openbox::ProtocolError(openbox::ErrorSubtype::ILLEGAL_ARGUMENT,
                               "block '" + name() + "' (" + type() + "): unknown handle '" + std::string(handle) + "'");
}

void register_element(std::string_view type, ElementFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[std::string(type)] = factory;
}

bool unregister_element(std::string_view type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.factories.find(type);
  if (it == r.factories.end()) return false;
  r.factories.erase(it);
  return true;
}

ElementFactory find_element(std::string_view type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.factories.find(type);
  return it == r.factories.end() ? nullptr : it->second;
}

std::vector<std::string> registered_elements() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [name, f] : r.factories) out.push_back(name);
  return out;
}

}  // namespace obi
