// Test helpers for signed custom modules: the shared test vector of
// protocol/vectors/module-signature (its keys and expected signature) and Ed25519 signing
// with its test key, as the controller signs (the OBI itself only verifies).
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "control/module_signature.hh"
#include "openbox/messages.hh"

namespace obi::testing_signing {

inline std::filesystem::path vector_dir() {
  return std::filesystem::path(OPENBOX_ROOT) / "protocol" / "vectors" / "module-signature";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json vector() { return nlohmann::json::parse(read_text(vector_dir() / "ed25519.json")); }
inline std::string trusted_pub() { return (vector_dir() / "test-signing.pub").string(); }
inline std::string untrusted_pub() { return (vector_dir() / "untrusted.pub").string(); }

// Base64 Ed25519 signature of (name, version, content) with the PEM private key at `key_path`.
inline std::string sign(const std::string& name, const std::string& version, const std::string& content,
                        const std::string& key_path = (vector_dir() / "test-signing.key").string()) {
  const std::string pem = read_text(key_path);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  if (!key) throw std::runtime_error(key_path + ": no private key");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const std::string input = control::module_signing_input(name, version, content);
  unsigned char sig[64];
  size_t len = sizeof sig;
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
    throw std::runtime_error("Ed25519 signing failed");
  return openbox::base64_encode(std::string(reinterpret_cast<const char*>(sig), len));
}

// Adds module_version, signature and key_id (the test key's) to an AddCustomModuleRequest.
inline void sign_request(nlohmann::json& add, const std::string& content, const std::string& version = "1.0") {
  add["module_version"] = version;
  add["signature"] = sign(add["module_name"].get<std::string>(), version, content);
  add["key_id"] = vector()["key_id"];
}

}  // namespace obi::testing_signing
