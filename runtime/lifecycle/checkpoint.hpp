// checkpoint and restore through CRIU (runtime/linux/criu.hpp), with runc's flags. A restored
// container is made by create's own steps (the policy, the floor, the uid claim, the cgroup, the
// watchdog), with CRIU bringing its processes back where create would clone3 init; what CRIU cannot
// carry is refused at checkpoint (checkpoint_image.hpp). docs/checkpoint.md has the whole story.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

// What both commands take of CRIU's options.
struct CriuFlags {
  std::string image_path;  // default: ./checkpoint
  std::string work_path;   // CRIU's logs; default: the image path
  std::string manage_cgroups_mode;  // soft, full, strict, ignore ("": CRIU's default)
  std::vector<std::string> empty_ns;  // namespace types whose contents CRIU leaves alone ("network")
  bool tcp_established = false, ext_unix_sk = false, shell_job = false, file_locks = false, auto_dedup = false;
};

struct CheckpointOptions {
  std::string id;
  CriuFlags criu;
  std::string parent_path;  // a previous --pre-dump's image path, relative to the image path
  bool leave_running = false;
  bool pre_dump = false;
};
// Dumps the container into the image directory (made 0700 if it is missing). Unless
// --leave-running or --pre-dump, the container is gone afterwards, as after `delete`.
Result<void> checkpoint(const Globals& g, const CheckpointOptions& o);

struct RestoreOptions {
  CreateOptions create;  // id, bundle, pid file, console socket
  CriuFlags criu;
  bool detach = false;
  bool no_subreaper = false;
};
// Makes the container from the bundle as create does and restores its processes from the image;
// `running`. Unless detached, waits for it as `run` does and returns its exit code.
Result<int> restore(const Globals& g, const RestoreOptions& o);

}  // namespace sh::lifecycle
