#include "runtime/linux/namespaces.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <algorithm>

#include "base/file.hpp"

namespace sh::ns {

namespace {
struct Kind {
  std::string_view type;
  const char* proc;
  int flag;
};
constexpr Kind kKinds[] = {
    {"user", "user", CLONE_NEWUSER}, {"pid", "pid", CLONE_NEWPID},       {"network", "net", CLONE_NEWNET},
    {"mount", "mnt", CLONE_NEWNS},   {"ipc", "ipc", CLONE_NEWIPC},       {"uts", "uts", CLONE_NEWUTS},
    {"cgroup", "cgroup", CLONE_NEWCGROUP}, {"time", "time", CLONE_NEWTIME},
};
}  // namespace

int clone_flag(std::string_view type) {
  for (auto& k : kKinds)
    if (k.type == type) return k.flag;
  return 0;
}

const char* proc_name(std::string_view type) {
  for (auto& k : kKinds)
    if (k.type == type) return k.proc;
  return "";
}

bool Plan::new_user() const { return new_flags & CLONE_NEWUSER; }
bool Plan::joins_user() const {
  return std::any_of(joins.begin(), joins.end(), [](const Join& j) { return j.flag == CLONE_NEWUSER; });
}
bool Plan::has(int flag) const {
  return (new_flags & flag) || std::any_of(joins.begin(), joins.end(), [&](const Join& j) { return j.flag == flag; });
}

Result<Plan> plan(const oci::Config& c) {
  Plan p;
  for (size_t i = 0; i < c.linux.namespaces.size(); ++i) {
    const auto& n = c.linux.namespaces[i];
    int flag = clone_flag(n.type);
    if (!flag) return fail("linux.namespaces[" + std::to_string(i) + "].type: unknown namespace type \"" + n.type + "\"");
    if (n.path.empty()) {
      p.new_flags |= flag;
      continue;
    }
    Fd fd = TRY(open_file(n.path, O_RDONLY));
    int t = ::ioctl(fd.get(), NS_GET_NSTYPE);
    if (t < 0) return sys_error("namespace path " + n.path + " for " + n.type + ": not a namespace");
    if (t != flag) return fail("namespace path " + n.path + ": is not a " + n.type + " namespace");
    p.joins.push_back(Join{flag, std::move(fd), n.path});
  }
  // Join the user namespace first: it decides what the other joins are allowed to do.
  std::stable_partition(p.joins.begin(), p.joins.end(), [](const Join& j) { return j.flag == CLONE_NEWUSER; });
  return p;
}

std::string format_id_map(const std::vector<oci::IdMapping>& m) {
  std::string s;
  for (auto& e : m)
    s += std::to_string(e.container_id) + " " + std::to_string(e.host_id) + " " + std::to_string(e.size) + "\n";
  return s;
}

Result<void> write_id_maps(pid_t pid, const std::vector<oci::IdMapping>& uids,
                           const std::vector<oci::IdMapping>& gids, bool deny_setgroups) {
  std::string base = "/proc/" + std::to_string(pid) + "/";
  if (deny_setgroups) TRYV(write_file(base + "setgroups", "deny"));
  // One write each: the kernel accepts a map only in a single write(2).
  if (!uids.empty()) TRYV(write_file(base + "uid_map", format_id_map(uids)));
  if (!gids.empty()) TRYV(write_file(base + "gid_map", format_id_map(gids)));
  return {};
}

}  // namespace sh::ns
