// The container's filesystem, set up inside its new mount namespace by init:
// propagation, the rootfs bind, every configured mount (safely: destinations resolved
// inside the rootfs with openat2(RESOLVE_IN_ROOT), mounted by fd), default and
// configured devices, /dev symlinks, devpts/ptmx, pivot_root (or MS_MOVE+chroot with
// --no-pivot), then masked and read-only paths and a read-only root.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"

namespace sh::rootfs {

struct Options {
  std::string rootfs;        // absolute host path of the rootfs
  bool no_pivot = false;
  bool in_user_namespace = false;  // devices cannot be mknod'ed: bind-mount them from the host
  // The mount namespace init sets the rootfs up in: a new one (copied from the runtime's), one
  // joined by path (linux.namespaces mount with a path), or, with neither, the runtime's own.
  // In a new or joined one the rootfs is pivoted into; in the runtime's own (no mount namespace
  // asked, as runc and crun do) the mounts are made under the rootfs there, where they stay after
  // the container, "/" keeps its propagation, and init chroots.
  bool new_mount_ns = true;
  bool joined_mount_ns = false;
  bool own_mount_ns() const { return new_mount_ns || joined_mount_ns; }
  // Idmapped bind mounts made by the runtime on the host side (premake_idmapped_mounts), by
  // index in config.mounts: attached as they are instead of being cloned here.
  const std::vector<std::pair<size_t, Fd>>* premade = nullptr;
  // A policy's exact device list ("null", "zero"...): the OCI default devices not on it are not
  // made (its device cgroup would refuse them anyway; a node that cannot be opened is clutter
  // and cost a bind mount each).
  const std::vector<std::string>* only_devices = nullptr;
  // The runtime's /proc/self/mountinfo, read before init was cloned into a new mount namespace
  // copied from the runtime's: the cgroup mount finds the host's hierarchies there instead of
  // reading (and the kernel generating) it again. Null: read our own.
  const std::string* host_mountinfo = nullptr;
};

// Inside its own user namespace init may not set MOUNT_ATTR_IDMAP (EPERM): the runtime makes
// every idmapped bind mount detached, before init is cloned, and init only attaches them.
Result<std::vector<std::pair<size_t, Fd>>> premake_idmapped_mounts(const oci::Config& c);

// Stage 1 (before pivot_root, in the new mount namespace): propagation, rootfs bind,
// mounts, devices, /dev symlinks. The returned fd is the rootfs directory.
Result<Fd> prepare(const oci::Config& c, const Options& o);
// Stage 2: pivot_root into the rootfs (or move + chroot), chdir("/").
Result<void> pivot(const oci::Config& c, const Options& o, int rootfs_fd);
// Stage 3 (after pivot): process.cwd made if missing, maskedPaths, readonlyPaths, read-only
// root, final propagation.
Result<void> finalize(const oci::Config& c, const Options& o);

// Parse mount options into flags, propagation flags, recursive attrs and data, for units.
struct MountFlags {
  unsigned long flags = 0;          // MS_*
  unsigned long propagation = 0;    // MS_SHARED / MS_SLAVE / MS_PRIVATE / MS_UNBINDABLE (+MS_REC)
  uint64_t attr_set = 0, attr_clr = 0;  // MOUNT_ATTR_* for rro/rnosuid/... (recursive)
  bool recursive_attrs = false;
  std::string data;                 // comma-joined options the kernel gets as data
  bool idmap = false, ridmap = false;
  // Added: MS_* flags an option explicitly cleared ("rw", "suid", "atime"...), so a bind
  // mount changes only what was asked and keeps the rest of its source's flags.
  unsigned long clear_flags = 0;
  bool tmpcopyup = false;           // tmpfs only: copy the covered directory in first
};
MountFlags parse_mount_options(const std::vector<std::string>& options);

}  // namespace sh::rootfs
