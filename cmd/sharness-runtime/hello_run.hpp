// What hello's runs share (hello.cpp makes them; hello_workload.cpp runs a workload's attempts
// with them): the scratch directory that removes itself, and running the runtime as a user would.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "cmd/sharness-runtime/hello.hpp"
#include "runtime/lifecycle/runtime_config.hpp"

namespace sh::lifecycle::hello::detail {

Result<std::string> self_exe();
// A policy by NAME (the policy dirs, then the shipped ones beside the binary) or PATH.
Result<std::string> resolve_policy(const std::string& name, const RuntimeConfig& rc, const std::string& exe);
// Start argv[0] with stdin /dev/null, stdout and stderr to files, and no other fd.
Result<pid_t> spawn(const std::vector<std::string>& argv, const std::string& out, const std::string& err);
int wait_exit(pid_t pid);

using Clock = std::chrono::steady_clock;
struct Job {
  std::string id, out, err;
  pid_t pid = -1;
  Clock::time_point t0;
};
// `run --bundle BUNDLE ID` with `base` (the binary and its global flags), output in DIR/ID.out|err;
// `keep`: `run --keep`, for a state to read after the container exited (then delete it).
Result<Job> start_job(const std::vector<std::string>& base, const std::string& bundle, const std::string& id,
                      const std::string& dir, bool keep = false);
RunResult finish_job(const Job& j);

// hello's temporary directory, state --root and cgroup parent: every container deleted, the
// cgroup parent and the directory removed when it goes (unless keep).
struct Scratch {
  std::string dir, exe, state, cgparent;
  std::vector<std::string> ids;
  bool keep = false;
  // The directory (under $TMPDIR, else /tmp), its state dir and the cgroup parent's name.
  Result<void> make(const std::string& binary, bool keep_it);
  ~Scratch();
};
// As a child subreaper, reap the double-forked watchdogs (at most `budget`).
void reap_all(std::chrono::milliseconds budget);

}  // namespace sh::lifecycle::hello::detail
