// The gate's handle on the worker's freezer: the state files are opened once, as root, so
// the gate keeps freezing and thawing after it dropped every privilege (a cgroup file is
// checked at open, not at write). v1: freezer.state (FROZEN passes through FREEZING, so it
// is rewritten until it sticks, as the kernel's freezer-subsystem.rst says); v2:
// cgroup.freeze, and cgroup.events says when "frozen 1" took effect.
#pragma once
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "runtime/linux/cgroups.hpp"

namespace sh::kms {

class Freezer {
 public:
  static Result<Freezer> open(const cgroups::Cgroup& cg);
  // Freeze or thaw and wait until the kernel reports it; returns the time it took (ms).
  Result<double> set(bool frozen);
  bool v2() const { return v2_; }
  const std::string& path() const { return path_; }

 private:
  Fd state_, events_;  // v1: freezer.state; v2: cgroup.freeze + cgroup.events
  bool v2_ = false;
  std::string path_;
};

}  // namespace sh::kms
