// Capability names <-> numbers, from libcap's name table (compiled in: nothing here asks the
// kernel). What this kernel supports (caps::last_cap) and applying the sets are in
// runtime/linux/capabilities.hpp.
#pragma once
#include <string>

#include "base/error.hpp"

namespace sh::caps {

// "CAP_KILL" -> 5 (any case). Unknown names: error naming the capability.
Result<int> parse(const std::string& name);
// 5 -> "CAP_KILL" (upper case, as configs spell it).
std::string name(int cap);

}  // namespace sh::caps
