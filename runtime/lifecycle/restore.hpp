// restore's half inside create_container (create.cpp): where create clone3s init, restore has CRIU
// bring the container's processes back from the image, into the cgroup create made.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>

#include "base/error.hpp"
#include "runtime/lifecycle/checkpoint_image.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/criu_request.hpp"
#include "runtime/linux/cgroups.hpp"

namespace sh::lifecycle {

struct Restoring {
  std::string criu;     // the binary (--criu)
  ImageDirs dirs;
  ImageRecord image;    // sharness.json; an image without one (runc's) is taken without a policy
  criu::Options options;  // from the flags: the images, the log, CRIU's switches
};

// What create hands the restore step.
struct RestoreHost {
  const oci::Config& config;
  const std::string& bundle;
  const std::string& rootfs;
  const ContainerDir& dir;
  // The container's cgroup, given CRIU's pid (a systemd scope is made with it in): empty without one.
  std::function<Result<const cgroups::Cgroup*>(pid_t)> adopt;
  std::function<Result<void>(pid_t)> hooks;  // prestart and createRuntime, once the namespaces exist
};
// The restored init, our child (CRIU restores it as its sibling).
Result<Launched> restore_processes(const Restoring& r, const RestoreHost& h);

}  // namespace sh::lifecycle
