// Small text helpers for the kernel's line-oriented files (/proc, cgroupfs).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sh {

// Words separated by C-locale white space, as `istream >> string` splits them, without building
// a stream (and its locale) per line.
std::vector<std::string> words(std::string_view text);

}  // namespace sh
