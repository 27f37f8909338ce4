// Where a container process's memory and CPUs come from, set right before execve:
// linux.memoryPolicy (set_mempolicy(2), runtime-spec 1.3) and process.execCPUAffinity
// (sched_setaffinity(2), runtime-spec 1.2). Both survive execve.
#pragma once
#include <optional>
#include <string>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::procattr {

// The thread's policy from linux.memoryPolicy (validated names); errors name the field.
Result<void> apply_memory_policy(const oci::MemoryPolicy& m);
// The CPUs `cpus` (a list such as "0-1,3"); without a list, every CPU the cgroup's cpuset
// allows (undoes an `initial` affinity that was only for the runtime's part). `path` names the field.
Result<void> apply_cpu_affinity(const std::optional<std::string>& cpus, const std::string& path);

}  // namespace sh::procattr
