// The KMS wire protocol (docs/kms.md): one request and one response per connection, each a
// few "key=value" lines after a version line, ended by an empty line. Text, so that a capture
// can be read, and strict, so that a request has exactly one meaning: every field once, no
// unknown field, names from a small alphabet, a bounded size.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "kms/crypto.hpp"

namespace sh::kms {

inline constexpr std::string_view kVersionLine = "sharness-kms/1";
// A request names a vault, a host, an operation and a key: small, and it comes from any peer
// that completes the handshake, so the gate reads at most this.
inline constexpr size_t kMaxRequest = 1024;
// A response carries at most one sealed secret, in hex, and a few short fields.
inline constexpr size_t kMaxResponse = 2 * kMaxSecretLen + 1024;
inline constexpr size_t kMaxName = 253;      // a vault id, host or operation (a DNS name's length)

// derive: a key derived for (vault, host, op), asked by the workload (only when the policy says
// secrets.workloadMayAsk). credential: a static credential (an API token) the vault holds for
// a host of the egress rules, asked by the container's egress door only.
enum class Kind { derive, credential };

struct Request {
  Kind kind = Kind::derive;
  std::string vault, host, op;  // op: derive only
  uint64_t ttl = 0;  // seconds the caller wants the key for (derive only)
  Key pub{};         // the caller's one-time X25519 public key
};

// "sharness-kms/1 derive\nvault=V\nhost=H\nop=O\nttl=T\npub=HEX\n\n"
// "sharness-kms/1 credential\nvault=V\nhost=H\npub=HEX\n\n" (H as the egress rule has it: a
// name, or "*." and a name)
std::string format_request(const Request& r);
// Errors name the line or field: `request: field "vault": character '/' not allowed`.
Result<Request> parse_request(std::string_view text);

struct Response {
  bool ok = false;
  std::string reason;    // when refused
  uint64_t expires = 0;  // unix seconds (a credential: when it was released); bound into the seal's AAD
  Sealed sealed;
};
std::string format_response(const Response& r);
Result<Response> parse_response(std::string_view text);

// What the seal binds: the whole request and the expiry, so a response opens only for the
// request it answers (and only with that request's one-time private key).
std::string response_aad(const Request& r, uint64_t expires);

// The policy's allowlists, as the KMS enforces them.
struct Allowlist {
  std::vector<std::string> vaults, hosts, ops;
  uint64_t max_ttl = 0;  // seconds
};
// Refusal reason naming the field: `vault "payroll" is not allowed`.
Result<void> check(const Allowlist& a, const Request& r);

// A credential the egress rules tie to a host: the only (vault, host) pairs the door may ask for.
struct CredentialGrant {
  std::string vault, host;
  bool operator==(const CredentialGrant&) const = default;
};
Result<void> check_credential(const std::vector<CredentialGrant>& grants, const Request& r);

// A name is 1..253 bytes of [A-Za-z0-9._:-] (hosts may carry a port).
Result<void> check_name(std::string_view field, std::string_view v);
// An egress rule's host: a name, or "*." then a name.
Result<void> check_host_pattern(std::string_view field, std::string_view v);

}  // namespace sh::kms
