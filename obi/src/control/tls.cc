// TLS credentials of the OBI and their use on both sides of the OpenBox protocol.
#include "control/tls.hh"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace obi::control {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_pem(const std::string& what, const std::string& path) {
  if (path.empty()) throw std::runtime_error(what + ": no file given");
  File f(std::fopen(path.c_str(), "r"));
  if (!f) throw std::runtime_error(what + " " + path + ": cannot read: " + std::strerror(errno));
  return f;
}

// OpenSSL's reason for the last failure, and the error queue cleared.
std::string openssl_reason() {
  unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (!e) return "not in PEM format";
  const char* r = ERR_reason_error_string(e);
  return r ? r : "unknown OpenSSL error";
}

// Never prompts for a passphrase: an encrypted key is refused.
int no_passphrase(char*, int, int, void*) { return -1; }

std::vector<X509*> read_certificates(const std::string& what, const std::string& path) {
  File f = open_pem(what, path);
  std::vector<X509*> out;
  while (X509* c = PEM_read_X509(f.get(), nullptr, nullptr, nullptr)) out.push_back(c);
  const unsigned long e = ERR_peek_last_error();
  // The loop ends with "no start line" at the end of the file; anything else is damage.
  if (e && !(ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE)) {
    const std::string reason = openssl_reason();
    for (X509* c : out) X509_free(c);
    throw std::runtime_error(what + " " + path + ": not a valid PEM certificate: " + reason);
  }
  ERR_clear_error();
  if (out.empty()) throw std::runtime_error(what + " " + path + ": no PEM certificate in it");
  return out;
}

// Client side: the server's certificate must, besides chaining to the CA, be the
// controller's.
int verify_controller(int preverified, X509_STORE_CTX* x) {
  if (!preverified) return 0;
  if (X509_STORE_CTX_get_error_depth(x) != 0) return 1;
  if (common_name(X509_STORE_CTX_get_current_cert(x)) == kControllerName) return 1;
  X509_STORE_CTX_set_error(x, X509_V_ERR_APPLICATION_VERIFICATION);
  return 0;
}

bool use_credentials(SSL_CTX& ctx, X509* cert, STACK_OF(X509) * chain, EVP_PKEY* key, X509_STORE* store) {
  if (SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION) != 1) return false;
  if (SSL_CTX_use_certificate(&ctx, cert) != 1) return false;
  for (int i = 0; i < sk_X509_num(chain); ++i)
    if (SSL_CTX_add1_chain_cert(&ctx, sk_X509_value(chain, i)) != 1) return false;
  if (SSL_CTX_use_PrivateKey(&ctx, key) != 1 || SSL_CTX_check_private_key(&ctx) != 1) return false;
  if (X509_STORE_up_ref(store) != 1) return false;
  SSL_CTX_set_cert_store(&ctx, store);  // takes the reference just added
  return true;
}

}  // namespace

std::string common_name(const X509* cert) {
  if (!cert) return "";
  const X509_NAME* name = X509_get_subject_name(cert);
  const int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
  if (i < 0 || X509_NAME_get_index_by_NID(name, NID_commonName, i) >= 0) return "";
  const ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
  unsigned char* utf8 = nullptr;
  const int n = ASN1_STRING_to_UTF8(&utf8, s);
  if (n < 0) return "";
  std::string out(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(n));
  OPENSSL_free(utf8);
  if (out.find('\0') != std::string::npos) return "";  // an embedded NUL is never a name
  return out;
}

std::string controller_identity_error(const SSL* ssl) {
  if (!ssl) return "not a TLS connection";
  const X509* peer = SSL_get0_peer_certificate(ssl);
  if (!peer) return "no client certificate";
  if (SSL_get_verify_result(ssl) != X509_V_OK) return "client certificate not verified";
  const std::string cn = common_name(peer);
  if (cn != kControllerName) return "client certificate CN \"" + cn + "\" is not " + kControllerName;
  return "";
}

Tls::Tls(const TlsFiles& files) : files_(files) {
  try {
    std::vector<X509*> certs = read_certificates("--cert", files.cert);
    cert_ = certs.front();
    chain_ = sk_X509_new_null();
    for (std::size_t i = 1; i < certs.size(); ++i) sk_X509_push(chain_, certs[i]);

    File kf = open_pem("--key", files.key);
    key_ = PEM_read_PrivateKey(kf.get(), nullptr, no_passphrase, nullptr);
    if (!key_)
      throw std::runtime_error("--key " + files.key + ": not an unencrypted PEM private key: " + openssl_reason());
    if (X509_check_private_key(cert_, key_) != 1) {
      ERR_clear_error();
      throw std::runtime_error("--key " + files.key + " does not match --cert " + files.cert);
    }

    store_ = X509_STORE_new();
    for (X509* ca : read_certificates("--ca", files.ca)) {
      const int added = X509_STORE_add_cert(store_, ca);
      X509_free(ca);
      if (added != 1) throw std::runtime_error("--ca " + files.ca + ": " + openssl_reason());
    }

    // The OBI's own certificate must be one its peers accept: chained to the CA, in date.
    X509_STORE_CTX* vctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(vctx, store_, cert_, chain_);
    const int ok = X509_verify_cert(vctx);
    const int err = X509_STORE_CTX_get_error(vctx);
    X509_STORE_CTX_free(vctx);
    ERR_clear_error();
    if (ok != 1)
      throw std::runtime_error("--cert " + files.cert + " does not verify against --ca " + files.ca + ": " +
                               X509_verify_cert_error_string(err));
  } catch (...) {
    release();
    throw;
  }
}

Tls::~Tls() { release(); }

void Tls::release() {
  X509_free(cert_);
  sk_X509_pop_free(chain_, X509_free);
  EVP_PKEY_free(key_);
  X509_STORE_free(store_);
  cert_ = nullptr;
  chain_ = nullptr;
  key_ = nullptr;
  store_ = nullptr;
}

std::string Tls::subject_name() const { return common_name(cert_); }

bool Tls::setup_server(SSL_CTX& ctx) const {
  if (!use_credentials(ctx, cert_, chain_, key_, store_)) return false;
  // Name the acceptable CAs in the CertificateRequest, so a client holding several
  // certificates picks the one from this deployment.
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  STACK_OF(X509_OBJECT)* objects = X509_STORE_get0_objects(store_);
  for (int i = 0; i < sk_X509_OBJECT_num(objects); ++i)
    if (X509* ca = X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objects, i)))
      sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca)));
  SSL_CTX_set_client_CA_list(&ctx, names);
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  // A verified client may resume its session (the controller's TLS stack does); OpenSSL
  // refuses that with internal_error unless the sessions carry a context id.
  static const unsigned char kSessionContext[] = "openbox-obi";
  return SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof kSessionContext - 1) == 1;
}

bool Tls::setup_client(SSL_CTX& ctx) const {
  if (!use_credentials(ctx, cert_, chain_, key_, store_)) return false;
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, verify_controller);
  return true;
}

}  // namespace obi::control
