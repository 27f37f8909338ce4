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
inline constexpr size_t kMaxMessage = 1024;  // bytes, request or response
inline constexpr size_t kMaxName = 253;      // a vault id, host or operation (a DNS name's length)

struct Request {
  std::string vault, host, op;
  uint64_t ttl = 0;  // seconds the caller wants the key for
  Key pub{};         // the caller's one-time X25519 public key
};

// "sharness-kms/1 derive\nvault=V\nhost=H\nop=O\nttl=T\npub=HEX\n\n"
std::string format_request(const Request& r);
// Errors name the line or field: `request: field "vault": character '/' not allowed`.
Result<Request> parse_request(std::string_view text);

struct Response {
  bool ok = false;
  std::string reason;    // when refused
  uint64_t expires = 0;  // unix seconds; bound into the seal's AAD
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

// A name is 1..253 bytes of [A-Za-z0-9._:-] (hosts may carry a port).
Result<void> check_name(std::string_view field, std::string_view v);

}  // namespace sh::kms
