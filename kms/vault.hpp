// The sealed vault (docs/kms.md "Vault"): each vault id's 32-byte master key encrypted with
// AES-256-GCM under a key-encryption key (KEK) that only root can read on the host.
//
//   sharness-vault/1
//   kek=<first 8 bytes of SHA-256(KEK), hex>
//   vault=<id> <nonce hex> <ciphertext hex> <tag hex>
//   credential=<id> <nonce hex> <ciphertext hex, 1..8192 bytes> <tag hex>
//   ...
//
// The AAD of each master key is "sharness-vault/1|<id>", of each credential (a static API token
// the egress door injects) "sharness-vault/1|credential|<id>": entries cannot be swapped between
// ids, nor a credential passed off as a master key. One id names one entry of either kind.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "kms/crypto.hpp"

namespace sh::kms {

struct VaultEntry {
  std::string id;
  std::array<uint8_t, kNonceLen> nonce{};
  Key ct{};
  std::array<uint8_t, kTagLen> tag{};
};

// The KEK file: exactly 32 bytes, a regular file owned by root with no group or other
// permission bits (0400/0600). Anything else is refused, naming the path and why.
Result<void> read_kek(const std::string& path, ScrubbedKey& out);
// Make a new KEK file (O_EXCL, mode 0400) from fresh random bytes.
Result<void> create_kek(const std::string& path);
// "kek" line value: identifies the KEK without revealing it.
Result<std::string> kek_id(std::span<const uint8_t> kek);

// Encrypt one master key under the KEK.
Result<VaultEntry> seal_entry(std::span<const uint8_t> kek, std::string_view id, std::span<const uint8_t> master);
struct CredentialEntry {
  std::string id;
  std::array<uint8_t, kNonceLen> nonce{};
  Bytes ct;  // as long as the credential: 1..kMaxSecretLen
  std::array<uint8_t, kTagLen> tag{};
};
// Encrypt one credential under the KEK; refuses an empty one, one longer than kMaxSecretLen, and
// one holding a control character (it goes into a header as it is).
Result<CredentialEntry> seal_credential(std::span<const uint8_t> kek, std::string_view id, std::span<const uint8_t> value);

std::string format_vault(std::string_view kek_id, const std::vector<VaultEntry>& entries,
                         const std::vector<CredentialEntry>& credentials = {});
struct Vault {
  std::string kek_id;
  std::vector<VaultEntry> entries;
  std::vector<CredentialEntry> credentials;
};
Result<Vault> parse_vault(std::string_view text);
// Decrypt an entry straight into `out` (the KMS passes secret memory).
Result<void> open_entry(std::span<const uint8_t> kek, const VaultEntry& e, std::span<uint8_t> out);
// The same for a credential; `out` is exactly e.ct.size() bytes.
Result<void> open_credential(std::span<const uint8_t> kek, const CredentialEntry& e, std::span<uint8_t> out);

}  // namespace sh::kms
