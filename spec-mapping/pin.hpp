// `policy pin`: refresh the SHA-256 pins of a policy's `exec` section (docs/policy.md "exec").
// The rewrite is pure: the caller hashes the files (cmd/sharness-runtime/cmd_policy_pin.cpp opens them
// inside the rootfs); here the document's text keeps everything but the digests that changed,
// so a reviewer's diff shows exactly those, and the result is parsed again and must be the same
// policy with only those pins changed (else it is rewritten from the model instead).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::policy {

struct PinChange {
  std::string path, old_sha256, new_sha256;
};

struct Repinned {
  std::string text;                // the policy document, pins refreshed
  std::string old_hash, new_hash;  // canonical hashes before and after
  std::vector<PinChange> changes;  // in the exec section's order; empty: nothing changed
  size_t pins = 0;                 // how many pins the policy has
};

// `digest(path)` gives the lowercase hex SHA-256 of the file a pin names (or an error naming it).
// A policy without an exec section is an error: there is nothing to pin.
Result<Repinned> repin(std::string_view text, const std::string& origin,
                       const std::function<Result<std::string>(const std::string& path)>& digest);

// One line per change: "/bin/busybox: 3d9f... -> 7ae9...", then what the hash became.
std::string format_changes(const Repinned& r);

}  // namespace sh::policy
