// Signed custom modules: the trust list of module signing keys and the check that an
// AddCustomModuleRequest's module was signed by one of them.
//
// What is signed (Ed25519, the same on the controller and in `./openbox sign-module`):
//   "openbox-module-v1" 0x00 module_name 0x00 module_version 0x00 SHA-256(module bytes)
// so the signature binds the shared object's bytes, its name and its version (an absent
// version is the empty string). A key is named by its key id: the hex of the first 8 bytes
// of SHA-256 of the raw 32-byte public key.
//
// The trust list comes from `obi --module-trust FILE|DIR`: PEM "PUBLIC KEY" blocks of
// Ed25519 keys (a file may hold several; a directory contributes its *.pub and *.pem files).
//
//   ModuleTrust trust = ModuleTrust::load("build/pki/module-signing.pub");
//   trust.verify("sampler", bytes, {"1.0", signature_b64, key_id});   // throws when refused
//
// verify() refuses with ProtocolError(ADD_MODULE_FAILED) naming the reason: unsigned, no
// key id, unknown key, a signature that is not 64 bytes of base64, or one that does not
// match the name, version and bytes. Nothing here writes or loads the module.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obi::control {

// The signature fields of an AddCustomModuleRequest.
struct ModuleSignature {
  std::optional<std::string> version;    // module_version
  std::optional<std::string> signature;  // base64 of the 64-byte Ed25519 signature
  std::optional<std::string> key_id;     // hex, 16 digits
};

// The bytes an Ed25519 module signature covers.
std::string module_signing_input(std::string_view name, std::string_view version, std::string_view content);
// Key id of a raw 32-byte Ed25519 public key: hex of the first 8 bytes of its SHA-256.
std::string module_key_id(std::string_view raw_public_key);

class ModuleTrust {
 public:
  static constexpr std::size_t kMaxKeys = 1024;          // per trust list
  static constexpr std::size_t kMaxFileBytes = 1 << 20;  // per key file

  ModuleTrust() = default;
  // Reads a PEM file or a directory of them. Throws std::runtime_error naming the file and
  // the problem (unreadable, no Ed25519 public key in it, too large, too many keys).
  static ModuleTrust load(const std::string& file_or_dir);

  // Adds every PEM public key in `pem`; `origin` names it in errors. Throws std::runtime_error.
  void add_pem(std::string_view pem, const std::string& origin);
  // Adds a raw 32-byte Ed25519 public key; returns its key id.
  std::string add_raw(std::string_view raw_public_key);

  bool empty() const { return keys_.empty(); }
  std::vector<std::string> key_ids() const;

  // Checks the signature of module `name` with bytes `content`; throws
  // openbox::ProtocolError(ADD_MODULE_FAILED) with the reason when it is not acceptable.
  void verify(const std::string& name, std::string_view content, const ModuleSignature& sig) const;

 private:
  std::map<std::string, std::string> keys_;  // key id -> raw public key
};

}  // namespace obi::control
