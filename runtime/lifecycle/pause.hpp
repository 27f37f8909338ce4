// pause / resume: freeze or thaw every process of a running / paused container.
#pragma once
#include <string>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

Result<void> pause(const Globals& g, const std::string& id);
Result<void> resume(const Globals& g, const std::string& id);

}  // namespace sh::lifecycle
