// The kernel's list format for CPUs and memory nodes ("0-3,7"): execCPUAffinity and
// memoryPolicy.nodes. Numbers only, ranges low-high, no spaces, each below `limit`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::oci {

// The ids in ascending order, duplicates merged; `path` names the field in errors.
Result<std::vector<unsigned>> parse_id_list(std::string_view text, const std::string& path, unsigned limit = 4096);

}  // namespace sh::oci
