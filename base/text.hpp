// Small text helpers for the kernel's line-oriented files (/proc, cgroupfs) and numeric arguments.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh {

// Words separated by C-locale white space, as `istream >> string` splits them, without building
// a stream (and its locale) per line.
std::vector<std::string> words(std::string_view text);

// A decimal uid or gid (0..4294967295); `what` names it in the error ("invalid user \"x\"").
Result<uint32_t> parse_id(const std::string& s, const char* what);

}  // namespace sh
