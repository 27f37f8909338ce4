// `sharness-kms seal --kek FILE --out VAULT [--credential ID=FILE]... ID[=KEYFILE]...` (see seal_cli.cpp).
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::kms {

inline constexpr const char* kSealUsage = "kms seal --kek FILE --out VAULT [--credential ID=FILE]... ID[=KEYFILE]...";

// args[from..]: the flags and vault ids after "seal".
Result<int> seal_command(const std::vector<std::string>& args, size_t from);

}  // namespace sh::kms
