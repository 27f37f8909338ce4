// Signal names as runc accepts them: a number, "KILL", "SIGKILL", any case.
#pragma once
#include <string_view>

#include "base/error.hpp"

namespace sh::signals {
Result<int> parse(std::string_view s);
}
