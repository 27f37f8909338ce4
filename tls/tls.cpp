#include "tls/tls.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/file.hpp"
#include "spec-mapping/names.hpp"

namespace sh::tls {
namespace {

using Bio = ossl::Ptr<BIO, BIO_free>;
using Cert = ossl::Ptr<X509, X509_free>;
using Pkey = ossl::Ptr<EVP_PKEY, EVP_PKEY_free>;

Bio mem(std::string_view pem) { return Bio(BIO_new_mem_buf(pem.data(), int(pem.size()))); }

// Every certificate in a PEM text, in order; an error when there is none.
Result<std::vector<Cert>> certs_from(std::string_view pem, const char* what) {
  Bio b = mem(pem);
  std::vector<Cert> out;
  for (Cert c; b && (c = Cert(PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr)));) out.push_back(std::move(c));
  ERR_clear_error();  // the end of the text reads as an error
  if (out.empty()) return fail(std::string("tls: ") + what + ": not a PEM certificate");
  return out;
}

// Why the last handshake refused its peer, riding on the SSL object (app data) with the rule.
struct Verdict {
  const Peer& peer;
  std::string why;
};

// The peer's leaf against the rule; `revoked` as Peer::check says.
Result<void> check_leaf(X509* leaf, const Peer& p, bool* revoked) {
  auto id = TRYC("peer certificate", naming::parse_spiffe_uri(TRY(uri_san(leaf))));
  if (std::ranges::find(p.roles, id.role) == p.roles.end()) {
    std::string want;
    for (const auto& r : p.roles) want += (want.empty() ? "\"" : ", \"") + r + "\"";
    return fail("peer role \"" + id.role + "\", expected " + (p.roles.size() > 1 ? "one of " : "") + want);
  }
  if (!p.name.empty() && id.name != p.name) return fail("peer id \"" + id.name + "\", expected \"" + p.name + "\"");
  if (p.check) return p.check(leaf, revoked);
  return {};
}

// Depth 0 is the peer's own certificate; a chain that does not verify is refused as OpenSSL says.
int verify_peer(int ok, X509_STORE_CTX* store) {
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* v = ssl ? static_cast<Verdict*>(SSL_get_app_data(ssl)) : nullptr;
  if (!ok) {
    if (v) v->why = std::string("certificate verify failed: ") + X509_verify_cert_error_string(X509_STORE_CTX_get_error(store));
    return 0;
  }
  if (X509_STORE_CTX_get_error_depth(store) != 0) return 1;
  bool revoked = false;
  auto r = v ? check_leaf(X509_STORE_CTX_get_current_cert(store), v->peer, &revoked) : fail("no rule for the peer");
  if (r) return 1;
  if (v) v->why = r.error().what();
  X509_STORE_CTX_set_error(store, revoked ? X509_V_ERR_CERT_REVOKED : X509_V_ERR_APPLICATION_VERIFICATION);
  return 0;
}

void set_timeout(int fd, int seconds) {
  struct timeval tv {seconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

Result<Ctx> make_ctx(bool server, const Pem& pem) {
  Ctx ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  if (!ctx) return fail("tls: new context: " + errors());
  if (!SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION))
    return fail("tls: TLS 1.3 only: " + errors());
  auto chain = TRY(certs_from(pem.cert, "certificate"));
  Bio kb = mem(pem.key);
  Pkey key(kb ? PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return fail("tls: key: not a PEM private key: " + errors());
  if (SSL_CTX_use_certificate(ctx.get(), chain[0].get()) != 1 || SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1)
    return fail("tls: certificate and key: " + errors());
  for (size_t i = 1; i < chain.size(); ++i)
    if (SSL_CTX_add1_chain_cert(ctx.get(), chain[i].get()) != 1) return fail("tls: certificate chain: " + errors());
  X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
  for (auto& ca : TRY(certs_from(pem.ca, "CA certificate")))
    if (!X509_STORE_add_cert(store, ca.get())) return fail("tls: trust CA: " + errors());
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | (server ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), verify_peer);
  SSL_CTX_set_verify_depth(ctx.get(), 1);  // leaf + our CA, nothing in between
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  return ctx;
}

Result<Ctx> make_ctx(bool server, const Files& f) {
  constexpr size_t kMax = 64 * 1024;
  Pem pem{TRYC("tls: certificate", read_file(f.cert, kMax)), TRYC("tls: key", read_file(f.key, kMax)),
          TRYC("tls: CA", read_file(f.ca, kMax))};
  auto ctx = make_ctx(server, pem);
  OPENSSL_cleanse(pem.key.data(), pem.key.size());
  return ctx;
}

Result<Ssl> handshake(SSL_CTX* ctx, int fd, bool server, const Peer& peer, int timeout_s) {
  Ssl ssl(SSL_new(ctx));
  if (!ssl) return fail("SSL_new: " + errors());
  Verdict v{peer, {}};
  SSL_set_app_data(ssl.get(), &v);
  if (SSL_set_fd(ssl.get(), fd) != 1) return fail("SSL_set_fd: " + errors());
  if (timeout_s > 0) set_timeout(fd, timeout_s);
  int r = server ? SSL_accept(ssl.get()) : SSL_connect(ssl.get());
  SSL_set_app_data(ssl.get(), nullptr);
  if (r != 1) {
    long res = SSL_get_verify_result(ssl.get());
    std::string why = !v.why.empty() ? v.why : res != X509_V_OK ? X509_verify_cert_error_string(res) : errors();
    return fail(std::string("TLS handshake ") + (server ? "with client" : "with server") + " failed: " + why);
  }
  // Belt and braces: the callback ran, but check the outcome once more.
  X509* leaf = SSL_get0_peer_certificate(ssl.get());
  bool revoked = false;
  if (!leaf || SSL_get_verify_result(ssl.get()) != X509_V_OK || !check_leaf(leaf, peer, &revoked))
    return fail("TLS peer not verified");
  if (timeout_s > 0) set_timeout(fd, 0);
  return ssl;
}

Result<std::string> uri_san(X509* cert) {
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!names) return fail("certificate has no subjectAltName");
  std::optional<std::string> uri;
  int uris = 0;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type != GEN_URI) continue;
    ++uris;
    const ASN1_IA5STRING* s = n->d.uniformResourceIdentifier;
    uri = std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), size_t(ASN1_STRING_length(s)));
  }
  GENERAL_NAMES_free(names);
  if (uris != 1) return fail("certificate has " + std::to_string(uris) + " URI SANs (expected exactly 1)");
  if (uri->find('\0') != std::string::npos) return fail("certificate URI SAN contains a NUL byte");
  return *uri;
}

std::string peer_uri(SSL* ssl) {
  X509* peer = SSL_get0_peer_certificate(ssl);
  return peer ? uri_san(peer).value_or("") : "";
}

std::string errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

std::string io_error(const SSL* ssl, int ret, std::string_view what) {
  int e = SSL_get_error(ssl, ret);
  std::string s(what);
  std::string q = ERR_peek_error() ? errors() : "";
  if (e == SSL_ERROR_SYSCALL) return s + ": " + (errno ? std::string(strerror(errno)) : "connection closed") + (q.empty() ? "" : "; " + q);
  if (e == SSL_ERROR_ZERO_RETURN) return s + ": connection closed by peer";
  return s + ": " + (q.empty() ? "TLS error " + std::to_string(e) : q);
}

}  // namespace sh::tls
