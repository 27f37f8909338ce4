// SHA-256 for policy hashes and pinned binaries (OpenSSL; see sha256.cpp for which API and why).
#pragma once
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sh {

// Lowercase hex digest of `data`.
std::string sha256_hex(std::string_view data);
// Lowercase hex digest of everything readable from `fd` (from its current offset); `what` names
// the file in errors.
Result<std::string> sha256_hex_fd(int fd, const std::string& what);

}  // namespace sh
