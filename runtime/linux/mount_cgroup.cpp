// A mount of type "cgroup" (usually /sys/fs/cgroup), read from the host's
// /proc/self/cgroup and mountinfo before pivot_root:
//   - pure cgroup v2: a cgroup2 mount (with a cgroup namespace, whose root is the
//     container's cgroup), or a bind of the container's cgroup2 dir without one;
//   - v1 or hybrid: a tmpfs, and in it one mount per hierarchy the init process is in,
//     named as on the host ("memory", "cpu,cpuacct" plus "cpu"/"cpuacct" symlinks,
//     "systemd"): a fresh cgroup mount of that hierarchy with a cgroup namespace (source
//     "systemd" for the named systemd one, "cgroup" for the rest, as runc), else a bind of the
//     container's own dir in it. The hybrid host's cgroup2 tree ("unified") is not shown, as
//     runc 1.1 and crun do not: the container's limits are all in the v1 hierarchies, and
//     nothing in the container should manage the host's cgroup2 tree.
// Read-only when the mount says "ro", like every other flag the mount gives.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "base/log.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace sh::rootfs::detail {
namespace {

std::string basename_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

bool holds(const MountInfo& mi, const std::string& controllers) {
  if (controllers.empty()) return mi.fstype == "cgroup2";
  if (mi.fstype != "cgroup") return false;
  auto opts = split_list(mi.super_options, ',');
  return std::ranges::all_of(split_list(controllers, ','),
                             [&](const std::string& c) { return std::ranges::find(opts, c) != opts.end(); });
}

// The host mount of the hierarchy holding all of `controllers` (v1), or the cgroup2 one
// for "". A mount of the hierarchy's root is preferred over binds of subtrees.
const MountInfo* find_hierarchy(const std::vector<MountInfo>& mounts, const std::string& controllers) {
  const MountInfo* any = nullptr;
  for (const auto& mi : mounts) {
    if (!holds(mi, controllers)) continue;
    if (mi.root == "/") return &mi;
    if (!any) any = &mi;
  }
  return any;
}

// The host directory of the init process's cgroup in one hierarchy. The mount may show
// a subtree (its mountinfo root): strip that prefix from the /proc/self/cgroup path, and
// refuse rather than bind something wider when the cgroup is outside what is mounted.
Result<std::string> host_cgroup_dir(const MountInfo& mi, const std::string& path) {
  std::string rel = path;
  if (mi.root != "/") {
    if (!rel.starts_with(mi.root) || (rel.size() > mi.root.size() && rel[mi.root.size()] != '/'))
      return fail("cgroup " + path + " is outside the host's mount of it (" + mi.mount_point + ", root " +
                  mi.root + ")");
    rel = rel.substr(mi.root.size());
  }
  return rel.empty() || rel == "/" ? mi.mount_point : mi.mount_point + rel;
}

// One hierarchy's mount, detached: fresh under a cgroup namespace, else a bind. There is
// no bind fallback in a cgroup namespace: its /proc/self/cgroup paths are relative to
// the namespace, so a bind could only guess, and a wrong guess shows the host's tree.
Result<Fd> hierarchy_mount(bool cgns, const CgroupLine& line, const MountInfo& host, unsigned long flags) {
  if (cgns)
    return line.controllers.empty()             ? new_mount("cgroup2", "cgroup2", "", flags)
           : line.controllers == "name=systemd" ? new_mount("cgroup", "systemd", line.controllers, flags)
                                                : new_mount("cgroup", "cgroup", line.controllers, flags);
  Fd mnt = TRY(clone_tree(AT_FDCWD, TRY(host_cgroup_dir(host, line.path)), false));
  TRYV(set_attr(mnt.get(), false, attrs_from_flags(flags), 0));
  return mnt;
}

Result<void> mount_v2(const Resolved& dest, bool cgns, const std::vector<CgroupLine>& lines,
                      const std::vector<MountInfo>& mounts, unsigned long flags) {
  CgroupLine line;
  for (const auto& l : lines)
    if (l.controllers.empty()) line = l;
  const MountInfo* host = find_hierarchy(mounts, "");
  Fd mnt = (cgns || !host) ? TRY(new_mount("cgroup2", "cgroup2", "", flags))
                           : TRY(hierarchy_mount(false, line, *host, flags));
  return attach(mnt.get(), dest.fd.get());
}

Result<void> mount_hierarchy(int tmpfs_fd, bool cgns, const CgroupLine& line, const std::vector<MountInfo>& mounts,
                             unsigned long flags) {
  const MountInfo* host = find_hierarchy(mounts, line.controllers);
  if (!host) {  // the init process is in a hierarchy the host does not mount: nothing to show
    log::debug("cgroup hierarchy '" + line.controllers + "' is not mounted on the host, skipped");
    return {};
  }
  std::string name = basename_of(host->mount_point);
  if (name.empty() || name == "." || name == "..") name = line.controllers.empty() ? "unified" : line.controllers;
  if (::mkdirat(tmpfs_fd, name.c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + name);
  int sub = ::openat(tmpfs_fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) return sys_error("open " + name);
  Fd sub_fd(sub);
  Fd mnt = TRY(hierarchy_mount(cgns, line, *host, flags));
  TRYV(attach(mnt.get(), sub_fd.get()));
  // Co-mounted controllers ("cpu,cpuacct") are also reachable by each name, as on hosts.
  if (name.find(',') != std::string::npos)
    for (const auto& c : split_list(name, ','))
      if (::symlinkat(name.c_str(), tmpfs_fd, c.c_str()) < 0 && errno != EEXIST) return sys_error("symlink " + c);
  return {};
}

}  // namespace

Result<void> mount_cgroup(Context& ctx, const MountFlags& mf, const Resolved& dest) {
  auto lines = TRY(read_proc_cgroup());
  // The host's hierarchies: the runtime's mountinfo when it read one before cloning us (this
  // new mount namespace began as a copy of its own), else ours.
  auto mounts = ctx.opts.host_mountinfo ? TRY(parse_mountinfo(*ctx.opts.host_mountinfo, "the runtime's mountinfo"))
                                        : TRY(read_mountinfo());
  const bool cgns = find_namespace(ctx.config, "cgroup") != nullptr;
  const unsigned long flags = mf.flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
  const bool has_v1 = std::ranges::any_of(lines, [](const CgroupLine& l) { return !l.controllers.empty(); });
  if (!has_v1) return mount_v2(dest, cgns, lines, mounts, flags);

  // v1 or hybrid: the tmpfs stays writable until every hierarchy is in, then follows "ro".
  Fd tmpfs = TRY(new_mount("tmpfs", "tmpfs", "mode=755", flags & ~MS_RDONLY));
  TRYV(attach(tmpfs.get(), dest.fd.get()));
  for (const auto& line : lines) {
    if (line.controllers.empty()) continue;  // the hybrid cgroup2 tree: not shown, as runc
    auto r = mount_hierarchy(tmpfs.get(), cgns, line, mounts, flags);
    if (!r) return std::unexpected(std::move(r.error()).context("hierarchy '" + line.controllers + "'"));
  }
  if (flags & MS_RDONLY) TRYV(set_attr(tmpfs.get(), false, MOUNT_ATTR_RDONLY, 0));
  return {};
}

}  // namespace sh::rootfs::detail
