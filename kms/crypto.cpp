#include "kms/crypto.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include <memory>

#include "base/openssl_ptr.hpp"

namespace sh::kms {
namespace {

// "what: <OpenSSL's first queued error>", and the queue emptied.
std::unexpected<Error> ossl_error(std::string what) {
  unsigned long e = ERR_get_error();
  if (e) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    what += ": ";
    what += buf;
  }
  ERR_clear_error();
  return fail(std::move(what));
}

using CipherCtx = ossl::Ptr<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>;
using Pkey = ossl::Ptr<EVP_PKEY, EVP_PKEY_free>;
using PkeyCtx = ossl::Ptr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;

Result<void> check_len(std::span<const uint8_t> b, size_t want, const char* what) {
  if (b.size() != want)
    return fail(std::string(what) + ": expected " + std::to_string(want) + " bytes, got " + std::to_string(b.size()));
  return {};
}

Result<Pkey> x25519_private(std::span<const uint8_t> priv) {
  TRYV(check_len(priv, kKeyLen, "x25519 private key"));
  Pkey k(EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, priv.data(), priv.size()));
  if (!k) return ossl_error("x25519: load private key");
  return k;
}

// ECDH, then HKDF-SHA256 over the shared secret with both public keys as salt.
Result<void> seal_key(std::span<const uint8_t> priv, std::span<const uint8_t> peer_pub,
                      std::span<const uint8_t> epk, std::span<const uint8_t> recipient_pub, std::span<uint8_t> out) {
  TRYV(check_len(peer_pub, kKeyLen, "x25519 public key"));
  Pkey mine = TRY(x25519_private(priv));
  Pkey peer(EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peer_pub.data(), peer_pub.size()));
  if (!peer) return ossl_error("x25519: load public key");
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, mine.get(), nullptr));
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) <= 0 || EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) <= 0)
    return ossl_error("x25519: derive setup");
  ScrubbedKey shared;
  size_t n = shared.k.size();
  // OpenSSL refuses an all-zero result (a low-order public key).
  if (EVP_PKEY_derive(ctx.get(), shared.k.data(), &n) <= 0 || n != kKeyLen) return ossl_error("x25519: derive");
  std::array<uint8_t, 2 * kKeyLen> salt{};
  std::copy(epk.begin(), epk.end(), salt.begin());
  std::copy(recipient_pub.begin(), recipient_pub.end(), salt.begin() + kKeyLen);
  return hkdf_sha256(shared.k, salt, "sharness-kms/v1 seal", out);
}

}  // namespace

void scrub(void* p, size_t n) { OPENSSL_cleanse(p, n); }

std::string to_hex(std::span<const uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s.push_back(d[c >> 4]);
    s.push_back(d[c & 15]);
  }
  return s;
}

