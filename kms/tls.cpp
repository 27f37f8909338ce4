#include "kms/tls.hpp"

#include <openssl/err.h>
#include <openssl/x509v3.h>

namespace sh::kms {
namespace {

// Per-context: the role a peer must have. Per-connection: why it was refused.
int ctx_role_index() {
  static int i = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return i;
}
int ssl_reason_index() {
  static int i = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, [](void*, void* p, CRYPTO_EX_DATA*, int, long, void*) {
    delete static_cast<std::string*>(p);
  });
  return i;
}

void set_reason(SSL* ssl, std::string why) {
  auto* old = static_cast<std::string*>(SSL_get_ex_data(ssl, ssl_reason_index()));
  if (old) {
    *old = std::move(why);
    return;
  }
  SSL_set_ex_data(ssl, ssl_reason_index(), new std::string(std::move(why)));
}

// What a peer must be.
struct Want {
  std::string role, id;  // id empty: any id
};

// The leaf's identity: exactly one URI SAN, of the spiffe://sharness.local/role/ shape.
Result<SpiffeId> leaf_id(X509* cert) {
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!names) return fail("certificate has no subjectAltName");
  std::string uri;
  int uris = 0;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type != GEN_URI) continue;
    ++uris;
    const ASN1_STRING* s = n->d.uniformResourceIdentifier;
    uri.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<size_t>(ASN1_STRING_length(s)));
  }
  GENERAL_NAMES_free(names);
  if (uris != 1) return fail("certificate has " + std::to_string(uris) + " URI SANs, expected exactly 1");
  return parse_spiffe(uri);
}

int verify_cb(int preverify_ok, X509_STORE_CTX* x) {
  SSL* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx()));
  if (!preverify_ok) {
    int e = X509_STORE_CTX_get_error(x);
    set_reason(ssl, std::string("certificate verify failed: ") + X509_verify_cert_error_string(e));
    return 0;
  }
  if (X509_STORE_CTX_get_error_depth(x) != 0) return 1;
  const auto* want = static_cast<const Want*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_role_index()));
  auto got = leaf_id(X509_STORE_CTX_get_current_cert(x));
  auto refuse = [&](std::string why) {
    set_reason(ssl, std::move(why));
    X509_STORE_CTX_set_error(x, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
  };
  if (!got) return refuse("peer certificate: " + got.error().what());
  if (!want || got->role != want->role)
    return refuse("peer role \"" + got->role + "\", expected \"" + (want ? want->role : std::string()) + "\"");
  if (!want->id.empty() && got->id != want->id)
    return refuse("peer id \"" + got->id + "\", expected \"" + want->id + "\"");
  return 1;
}

std::string ossl_queue() {
  std::string s;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!s.empty()) s += "; ";
    s += buf;
  }
  return s;
}

}  // namespace

void SslCtxFree::operator()(SSL_CTX* c) const {
  delete static_cast<Want*>(SSL_CTX_get_ex_data(c, ctx_role_index()));
  SSL_CTX_free(c);
}

Result<SpiffeId> parse_spiffe(std::string_view uri) {
  if (!uri.starts_with(kSpiffePrefix))
    return fail("URI SAN \"" + std::string(uri) + "\" is not " + std::string(kSpiffePrefix) + "<role>/<id>");
  std::string_view rest = uri.substr(kSpiffePrefix.size());
  size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == rest.size() ||
      rest.find('/', slash + 1) != std::string_view::npos)
    return fail("URI SAN \"" + std::string(uri) + "\" is not " + std::string(kSpiffePrefix) + "<role>/<id>");
  return SpiffeId{std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
}

Result<SslCtx> make_ctx(const TlsFiles& f, std::string_view peer_role, bool server, std::string_view peer_id) {
  SslCtx ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  if (!ctx) return fail("tls: new context: " + ossl_queue());
  auto err = [](std::string what) { return fail("tls: " + what + ": " + ossl_queue()); };
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION) != 1)
    return err("TLS 1.3 only");
  if (SSL_CTX_load_verify_file(ctx.get(), f.ca.c_str()) != 1) return err("load CA " + f.ca);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), f.cert.c_str()) != 1) return err("load certificate " + f.cert);
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), f.key.c_str(), SSL_FILETYPE_PEM) != 1) return err("load key " + f.key);
  if (SSL_CTX_check_private_key(ctx.get()) != 1) return err("key " + f.key + " does not match " + f.cert);
  SSL_CTX_set_ex_data(ctx.get(), ctx_role_index(), new Want{std::string(peer_role), std::string(peer_id)});
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_cb);
  // No session tickets or resumption: every connection shows its certificate.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  return ctx;
}

std::string refusal(const SSL* ssl) {
  auto* r = static_cast<const std::string*>(SSL_get_ex_data(ssl, ssl_reason_index()));
  return r ? *r : std::string();
}

std::string ssl_error(const SSL* ssl, int ret, std::string_view what) {
  int e = SSL_get_error(ssl, ret);
  std::string s(what);
  std::string why = refusal(ssl);
  if (!why.empty()) return s + ": refused: " + why;
  std::string q = ossl_queue();
  if (e == SSL_ERROR_SYSCALL) return s + ": " + (errno ? std::string(strerror(errno)) : "connection closed") + (q.empty() ? "" : "; " + q);
  if (e == SSL_ERROR_ZERO_RETURN) return s + ": connection closed by peer";
  return s + ": " + (q.empty() ? "TLS error " + std::to_string(e) : q);
}

}  // namespace sh::kms
