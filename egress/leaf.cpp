#include "egress/leaf.hpp"

#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "base/file.hpp"
#include "egress/http.hpp"
#include "spec-mapping/egress_host.hpp"

namespace sh::egress {
namespace {

constexpr size_t kMaxCached = 256;  // names; a wildcard rule could otherwise grow it without end

Result<void> add_ext(X509* issuer, X509* cert, int nid, const std::string& value) {
  X509V3_CTX c;
  X509V3_set_ctx_nodb(&c);
  X509V3_set_ctx(&c, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &c, nid, value.c_str());
  if (!ext) return fail(std::string("leaf extension ") + OBJ_nid2sn(nid) + ": " + tls::errors());
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (!ok) return fail(std::string("leaf extension ") + OBJ_nid2sn(nid) + ": " + tls::errors());
  return {};
}

// The host the session was made for rides on the SSL object, for the SNI callback.
int check_sni(SSL* ssl, int* alert, void*) {
  auto* host = static_cast<const std::string*>(SSL_get_app_data(ssl));
  const char* sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  std::string s = lower_case(sni ? sni : "");
  // A name needs its SNI; an address has none (clients send no SNI for an address literal).
  bool ok = host && (policy::is_address(*host) ? (s.empty() || s == *host) : s == *host);
  if (ok) return SSL_TLSEXT_ERR_OK;
  *alert = SSL_AD_UNRECOGNIZED_NAME;
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

int alpn_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* sel = nullptr;
  if (SSL_select_next_proto(&sel, outlen, kHttp11, sizeof kHttp11, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;  // no ALPN: HTTP/1.1 all the same, and an h2 preface is refused
  *out = sel;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

Result<std::unique_ptr<LeafMint>> LeafMint::load(const std::string& ca_cert, const std::string& ca_key) {
  std::unique_ptr<LeafMint> mp(new LeafMint);
  LeafMint& m = *mp;
  m.ca_ = TRY(identity::cert_from_pem(TRY(read_file(ca_cert, 64 * 1024)), "CA certificate " + ca_cert));
  std::string key = TRY(read_file(ca_key, 64 * 1024));
  auto k = identity::key_from_pem(key, "CA key " + ca_key);
  OPENSSL_cleanse(key.data(), key.size());
  m.ca_key_ = TRY(std::move(k));
  if (X509_check_private_key(m.ca_.get(), m.ca_key_.get()) != 1) return fail("CA key " + ca_key + " is not the key of " + ca_cert);
  m.leaf_key_ = identity::Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!m.leaf_key_) return fail("generate the leaves' P-256 key: " + tls::errors());
  m.ctx_ = tls::Ctx(SSL_CTX_new(TLS_server_method()));
  if (!m.ctx_ || !SSL_CTX_set_min_proto_version(m.ctx_.get(), TLS1_2_VERSION))
    return fail("server TLS context: " + tls::errors());
  SSL_CTX_set_options(m.ctx_.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(m.ctx_.get(), SSL_MODE_RELEASE_BUFFERS);  // an idle connection holds no 34 KiB of buffers
  // A record's header and body in one read, and a flight's records too: half the read syscalls.
  // The client's bytes before the handshake were read by the door's own buffer and must be none.
  SSL_CTX_set_read_ahead(m.ctx_.get(), 1);
  SSL_CTX_set_session_cache_mode(m.ctx_.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(m.ctx_.get(), 0);
  SSL_CTX_set_tlsext_servername_callback(m.ctx_.get(), check_sni);
  SSL_CTX_set_alpn_select_cb(m.ctx_.get(), alpn_http11, nullptr);
  return mp;
}

Result<identity::Cert> LeafMint::leaf(const std::string& host) {
  std::lock_guard lock(mu_);
  auto shared = [](X509* x) {
    X509_up_ref(x);
    return identity::Cert(x);
  };
  time_t now = ::time(nullptr);
  if (auto it = cache_.find(host); it != cache_.end() && it->second.not_after - now > 3600) return shared(it->second.cert.get());
  if (cache_.size() >= kMaxCached) cache_.clear();
  identity::Cert c(X509_new());
  if (!c) return fail("X509_new: " + tls::errors());
  X509_set_version(c.get(), X509_VERSION_3);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return fail("leaf serial: " + tls::errors());
  serial[0] = (serial[0] & 0x7f) | 0x40;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  bool ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get()));
  BN_free(bn);
  if (!ok) return fail("leaf serial: " + tls::errors());
  if (!X509_time_adj_ex(X509_getm_notBefore(c.get()), 0, -60, &now) ||
      !X509_time_adj_ex(X509_getm_notAfter(c.get()), 0, long(kLeafSeconds), &now))
    return fail("leaf validity: " + tls::errors());
  // CN only when it fits (64 bytes); the SAN is what clients check.
  if (host.size() <= 64 &&
      !X509_NAME_add_entry_by_txt(X509_get_subject_name(c.get()), "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(host.c_str()), -1, -1, 0))
    return fail("leaf subject: " + tls::errors());
  X509_set_issuer_name(c.get(), X509_get_subject_name(ca_.get()));
  if (!X509_set_pubkey(c.get(), leaf_key_.get())) return fail("leaf public key: " + tls::errors());
  TRYV(add_ext(ca_.get(), c.get(), NID_subject_alt_name, (policy::is_address(host) ? "IP:" : "DNS:") + host));
  TRYV(add_ext(ca_.get(), c.get(), NID_basic_constraints, "critical,CA:FALSE"));
  TRYV(add_ext(ca_.get(), c.get(), NID_key_usage, "critical,digitalSignature"));
  TRYV(add_ext(ca_.get(), c.get(), NID_ext_key_usage, "serverAuth"));
  TRYV(add_ext(ca_.get(), c.get(), NID_subject_key_identifier, "hash"));
  TRYV(add_ext(ca_.get(), c.get(), NID_authority_key_identifier, "keyid"));
  // Ed25519 and Ed448 sign the message itself; other keys with SHA-256.
  int type = EVP_PKEY_get_base_id(ca_key_.get());
  const EVP_MD* md = type == EVP_PKEY_ED25519 || type == EVP_PKEY_ED448 ? nullptr : EVP_sha256();
  if (X509_sign(c.get(), ca_key_.get(), md) <= 0) return fail("sign the leaf for " + host + ": " + tls::errors());
  auto& e = cache_[host];
  e.cert = std::move(c);
  e.not_after = now + kLeafSeconds;
  return shared(e.cert.get());
}

Result<tls::Ssl> LeafMint::session(const std::string& host, int fd) {
  identity::Cert cert = TRY(leaf(host));
  tls::Ssl ssl(SSL_new(ctx_.get()));
  if (!ssl || SSL_use_certificate(ssl.get(), cert.get()) != 1 || SSL_use_PrivateKey(ssl.get(), leaf_key_.get()) != 1 ||
      SSL_add1_chain_cert(ssl.get(), ca_.get()) != 1 || SSL_set_fd(ssl.get(), fd) != 1)
    return fail("server TLS session for " + host + ": " + tls::errors());
  return ssl;
}

Result<void> LeafMint::accept(SSL* ssl, const std::string& host) {
  SSL_set_app_data(ssl, const_cast<std::string*>(&host));
  int r = SSL_accept(ssl);
  const char* sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (r != 1) {
    std::string why = tls::io_error(ssl, r, "TLS handshake");
    if (sni) why += " (SNI \"" + std::string(sni).substr(0, 253) + "\", CONNECT to \"" + host + "\")";
    return fail(why);
  }
  // Once more after the handshake, whatever the callback saw.
  std::string s = lower_case(sni ? sni : "");
  if (policy::is_address(host) ? !(s.empty() || s == host) : s != host)
    return fail("SNI \"" + s + "\" is not the CONNECT host \"" + host + "\"");
  return {};
}

}  // namespace sh::egress