Result<Bytes> from_hex(std::string_view hex, size_t want, std::string_view what) {
  if (hex.size() != want * 2)
    return fail(std::string(what) + ": expected " + std::to_string(want * 2) + " hex digits, got " +
                std::to_string(hex.size()));
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes out(want);
  for (size_t i = 0; i < want; ++i) {
    int hi = nib(hex[2 * i]), lo = nib(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return fail(std::string(what) + ": not hex at offset " + std::to_string(2 * i));
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

Result<void> random_bytes(std::span<uint8_t> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) return ossl_error("RAND_bytes");
  return {};
}

Result<void> aes_gcm_encrypt(std::span<const uint8_t> key, std::span<const uint8_t> nonce,
                             std::span<const uint8_t> aad, std::span<const uint8_t> plain, std::span<uint8_t> ct,
                             std::span<uint8_t> tag) {
  TRYV(check_len(key, kKeyLen, "aes-256-gcm key"));
  TRYV(check_len(nonce, kNonceLen, "aes-256-gcm nonce"));
  TRYV(check_len(tag, kTagLen, "aes-256-gcm tag"));
  if (ct.size() != plain.size()) return fail("aes-256-gcm: output size differs from input");
  CipherCtx c(EVP_CIPHER_CTX_new());
  int n = 0;
  if (!c || EVP_EncryptInit_ex2(c.get(), EVP_aes_256_gcm(), key.data(), nonce.data(), nullptr) != 1 ||
      (!aad.empty() && EVP_EncryptUpdate(c.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) ||
      EVP_EncryptUpdate(c.get(), ct.data(), &n, plain.data(), static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(c.get(), ct.data() + n, &n) != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_GET_TAG, kTagLen, tag.data()) != 1)
    return ossl_error("aes-256-gcm encrypt");
  return {};
}

Result<void> aes_gcm_decrypt(std::span<const uint8_t> key, std::span<const uint8_t> nonce,
                             std::span<const uint8_t> aad, std::span<const uint8_t> ct,
                             std::span<const uint8_t> tag, std::span<uint8_t> out) {
  TRYV(check_len(key, kKeyLen, "aes-256-gcm key"));
  TRYV(check_len(nonce, kNonceLen, "aes-256-gcm nonce"));
  TRYV(check_len(tag, kTagLen, "aes-256-gcm tag"));
  if (ct.size() != out.size()) return fail("aes-256-gcm: output size differs from input");
  CipherCtx c(EVP_CIPHER_CTX_new());
  int n = 0;
  if (!c || EVP_DecryptInit_ex2(c.get(), EVP_aes_256_gcm(), key.data(), nonce.data(), nullptr) != 1 ||
      (!aad.empty() && EVP_DecryptUpdate(c.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) ||
      EVP_DecryptUpdate(c.get(), out.data(), &n, ct.data(), static_cast<int>(ct.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_TAG, kTagLen, const_cast<uint8_t*>(tag.data())) != 1)
    return ossl_error("aes-256-gcm decrypt");
  if (EVP_DecryptFinal_ex(c.get(), out.data() + n, &n) != 1) {
    scrub(out.data(), out.size());  // never leave unauthenticated plaintext behind
    ERR_clear_error();
    return fail("aes-256-gcm decrypt: authentication failed");
  }
  return {};
}

Result<void> hkdf_sha256(std::span<const uint8_t> ikm, std::span<const uint8_t> salt, std::string_view info,
                         std::span<uint8_t> out) {
  ossl::Ptr<EVP_KDF, EVP_KDF_free> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  if (!kdf) return ossl_error("hkdf: fetch HKDF");
  ossl::Ptr<EVP_KDF_CTX, EVP_KDF_CTX_free> ctx(EVP_KDF_CTX_new(kdf.get()));
  if (!ctx) return ossl_error("hkdf: new context");
  char digest[] = "SHA256";
  OSSL_PARAM params[5];
  size_t i = 0;
  params[i++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
  params[i++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(ikm.data()), ikm.size());
  if (!salt.empty())
    params[i++] =
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<uint8_t*>(salt.data()), salt.size());
  params[i++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size());
  params[i] = OSSL_PARAM_construct_end();
  // The context copies the key; EVP_KDF_CTX_free clears that copy (OPENSSL_clear_free).
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) return ossl_error("hkdf: derive");
  return {};
}

std::string derive_info(std::string_view vault, std::string_view host, std::string_view op) {
  std::string s = "sharness-kms/v1|";
  s += vault;
  s += '|';
  s += host;
  s += '|';
  s += op;
  return s;
}

Result<void> derive(std::span<const uint8_t> master, std::string_view vault, std::string_view host,
                    std::string_view op, std::span<uint8_t> out) {
  TRYV(check_len(master, kKeyLen, "master key"));
  TRYV(check_len(out, kKeyLen, "derived key"));
  return hkdf_sha256(master, {}, derive_info(vault, host, op), out);
}

Result<X25519Pair> x25519_generate() {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
  if (!k) return ossl_error("x25519: generate");
  X25519Pair p;
  size_t n = kKeyLen;
  if (EVP_PKEY_get_raw_private_key(k.get(), p.priv.k.data(), &n) != 1 || n != kKeyLen)
    return ossl_error("x25519: raw private key");
  n = kKeyLen;
  if (EVP_PKEY_get_raw_public_key(k.get(), p.pub.data(), &n) != 1 || n != kKeyLen)
    return ossl_error("x25519: raw public key");
  return p;
}

Result<Key> x25519_public(std::span<const uint8_t> priv) {
  Pkey k = TRY(x25519_private(priv));
  Key pub{};
  size_t n = kKeyLen;
  if (EVP_PKEY_get_raw_public_key(k.get(), pub.data(), &n) != 1 || n != kKeyLen)
    return ossl_error("x25519: raw public key");
  return pub;
}

Result<Sealed> seal(std::span<const uint8_t> secret, std::span<const uint8_t> recipient_pub, std::string_view aad) {
  if (secret.empty() || secret.size() > kMaxSecretLen)
    return fail("sealed secret: " + std::to_string(secret.size()) + " bytes, expected 1.." + std::to_string(kMaxSecretLen));
  X25519Pair eph = TRY(x25519_generate());  // one per response: never reused
  Sealed s;
  s.epk = eph.pub;
  s.ct.resize(secret.size());
  ScrubbedKey k;
  TRYV(seal_key(eph.priv.k, recipient_pub, eph.pub, recipient_pub, k.k));
  TRYV(random_bytes(s.nonce));
  auto a = std::span(reinterpret_cast<const uint8_t*>(aad.data()), aad.size());
  TRYV(aes_gcm_encrypt(k.k, s.nonce, a, secret, s.ct, s.tag));
  return s;
}

Result<void> open(const Sealed& s, std::span<const uint8_t> recipient_priv, std::string_view aad,
                  std::span<uint8_t> out) {
  if (out.size() != s.ct.size())
    return fail("sealed secret: " + std::to_string(s.ct.size()) + " bytes, expected " + std::to_string(out.size()));
  Key mine = TRY(x25519_public(recipient_priv));
  ScrubbedKey k;
  TRYV(seal_key(recipient_priv, s.epk, s.epk, mine, k.k));
  auto a = std::span(reinterpret_cast<const uint8_t*>(aad.data()), aad.size());
  return aes_gcm_decrypt(k.k, s.nonce, a, s.ct, s.tag, out);
}

}  // namespace sh::kms
