// restore: the container made as create makes it (create_container, with CreateOptions::restoring),
// its processes brought back by CRIU from the image instead of a clone3'd init.
#include "runtime/lifecycle/restore.hpp"

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/safe_path.hpp"

#include <algorithm>

namespace sh::lifecycle {
namespace {

// CRIU restores the container's mounts on a root that is a mount point: the rootfs bound at
// <state dir>/criu-root for the restore's length (as runc does), gone with this object.
struct CriuRoot {
  std::string path;
  bool mounted = false;
  ~CriuRoot() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
    if (!path.empty()) ::rmdir(path.c_str());
  }
};

Result<void> bind_root(CriuRoot& r, const std::string& rootfs, const ContainerDir& dir) {
  r.path = dir.path() + "/criu-root";
  if (::mkdir(r.path.c_str(), 0700) < 0) {
    r.path.clear();
    return sys_error("make " + dir.path() + "/criu-root");
  }
  if (::mount(rootfs.c_str(), r.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) < 0)
    return sys_error("bind the rootfs " + rootfs + " on " + r.path);
  r.mounted = true;
  return {};
}

// CRIU restores each mount on its mount point: those create made in the rootfs (a bind's
// destination such as Podman's /run/.containerenv) are missing from a new rootfs (Podman's restore
// --import), so they are made again, inside the root as create makes them (a file for a bind of a
// file). Not under a tmpfs the config mounts (CRIU restores its contents) nor cgroup mounts
// (CRIU's own), as runc and crun do.
Result<void> make_mount_points(const oci::Config& c, const std::string& bundle, const std::string& rootfs) {
  Fd root = TRY(open_file(rootfs, O_PATH | O_DIRECTORY));
  for (const auto& m : c.mounts) {
    if (m.type == "cgroup" || m.type == "cgroup2") continue;
    bool on_tmpfs = std::ranges::any_of(c.mounts, [&](const oci::Mount& t) {
      return t.type == "tmpfs" && m.destination.starts_with(clean_path(t.destination) + "/");
    });
    if (on_tmpfs) continue;
    rootfs::MkdirOptions mk;
    struct stat st;
    if (oci::is_bind(m)) {
      std::string src = m.source.starts_with("/") ? m.source : bundle + "/" + m.source;
      if (::stat(src.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) mk.leaf = rootfs::Leaf::file;
    }
    TRYC("restore: the mount point " + m.destination, rootfs::mkdir_in_root(root.get(), m.destination, mk));
  }
  return {};
}

}  // namespace

Result<Launched> restore_processes(const Restoring& r, const RestoreHost& h) {
  TRYV(make_mount_points(h.config, h.bundle, h.rootfs));
  CriuRoot root;
  TRYV(bind_root(root, h.rootfs, h.dir));
  criu::Options o = r.options;
  o.root = root.path;
  o.rst_sibling = true;  // the restored init is our child, as a created one is
  // init's stdio: each pipe it had is one of ours now, under the name the image gives it.
  for (size_t fd = 0; fd < r.image.stdio.size() && fd < 3; ++fd) {
    const std::string& what = r.image.stdio[fd];
    bool seen = false;
    for (auto& [key, ours] : o.inherit_fds) seen = seen || key == what;
    if (what.starts_with("pipe:") && !seen) o.inherit_fds.emplace_back(what, int(fd));
  }
  for (const auto& [dest, src] : external_binds(h.config, h.bundle)) o.external.push_back("mnt[" + dest + "]:" + src);
  Fd netns;
  if (auto* net = h.config.find_namespace("network"); net && !net->path.empty()) {
    netns = TRY(open_file(net->path, O_RDONLY));
    o.inherit_fds.emplace_back(kExternalNetns, netns.get());
  }
  // The image's cgroups are re-rooted in the container's, and the cgroup directories it had bound
  // in are the new cgroup's.
  o.on_spawn = [&](pid_t criu, criu::Options& spawned) -> Result<void> {
    const cgroups::Cgroup* cg = TRY(h.adopt(criu));
    if (!cg) {
      if (!r.image.cgroup_binds.empty()) return fail("the image binds cgroup directories and the container has no cgroup");
      return {};
    }
    spawned.cgroup_roots = {cg->path()};
    for (const auto& [mp, ctrl] : r.image.cgroup_binds)
      spawned.external.push_back("mnt[" + mp + "]:" + cg->dir_for(ctrl));
    return {};
  };
  pid_t restored = 0;
  auto answer = TRY(criu::call(r.criu, criu::Request::restore, o, [&](const std::string& script, pid_t pid) -> Result<void> {
    if (script == "setup-namespaces") return h.hooks(pid);
    if (script == "post-restore") restored = pid;
    return {};
  }));
  if (!restored) restored = answer.restored_pid;
  if (restored <= 0) return fail("criu restore: no pid for the restored init");
  Launched l;
  l.pid = restored;
  l.pidfd = Fd(int(::syscall(SYS_pidfd_open, restored, 0)));
  if (!l.pidfd) return sys_error("pidfd of the restored init (pid " + std::to_string(restored) + ")");
  return l;
}

Result<int> restore(const Globals& g, const RestoreOptions& opts) {
  Restoring r;
  r.criu = g.criu;
  r.dirs = TRY(open_image_dirs(opts.criu.image_path, opts.criu.work_path, /*create=*/false));
  auto text = read_file_at(r.dirs.images.get(), kImageRecordFile, 1u << 20);
  if (text) {
    r.image = TRY(image_record_from_json(*text, opts.criu.image_path + "/" + kImageRecordFile));
  } else if (text.error().err != ENOENT) {
    return fail(std::move(text.error()).context("restore"));
  }
  r.options = TRY(criu_options(opts.criu, r.dirs, "restore.log"));
  CreateOptions o = opts.create;
  o.restoring = &r;
  if (!opts.detach && !opts.no_subreaper) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  Created made = TRY(create_container(g, o, std::nullopt));
  made.dir = ContainerDir();  // unlock: kill, pause, delete must not wait for the process
  if (opts.detach) return 0;
  int code = TRY(wait_forwarding(made.launched));
  TRYV(remove(g, o.id, true));
  return code;
}

}  // namespace sh::lifecycle
