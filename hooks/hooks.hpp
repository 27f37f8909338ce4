// OCI hooks: run each in order with the state JSON on stdin, its args/env, and its timeout.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::hooks {

// Run hooks of one kind in order; the first failure stops and is returned as
// "<kind> hook <path>: exited with status N: <stderr tail>" (or killed by timeout).
Result<void> run(const std::vector<oci::Hook>& hooks, const std::string& kind, const std::string& state_json);

// Hooks whose failure is a warning (poststart, poststop: runtime-spec "the runtime MUST log a
// warning, but the remaining hooks and lifecycle continue as if the hook had succeeded"): run
// every one, log each failure as a warning. Returns how many failed.
size_t run_warn(const std::vector<oci::Hook>& hooks, const std::string& kind, const std::string& state_json);

// One of our own helper binaries (sharness-edge, sharness-kms) run the same way, with `args`
// after argv[0], an empty environment, nothing on stdin, a 60 s timeout, and its stdout kept with
// its stderr: both are shown only if it fails.
Result<void> run_helper(const std::string& path, const std::vector<std::string>& args);

}  // namespace sh::hooks
