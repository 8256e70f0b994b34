// Key-value packet metadata (spec 1.3.1): values one block writes for the blocks after it
// and, through NSH, for the blocks of another OBI.
//
// WriteMetadata and DecapsulateMetadata write it, ReadMetadata classifies on it and
// EncapsulateMetadata carries it. It lives inline in the Packet descriptor (no allocation
// on the data path): up to kMetaEntries keys of at most kMetaKeyMax bytes, each holding an
// integer or a string of at most kMetaTextMax bytes. Only the entry count is reset when the
// pool hands a packet out; clone() copies the store.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace obi {

inline constexpr unsigned kMetaEntries = 4;
inline constexpr unsigned kMetaKeyMax = 15;
inline constexpr unsigned kMetaTextMax = 22;

struct MetaValue {
  enum Kind : uint8_t { kInteger = 0, kString = 1 };
  Kind kind = kInteger;
  uint8_t len = 0;  // bytes of text (kString)
  char text[kMetaTextMax] = {};
  int64_t integer = 0;  // kInteger

  static MetaValue of(int64_t v) {
    MetaValue m;
    m.integer = v;
    return m;
  }
  // Caller guarantees s.size() <= kMetaTextMax.
  static MetaValue of(std::string_view s) {
    MetaValue m;
    m.kind = kString;
    m.len = static_cast<uint8_t>(s.size());
    std::memcpy(m.text, s.data(), s.size());
    return m;
  }
  std::string_view str() const { return {text, len}; }
  bool operator==(const MetaValue& o) const {
    if (kind != o.kind) return false;
    return kind == kInteger ? integer == o.integer : str() == o.str();
  }
};
static_assert(sizeof(MetaValue) == 32);

struct MetaEntry {
  uint8_t key_len = 0;
  char key[kMetaKeyMax] = {};
  MetaValue value;
  std::string_view name() const { return {key, key_len}; }
};

struct MetaStore {
  uint8_t n = 0;
  MetaEntry entries[kMetaEntries];

  void clear() { n = 0; }
  const MetaValue* find(std::string_view key) const {
    for (unsigned i = 0; i < n; ++i)
      if (entries[i].name() == key) return &entries[i].value;
    return nullptr;
  }
  // Sets key (at most kMetaKeyMax bytes) to v, replacing an earlier value; false when the
  // key is new and every entry is taken.
  bool set(std::string_view key, const MetaValue& v) {
    for (unsigned i = 0; i < n; ++i)
      if (entries[i].name() == key) {
        entries[i].value = v;
        return true;
      }
    if (n == kMetaEntries || key.size() > kMetaKeyMax) return false;
    MetaEntry& e = entries[n++];
    e.key_len = static_cast<uint8_t>(key.size());
    std::memcpy(e.key, key.data(), key.size());
    e.value = v;
    return true;
  }
};

}  // namespace obi
