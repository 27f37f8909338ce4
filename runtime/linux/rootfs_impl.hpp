// Private pieces of runtime/linux/rootfs.hpp shared by rootfs.cpp, mounts.cpp,
// mount_cgroup.cpp, devices.cpp and paths_masked.cpp. Not for other modules.
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/safe_path.hpp"

namespace sh::rootfs::detail {

// What prepare() learns while mounting, for the device and symlink steps after it.
struct Context {
  const oci::Config& config;
  const Options& opts;
  Fd root;                      // O_PATH fd of the rootfs bind mount's root
  bool dev_bind = false;        // /dev is bound from the host: leave it alone
  bool dev_tmpfs = false;       // /dev is a tmpfs we mounted (everything in it is ours)
  dev_t dev_tmpfs_dev = 0;      // its st_dev, to tell entries on it from the rootfs's own
  bool proc_mounted = false;    // a procfs sits on /proc
  bool devpts_mounted = false;  // a devpts sits on /dev/pts

  Context(const oci::Config& c, const Options& o) : config(c), opts(o) {}
  // "(rootfs /x/rootfs)" for error messages.
  std::string where() const { return "(rootfs " + opts.rootfs + ")"; }
};

// --- the new mount API, each call's error naming what it was doing ----------------

// fsopen + fsconfig(source, data, sb flags) + FSCONFIG_CMD_CREATE + fsmount with the
// per-mount attributes derived from MS_* `flags`. Returns the detached mount's fd.
// `ro_superblock`: with MS_RDONLY, the new superblock is read-only too (as mount(2) with
// MS_RDONLY makes it, which runc uses); a superblock the kernel shares is left as it is.
Result<Fd> new_mount(const std::string& fstype, const std::string& source, const std::string& data,
                     unsigned long flags, bool ro_superblock = false);
// open_tree(OPEN_TREE_CLONE[|AT_RECURSIVE]) of a host path or an fd (path "" + AT_EMPTY_PATH).
Result<Fd> clone_tree(int dirfd, const std::string& path, bool recursive);
// move_mount(mnt_fd -> target_fd), both by fd.
Result<void> attach(int mnt_fd, int target_fd);
// mount_setattr on the mount an fd refers to (must be a mount root).
Result<void> set_attr(int fd, bool recursive, uint64_t set, uint64_t clr, uint64_t propagation = 0,
                      int userns_fd = -1);
// MS_* per-mount flags -> MOUNT_ATTR_* (ro, nosuid, nodev, noexec, atime, nosymfollow).
uint64_t attrs_from_flags(unsigned long ms_flags);
// Attributes an option list explicitly cleared ("rw" -> MOUNT_ATTR_RDONLY; any atime
// option -> MOUNT_ATTR__ATIME, since the atime field is replaced as a whole).
uint64_t attrs_cleared(const MountFlags& f);
// statfs f_type of an fd.
Result<long> fs_magic(int fd, const std::string& what);

// --- the steps of prepare() and finalize() ---------------------------------------

// One configured mount.
Result<void> mount_one(Context& ctx, const oci::Mount& m, int premade_fd = -1);
// "tmpcopyup": copy what the directory `from_dir` (the resolved destination) holds into the
// detached tmpfs `to_dir`, modes, owners and times kept, nothing followed (tmpcopyup.cpp).
Result<void> copy_up(int from_dir, int to_dir, const std::string& where);
// type "cgroup": cgroup2, or a tmpfs with one mount per v1 hierarchy (see the .cpp).
Result<void> mount_cgroup(Context& ctx, const MountFlags& mf, const Resolved& dest);
// Default + configured devices, /dev symlinks, /dev/ptmx.
Result<void> setup_dev(Context& ctx);
// maskedPaths / readonlyPaths relative to the (already pivoted) root.
Result<void> mask_paths(int root_fd, const std::vector<std::string>& paths);
Result<void> readonly_paths(int root_fd, const std::vector<std::string>& paths);

// --- /proc/self/mountinfo and /proc/self/cgroup -----------------------------------

// The one mountinfo parser is proc_info's.
using proc::MountInfo;
using proc::parse_mountinfo;
using proc::read_mountinfo;

struct CgroupLine {
  std::string controllers;  // "memory", "cpu,cpuacct", "name=systemd"; "" for cgroup2
  std::string path;         // "/sharness/id"
};
Result<std::vector<CgroupLine>> read_proc_cgroup(const std::string& path = "/proc/self/cgroup");

// The namespace of `type` in the config (nullptr if absent).
const oci::Namespace* find_namespace(const oci::Config& c, std::string_view type);
// Split "a,b,c" (empty fields dropped).
std::vector<std::string> split_list(std::string_view s, char sep);

}  // namespace sh::rootfs::detail
