#include "lib/session_storage.hh"

#include "openbox/error.hh"

namespace obi::blocks {

SessionStorage& SessionStorage::instance() {
  static SessionStorage storage;  // lives for the process: workers may hold its tables
  return storage;
}

uint16_t SessionStorage::key_id(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(key);
  if (it != keys_.end()) return it->second;
  if (keys_.size() >= 0xffff)
    throw openbox::ProtocolError(openbox::ErrorSubtype::INTERNAL_ERROR, "session storage: too many distinct keys");
  uint16_t id = static_cast<uint16_t>(keys_.size());
  keys_.emplace(key, id);
  return id;
}

void SessionStorage::ensure_workers(unsigned workers) {
  std::lock_guard<std::mutex> lock(mu_);
  if (workers > kMaxWorkers)
    throw openbox::ProtocolError(openbox::ErrorSubtype::INTERNAL_ERROR, "session storage: too many workers");
  for (unsigned w = 0; w < workers; ++w)
    if (!tables_[w].load(std::memory_order_relaxed))
      tables_[w].store(new FlowTable<SessionValues>(kCapacity, kTimeoutNs), std::memory_order_release);
}

}  // namespace obi::blocks
