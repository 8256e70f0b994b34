// SessionStore (spec 5.29): stores packet field values in the session storage, for
// later SessionClassifier rules on the same flow (either direction).
//
// Ports: 1 input, 1 output; packets pass through unchanged (non-IP packets too, without
// storing anything).
// Config:
//   fields: map from a header field name (spec 4.1 fields) to a session key, or to
//           {"key": K, "mask": M} with M of the field's syntax; the stored value is
//           field & mask (a full mask by default). A field the packet lacks is not stored.
// Config keys, handles and port counts: blocks/catalogue/SessionStore.json.
// Example:
//   {"type": "SessionStore", "name": "remember", "config": {"fields": {
//     "IPV4_SRC": {"key": "client", "mask": "255.255.255.0"}, "TCP_SRC": "client_port"}}}
// Storage: blocks/lib/session_storage.hh (per worker, bounded, 300 s idle timeout).
#pragma once

#include <vector>

#include "engine/element.hh"
#include "lib/session_storage.hh"

namespace obi::blocks {

class SessionStoreElement final : public Element {
 public:
  explicit SessionStoreElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;

 private:
  struct Item {
    openbox::MatchField field;
    uint16_t key;
    u128 mask;
  };
  std::vector<Item> items_;
  SessionStorage& storage_;
  PerWorker<Counter> stored_, full_;
};

}  // namespace obi::blocks
