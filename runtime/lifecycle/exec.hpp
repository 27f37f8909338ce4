// exec: run another process in a running container. It joins every namespace and the
// cgroup of the container's init and goes through the same launch sequence (same seccomp
// filters, capabilities, rlimits, no_new_privs), so it is never a way around a bound.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

struct ExecOptions {
  std::string id;
  std::string process_file;        // --process: a process.json; else built from the fields below
  std::vector<std::string> args;
  bool detach = false;
  bool tty = false;
  std::string pid_file, console_socket, cwd;
  std::vector<std::string> env;
  std::string user;                // "uid[:gid]"
  std::vector<std::string> additional_gids;
  std::vector<std::string> caps;   // added to bounding, effective, permitted
  bool no_new_privs = false;
  unsigned preserve_fds = 0;
  std::string cgroup;              // a sub-cgroup of the container's
  bool ignore_paused = false;
  std::string apparmor;            // --apparmor: the profile (only the container's, or one where it has none)
};

// The process to run: from --process, or the container's process with the CLI overrides.
Result<oci::Process> exec_process(const oci::Process& base, const ExecOptions& o);
// Returns the exit code (0 once started with --detach).
Result<int> exec(const Globals& g, const ExecOptions& o);

}  // namespace sh::lifecycle
