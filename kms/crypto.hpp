// The KMS's cryptography, all through OpenSSL 3 EVP (docs/kms.md is the reference):
//   - AES-256-GCM, for the vault's master keys under the key-encryption key (KEK);
//   - HKDF-SHA256, deriving one key per (vault, host, operation) from a vault's master key;
//   - sealing a derived key to the caller's one-time X25519 key: ECDH with an ephemeral KMS
//     key, HKDF-SHA256 over the shared secret, AES-256-GCM with the request as AAD.
// Only base/error (no yajl, no libseccomp): sharness-kms-client links this statically.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::kms {

inline constexpr size_t kKeyLen = 32;    // master, derived, KEK, AES-256 and X25519 keys
inline constexpr size_t kNonceLen = 12;  // AES-GCM nonce
inline constexpr size_t kTagLen = 16;    // AES-GCM tag

using Key = std::array<uint8_t, kKeyLen>;
using Bytes = std::vector<uint8_t>;

// OPENSSL_cleanse, so the compiler cannot drop the wipe of a buffer about to die.
void scrub(void* p, size_t n);
// A byte array that wipes itself when it goes out of scope.
struct ScrubbedKey {
  Key k{};
  ~ScrubbedKey() { scrub(k.data(), k.size()); }
};

std::string to_hex(std::span<const uint8_t> b);
// Exactly `want` bytes of lowercase or uppercase hex; error names `what`.
Result<Bytes> from_hex(std::string_view hex, size_t want, std::string_view what);
Result<void> random_bytes(std::span<uint8_t> out);

// AES-256-GCM. encrypt: out = ciphertext (same length as plain), tag. decrypt into `out`
// (plain.size() == ct.size()); a bad tag is an error ("authentication failed").
Result<void> aes_gcm_encrypt(std::span<const uint8_t> key, std::span<const uint8_t> nonce,
                             std::span<const uint8_t> aad, std::span<const uint8_t> plain,
                             std::span<uint8_t> ct, std::span<uint8_t> tag);
Result<void> aes_gcm_decrypt(std::span<const uint8_t> key, std::span<const uint8_t> nonce,
                             std::span<const uint8_t> aad, std::span<const uint8_t> ct,
                             std::span<const uint8_t> tag, std::span<uint8_t> out);

// HKDF-SHA256 (RFC 5869, extract and expand) into `out`.
Result<void> hkdf_sha256(std::span<const uint8_t> ikm, std::span<const uint8_t> salt,
                         std::string_view info, std::span<uint8_t> out);

// The derivation context of docs/kms.md: "sharness-kms/v1|<vault>|<host>|<op>".
std::string derive_info(std::string_view vault, std::string_view host, std::string_view op);
// The key for one (vault, host, op) from the vault's master key.
Result<void> derive(std::span<const uint8_t> master, std::string_view vault, std::string_view host,
                    std::string_view op, std::span<uint8_t> out);

// An X25519 key pair (private bytes wiped on destruction).
struct X25519Pair {
  ScrubbedKey priv;
  Key pub{};
};
Result<X25519Pair> x25519_generate();
// The public key of a raw private key.
Result<Key> x25519_public(std::span<const uint8_t> priv);

// The longest secret a response carries: a derived key is 32 bytes, a static credential at most
// 8 KiB (JWTs, GitHub app and cloud session tokens run to a few KiB; its hex must fit a response
// of kMaxResponse).
inline constexpr size_t kMaxSecretLen = 8192;

// A derived key or a credential sealed to a caller's one-time public key.
struct Sealed {
  Key epk{};                                  // the KMS's ephemeral public key
  std::array<uint8_t, kNonceLen> nonce{};
  Bytes ct;                                   // as long as the secret
  std::array<uint8_t, kTagLen> tag{};
};
// Seal `secret` (1..kMaxSecretLen bytes) to `recipient_pub`, binding `aad` (the request and its expiry).
Result<Sealed> seal(std::span<const uint8_t> secret, std::span<const uint8_t> recipient_pub, std::string_view aad);
// Open with the one-time private key into `out` (exactly as long as the ciphertext); fails ("authentication failed") for any other key,
// another aad, or a modified message.
Result<void> open(const Sealed& s, std::span<const uint8_t> recipient_priv, std::string_view aad,
                  std::span<uint8_t> out);

}  // namespace sh::kms
