// The GNU build id of the running program: caches keyed on it (compiled seccomp filters,
// prepared policies) are never served to another build of the runtime.
#pragma once
#include <string>

namespace sh {

// The raw bytes of NT_GNU_BUILD_ID, read once from our own program headers (no file access);
// "" for a binary linked without one.
const std::string& build_id();

}  // namespace sh
