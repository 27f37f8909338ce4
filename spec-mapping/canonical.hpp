// The canonical form of a policy document and its hash. Canonical JSON here means: object
// keys sorted by their UTF-8 bytes, no insignificant white space, strings re-escaped the one
// way yajl writes them, numbers exactly as written in the source (no float round trip). So
// re-indenting or re-ordering a file keeps its hash; changing any value changes it.
#pragma once
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::policy {

// Canonical text of a parsed value. Fails on an object with a duplicate key (its meaning
// would depend on the reader).
Result<std::string> canonical_json(const json::Value& v);
// Parse then canonicalize; `origin` prefixes errors.
Result<std::string> canonicalize(std::string_view text, const std::string& origin);
// Lowercase hex SHA-256 (OpenSSL).
Result<std::string> sha256_hex(std::string_view data);
// sha256_hex(canonicalize(text)): the policy hash.
Result<std::string> policy_hash(std::string_view text, const std::string& origin = "policy.json");

}  // namespace sh::policy
