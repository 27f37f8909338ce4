// Pieces shared between lifecycle commands (not part of the public API).
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "oci/config.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/denial_reader.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/lifecycle/state_store.hpp"
#include "runtime/linux/cgroups.hpp"

namespace sh::lifecycle {

Result<oci::Config> load_saved_config(const ContainerDir& dir);
// A config's poststart hooks and what their failure means: a warning (runtime-spec 1.0.2 to
// 1.2), or an error that stops the container (`fatal`: an ociVersion of 1.3 or later).
struct Poststart {
  std::vector<oci::Hook> hooks;
  bool fatal = false;
};
Poststart poststart_of(oci::Config& c);  // moves the hooks out of c
// start with the container's dir already locked (run uses it right after create). run passes
// the poststart hooks of the config it has in memory; without them the saved config is read
// if the record says it has poststart hooks.
// `learning` (policy learn): called with init's announcement of its recording listener (the
// fd's number), before init can go on to execve. `init_sock`: the sync socket of a create with
// start_at_once, where `start` goes instead of start.sock.
using ListenerHook = std::function<Result<void>(const std::string& fd_number)>;
Result<void> start_locked(ContainerDir& dir, Record& rec, const Poststart* poststart = nullptr,
                          const ListenerHook* learning = nullptr, int init_sock = -1);
// create, for run: the bundle it already loaded (or none), and what start needs afterwards:
// the container's dir still locked, its record, the config's poststart hooks; and the denials
// reader when CreateOptions::own_denials asked for it and the container has a record.
struct Created {
  Launched launched;
  ContainerDir dir;
  Record rec;
  Poststart poststart;
  Fd init_sock;  // CreateOptions::start_at_once: the sync socket init waits for `start` on
  std::optional<DenialReader> denials;
};
Result<Created> create_container(const Globals& g, const CreateOptions& o, std::optional<Bundle> loaded);
// The one undo of a container, for `delete` and for a create that failed, in this order:
//   stop init -> remove the cgroup -> run the poststop hooks -> release the throwaway uid ->
//   unprovision the sidecars, last first -> remove the state dir.
// delete stops at the first failure (it can be run again); a failed create's undo runs every step.
struct Teardown {
  bool create_failed = false;
  pid_t child = 0;  // create: init, its unreaped child (0 before clone3 or once reaped)
  // create: the hooks to run as poststop, once prestart/createRuntime hooks may have started
  // something (the sidecars): nullptr before. delete runs the saved config's.
  const std::vector<oci::Hook>* poststop = nullptr;
};
Result<void> tear_down(Sidecars sidecars, ContainerDir& dir, const Record& rec, const Teardown& how);
// SIGKILL the container's init and wait (at most 5 s) until it is gone.
void stop_init(const Record& rec);
// Write a pid file atomically (temp file + rename).
Result<void> write_pid_file(const std::string& path, pid_t pid);
// A wait status as a shell reports it: the exit code, or 128+signal when killed.
int exit_code(int wait_status);
// A wait status in words: "exit code 1", "killed by signal 9 (Killed)".
std::string describe_wait_status(int wait_status);
// Wait for a child we launched, forwarding the signals a user sends us; returns its exit
// code (128+signal when killed). `denials`: a container's reader, read while we wait.
Result<int> wait_forwarding(const Launched& l, DenialReader* denials = nullptr);

// A container that has processes (rules::has_processes), for an operation on its cgroup: its
// locked (or not) dir, its record and status (live.cpp).
struct Live {
  ContainerDir dir;
  Record rec;
  Status status;
};
Result<Live> open_live(const Globals& g, const std::string& id, Lock lock);
// The cgroup of a container's record; fails for one without a cgroup.
Result<cgroups::Cgroup> live_cgroup(const Record& r);

}  // namespace sh::lifecycle
