// Ed25519 verification of custom modules with the OpenSSL 3 EVP API.
#include "control/module_signature.hh"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "openbox/error.hh"
#include "openbox/messages.hh"

namespace obi::control {
namespace {

namespace fs = std::filesystem;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

constexpr std::string_view kDomain = "openbox-module-v1";
constexpr std::size_t kRawKeyBytes = 32;
constexpr std::size_t kSignatureBytes = 64;

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::string sha256(std::string_view bytes) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

[[noreturn]] void refuse(const std::string& name, const std::string& why) {
  throw ProtocolError(ErrorSubtype::ADD_MODULE_FAILED, "custom module \"" + name + "\" refused: " + why);
}

bool key_file(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".pub" || ext == ".pem";
}

std::string read_file(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec) throw std::runtime_error(p.string() + ": cannot read: " + ec.message());
  if (size > ModuleTrust::kMaxFileBytes)
    throw std::runtime_error(p.string() + ": larger than " + std::to_string(ModuleTrust::kMaxFileBytes) +
                             " bytes; not a key file");
  std::ifstream in(p, std::ios::binary);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw std::runtime_error(p.string() + ": cannot read");
  return text;
}

}  // namespace

std::string module_signing_input(std::string_view name, std::string_view version, std::string_view content) {
  std::string out;
  out.reserve(kDomain.size() + name.size() + version.size() + 3 + SHA256_DIGEST_LENGTH);
  out.append(kDomain).push_back('\0');
  out.append(name).push_back('\0');
  out.append(version).push_back('\0');
  out.append(sha256(content));
  return out;
}

std::string module_key_id(std::string_view raw_public_key) { return hex(sha256(raw_public_key).substr(0, 8)); }

ModuleTrust ModuleTrust::load(const std::string& file_or_dir) {
  ModuleTrust t;
  std::error_code ec;
  const fs::path root(file_or_dir);
  if (fs::is_directory(root, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_regular_file() && key_file(e.path())) files.push_back(e.path());
    if (ec) throw std::runtime_error(file_or_dir + ": cannot list: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) t.add_pem(read_file(f), f.string());
    if (t.empty()) throw std::runtime_error(file_or_dir + ": no *.pub or *.pem key file in this directory");
  } else if (fs::exists(root, ec)) {
    t.add_pem(read_file(root), file_or_dir);
  } else {
    throw std::runtime_error(file_or_dir + ": no such file or directory");
  }
  return t;
}

void ModuleTrust::add_pem(std::string_view pem, const std::string& origin) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) throw std::runtime_error(origin + ": out of memory");
  std::size_t found = 0;
  for (;;) {
    Pkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    if (!key) {
      ERR_clear_error();  // the end of the text (or a block of another kind) is not an error here
      break;
    }
    ++found;
    if (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_ED25519)
      throw std::runtime_error(origin + ": public key " + std::to_string(found) + " is not an Ed25519 key");
    unsigned char raw[kRawKeyBytes];
    std::size_t len = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key.get(), raw, &len) != 1 || len != kRawKeyBytes)
      throw std::runtime_error(origin + ": public key " + std::to_string(found) + " cannot be read");
    if (keys_.size() >= kMaxKeys)
      throw std::runtime_error(origin + ": more than " + std::to_string(kMaxKeys) + " trusted keys");
    add_raw(std::string_view(reinterpret_cast<const char*>(raw), len));
  }
  if (found == 0) throw std::runtime_error(origin + ": no PEM public key (-----BEGIN PUBLIC KEY-----) in it");
}

std::string ModuleTrust::add_raw(std::string_view raw_public_key) {
  if (raw_public_key.size() != kRawKeyBytes) throw std::invalid_argument("an Ed25519 public key is 32 bytes");
  std::string id = module_key_id(raw_public_key);
  keys_.emplace(id, std::string(raw_public_key));
  return id;
}

std::vector<std::string> ModuleTrust::key_ids() const {
  std::vector<std::string> out;
  for (const auto& [id, k] : keys_) out.push_back(id);
  return out;
}

void ModuleTrust::verify(const std::string& name, std::string_view content, const ModuleSignature& sig) const {
  if (!sig.signature)
    refuse(name,
           "it is not signed (no \"signature\"); the controller signs modules with "
           "openbox.modules.signing-key, operators with ./openbox sign-module");
  if (!sig.key_id) refuse(name, "the signature names no signing key (no \"key_id\")");
  const std::string version = sig.version.value_or("");
  if (name.find('\0') != std::string::npos || version.find('\0') != std::string::npos)
    refuse(name, "module_name and module_version must not contain NUL characters");
  auto key = keys_.find(*sig.key_id);
  if (key == keys_.end()) {
    std::string trusted;
    for (const auto& [id, k] : keys_) trusted += (trusted.empty() ? "" : ", ") + id;
    refuse(name,
           "signed by key " + sig.key_id->substr(0, 64) + ", which this OBI does not trust (trusted: " + trusted + ")");
  }
  std::string raw_sig;
  if (!openbox::base64_decode(*sig.signature, raw_sig) || raw_sig.size() != kSignatureBytes)
    refuse(name, "\"signature\" is not the base64 of a 64-byte Ed25519 signature");

  Pkey pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(key->second.data()), key->second.size()));
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!pkey || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1)
    refuse(name, "the signature cannot be checked (OpenSSL has no Ed25519)");
  const std::string input = module_signing_input(name, version, content);
  const int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(raw_sig.data()), raw_sig.size(),
                                  reinterpret_cast<const unsigned char*>(input.data()), input.size());
  ERR_clear_error();
  if (ok != 1)
    refuse(name,
           "the signature does not match its name, version and content (changed after signing, or "
           "signed with another key than " +
               *sig.key_id + ")");
}

}  // namespace obi::control
