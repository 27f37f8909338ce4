// The container lifecycle library. Each CLI command calls one function here.
#pragma once
#include <sys/types.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"
#include "oci/state.hpp"
#include "runtime/lifecycle/state_store.hpp"

namespace sh::policy {
struct Policy;
}

namespace sh::lifecycle {

struct Sidecar;    // sidecar.hpp
struct Restoring;  // restore.hpp: an image CRIU brings the processes back from

// Global flags every command sees, and the sidecars the front door plugged in.
struct Globals {
  std::string root = "/run/sharness";
  bool systemd_cgroup = false;
  std::string rootless = "auto";
  std::string policy;       // --policy NAME|PATH: the operator's floor
  std::string config_path;  // --config FILE (default /etc/sharness/runtime.json)
  std::span<const Sidecar* const> sidecars;  // what a policy may start beside a container, in order
  std::string criu = "criu";  // --criu: CRIU's binary, a path or a name in PATH
};

enum class Status { creating, created, running, paused, stopped };
const char* status_name(Status s);

struct CreateOptions {
  std::string id;
  std::string bundle;          // default: cwd
  std::string pid_file;
  std::string console_socket;
  int console_fd = -1;         // instead of a socket path: run proxies the pty itself
  bool no_pivot = false;
  bool no_new_keyring = false;
  unsigned preserve_fds = 0;
  // run and policy learn start at once, still under create's lock: init then takes `start` over
  // the sync socket it already has (Created::init_sock) and no start.sock is made.
  bool start_at_once = false;
  const Restoring* restoring = nullptr;  // restore: CRIU brings the processes back instead of clone3
  // run in the foreground: the denials reader is handed back (Created::denials) for run to read
  // while it waits for init, instead of forking a reader process (denial_reader.hpp).
  bool own_denials = false;
  // policy learn (learn.hpp): record the run with the recording filter, loaded after every other
  // bound, under `learn_floor` (--from without the sections being learned) instead of --policy.
  bool learn = false;
  std::shared_ptr<const policy::Policy> learn_floor;  // null: no floor at all
};

// A loaded bundle: the parsed config, the bundle and rootfs paths, the raw config text.
struct Bundle {
  std::string path;    // absolute
  std::string rootfs;  // absolute
  std::string config_text;
  oci::Config config;
};
Result<Bundle> load_bundle(const std::string& dir);

// The init process left running (for run: the runtime stays its parent).
struct Launched {
  pid_t pid = 0;
  Fd pidfd;
};

Result<Launched> create(const Globals& g, const CreateOptions& o);
Result<void> start(const Globals& g, const std::string& id);
// create + start; unless detach, wait and return the exit code (128+signal if killed).
Result<int> run(const Globals& g, const CreateOptions& o, bool detach, bool keep);
Result<void> kill(const Globals& g, const std::string& id, int sig, bool all);
Result<void> remove(const Globals& g, const std::string& id, bool force);
Result<oci::State> state(const Globals& g, const std::string& id);
Result<std::vector<oci::State>> list(const Globals& g);

// Internal helpers shared by the commands.
Status status_of(const Record& r);
// A pidfd of the record's init, empty when that process is gone (or its pid was recycled):
// its readiness says the container stopped.
Fd init_pidfd(const Record& r);
oci::State to_state(const Record& r, Status s);

}  // namespace sh::lifecycle
