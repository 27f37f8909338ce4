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
#include "spec-mapping/policy.hpp"

namespace sh::policy {

struct PinChange {
  std::string path, old_sha256, new_sha256;
  std::string new_path;  // the canonical path the pin moved to; empty: it stayed
};

struct Repinned {
  std::string text;                // the policy document, pins refreshed
  std::string old_hash, new_hash;  // canonical hashes before and after
  std::vector<PinChange> changes;  // in the exec section's order; empty: nothing changed
  size_t pins = 0;                 // how many pins the policy has
};

// `look(path)` gives the pin of the file a pin names now: its path (the canonical one when a
// symlink was on the way, which moves the pin) and its lowercase hex SHA-256, or an error naming
// it. Two pins that come to name one file become one. A policy without an exec section is an
// error: there is nothing to pin.
Result<Repinned> repin(std::string_view text, const std::string& origin,
                       const std::function<Result<Pin>(const std::string& path)>& look);

// One line per change: "/bin/busybox: 3d9f... -> 7ae9..." (or "/bin/sh -> /usr/bin/dash: ..."
// when it moved), then what the hash became.
std::string format_changes(const Repinned& r);

}  // namespace sh::policy
