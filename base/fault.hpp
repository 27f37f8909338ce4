// Fault injection for the fault suite (conformance/suites/faults.sh): fault::point("create.cgroup")
// kills this process with SIGKILL, as an OOM kill or a crash would, when the environment
// variable SHARNESS_FAULT names that step, so the suite can check that `delete --force`
// cleans up after a runtime that died there.
//
// Only the test binary sharness-runtime-faulty honours it: it links its own copy of
// base/fault.cpp built with SHARNESS_FAULT_INJECTION (CMake option, on by default; that
// object overrides the one in libsharness_core.a). In sharness-runtime, point() does nothing
// and SHARNESS_FAULT is never read.
#pragma once

namespace sh::fault {

void point(const char* step);

}  // namespace sh::fault
