// Tls: the OBI's TLS credentials (its certificate and key, the CA of the deployment),
// loaded and checked once, then applied to the REST server and to every connection to the
// controller. Both directions are mutual TLS (TLS 1.2 or later):
//   server  the OBI presents its certificate; a client must present one chaining to the CA
//           (the handshake fails otherwise); that it is the controller (CN
//           openbox-controller) is checked per request (controller_identity_error).
//   client  the OBI presents its certificate; the controller's must chain to the CA and
//           carry CN openbox-controller, or the handshake fails.
//
//   auto tls = std::make_shared<obi::control::Tls>(obi::control::TlsFiles{"obi-1.crt", "obi-1.key", "ca.crt"});
//   httplib::SSLServer server([&](SSL_CTX& ctx) { return tls->setup_server(ctx); });
//
// A missing or unreadable file, a key that does not match its certificate, or a
// certificate that does not chain to the CA throws std::runtime_error with one line
// naming the file.
#pragma once

#include <openssl/ssl.h>

#include <string>

namespace obi::control {

// The common name every controller certificate carries.
inline constexpr const char* kControllerName = "openbox-controller";

struct TlsFiles {
  std::string cert;  // PEM: the OBI's certificate (intermediates may follow)
  std::string key;   // PEM: its private key
  std::string ca;    // PEM: the CA certificate(s) peers must chain to
};

class Tls {
 public:
  explicit Tls(const TlsFiles& files);
  ~Tls();
  Tls(const Tls&) = delete;
  Tls& operator=(const Tls&) = delete;

  // Configure a server context: own certificate, client certificate required and
  // verified against the CA, TLS 1.2+. False when OpenSSL refuses a step.
  bool setup_server(SSL_CTX& ctx) const;
  // Configure a client context: own certificate, the peer verified against the CA and
  // required to have the common name openbox-controller, TLS 1.2+.
  bool setup_client(SSL_CTX& ctx) const;

  const TlsFiles& files() const { return files_; }
  std::string subject_name() const;  // CN of the OBI's own certificate

 private:
  void release();

  TlsFiles files_;
  X509* cert_ = nullptr;
  STACK_OF(X509) * chain_ = nullptr;  // certificates after the first in the cert file
  EVP_PKEY* key_ = nullptr;
  X509_STORE* store_ = nullptr;
};

// The common name of a certificate's subject; empty when it has none or several.
std::string common_name(const X509* cert);

// Empty when the verified peer of `ssl` is the controller; otherwise why it is not
// (no TLS, no certificate, another name).
std::string controller_identity_error(const SSL* ssl);

}  // namespace obi::control
