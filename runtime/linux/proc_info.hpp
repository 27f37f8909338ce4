// What /proc says about a process: its state letter, comm and start time. The start time
// (clock ticks since boot, field 22 of /proc/<pid>/stat) pins a pid to one process, so a
// recycled pid is never taken for the container's init. And its mounts: the one parser of
// /proc/<pid>/mountinfo (the cgroup layout and rootfs both read it).
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::proc {

struct Stat {
  char state = '?';  // R S D Z T X ...
  std::string comm;
  uint64_t start_time = 0;
};

// nullopt when the process does not exist.
std::optional<Stat> stat(pid_t pid);
// Parse the text of /proc/<pid>/stat (comm may hold spaces and parentheses).
std::optional<Stat> parse_stat(std::string_view text);
// True when pid exists, is not a zombie, and started at start_time.
bool alive(pid_t pid, uint64_t start_time);
// A pidfd for the process that is pid and started at start_time; empty when it is gone.
// Checked after opening: the pidfd pins the process, so the check cannot go stale.
Fd pidfd_of(pid_t pid, uint64_t start_time);
// Wait up to `d` for the process behind pidfd to exit; true when it has. If the pidfd cannot
// be polled, sleeps the time out and returns false (the caller's status check decides).
bool exits_within(int pidfd, std::chrono::nanoseconds d);

// One line of mountinfo (proc(5)), octal escapes (\040 for a space...) undone.
struct MountInfo {
  int id = 0, parent = 0;
  std::string root, mount_point, options;
  std::string optional;  // "shared:1 master:2", space separated; "" when none
  std::string fstype, source, super_options;
};
// Every line of a mountinfo text already read; a malformed line is an error naming `what`.
Result<std::vector<MountInfo>> parse_mountinfo(std::string_view text, const std::string& what);
Result<std::vector<MountInfo>> read_mountinfo(const std::string& path = "/proc/self/mountinfo");

}  // namespace sh::proc
