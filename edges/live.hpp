// Revocation of edge leaves (docs/edges.md "Revocation"): the live registry. A leaf
// is accepted by a proxy, on either end of an edge, only while it is registered here:
//
//   <root>/.edges/.live/                   0755, owned by the runtime (root): the registry
//   <root>/.edges/.live/<name>/            0755: one per leaf holder (a container id, or the
//                                          --name of `ca issue`)
//   <root>/.edges/.live/<name>/<sha256>    an empty file, 0644: this leaf (the SHA-256 of its
//                                          DER, identity::fingerprint) is live
//
// `create` registers the container's leaf, a renewal registers the new one and then removes the
// old, the container's init exiting and `delete` remove the holder's directory. The name is the
// record: a proxy, which may open no file, checks a leaf with one O_PATH open and one stat,
// relative to a directory fd it opened before its sandbox. Only the runtime writes here (the
// directory is never mounted into a container, and the proxies run under uids of their own);
// whatever cannot be checked is refused: an allowlist fails closed.
//
// No X.509 here: the runtime binary (create, delete) uses it too.
#pragma once
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::edges::live {

// <root>/.edges/.live (".live" cannot be a role: a role starts with a letter or a digit).
std::string registry_dir(const std::string& state_root);

// The registry of `state_root`, for a proxy: never created here; an error unless it is a
// directory owned by this process's euid that no one else can write.
Result<Fd> open_registry(const std::string& state_root);

// A holder name as the registry takes it: 1-200 bytes, no '/' or NUL, not "." or "..".
Result<void> validate_name(std::string_view name);
// A fingerprint as the registry takes it: 64 lowercase hex digits.
Result<void> validate_fingerprint(std::string_view fp);

// Register leaf `fp` of `name` live (the registry and the holder's directory are made as needed).
Result<void> add(const std::string& state_root, std::string_view name, std::string_view fp);
Result<void> add_at(int registry, std::string_view name, std::string_view fp);

// Revoke every leaf of `name` but `keep` (a renewal: the new leaf stays).
Result<void> revoke_others_at(int registry, std::string_view name, std::string_view keep);

// Revoke every leaf of `name`: its directory goes. Idempotent; a missing registry, or a name the
// registry does not take (so nothing is registered under it), is no error.
Result<void> revoke(const std::string& state_root, std::string_view name);
Result<void> revoke_at(int registry, std::string_view name);

// Is leaf `fp` of `name` live? An error (saying why) unless its entry is there and a regular
// file: a revoked leaf, a bad name, an unreadable registry are all refusals. `revoked`, when
// given, tells a leaf that is simply not registered (ENOENT) from the other failures.
Result<void> check(int registry, std::string_view name, std::string_view fp, bool* revoked = nullptr);

}  // namespace sh::edges::live
