// checkpoint: the container's processes dumped by CRIU into an image directory, beside our own
// record of what restore must re-make (checkpoint_image.hpp). Refused before CRIU runs when the
// container holds a bound CRIU cannot carry.
#include "runtime/lifecycle/checkpoint.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.hpp"
#include "base/log.hpp"
#include "base/text.hpp"

#include <algorithm>
#include "runtime/lifecycle/checkpoint_image.hpp"
#include "runtime/lifecycle/criu_request.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"
#include "runtime/linux/criu.hpp"
#include "runtime/linux/proc_info.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::lifecycle {
namespace {

// The policy's extension a container was created under (its saved config's sharness block).
Result<std::optional<policy::Extension>> saved_extension(const oci::Config& c, const std::string& where) {
  if (!c.sharness_json) return std::optional<policy::Extension>();
  auto doc = TRY(json::Document::parse(*c.sharness_json, where));
  return std::optional<policy::Extension>(TRYC(where, policy::parse_extension(doc.root())));
}

// Wall-clock time the container has used: its earlier lives plus this init's (from its start time).
uint64_t wall_clock_spent_ms(const Record& r) {
  struct timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  uint64_t now_ms = uint64_t(now.tv_sec) * 1000 + uint64_t(now.tv_nsec) / 1'000'000;
  uint64_t started_ms = r.start_time * 1000 / uint64_t(::sysconf(_SC_CLK_TCK));
  return r.wall_clock_spent_ms + (now_ms > started_ms ? now_ms - started_ms : 0);
}

// What init's stdio is, as CRIU names files: restore hands a pipe of its own for each "pipe:[N]".
std::vector<std::string> stdio_of(pid_t pid) {
  std::vector<std::string> out;
  for (int fd = 0; fd < 3; ++fd) {
    char buf[4096];
    std::string link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
    out.emplace_back(n > 0 ? std::string(buf, size_t(n)) : std::string());
  }
  return out;
}

// The container's cgroup directories bound into it (no cgroup namespace: the mount's root is not
// the hierarchy's), which CRIU must take as external: mount point -> controller.
Result<std::map<std::string, std::string>> cgroup_binds(pid_t pid) {
  std::map<std::string, std::string> out;
  for (const auto& m : TRY(proc::read_mountinfo("/proc/" + std::to_string(pid) + "/mountinfo"))) {
    if ((m.fstype != "cgroup" && m.fstype != "cgroup2") || m.root == "/") continue;
    std::string opts = m.super_options, ctrl;
    std::ranges::replace(opts, ',', ' ');
    for (const auto& opt : words(opts))
      if (opt != "rw" && opt != "ro" && ctrl.empty()) ctrl = opt;
    out[m.mount_point] = m.fstype == "cgroup2" ? std::string() : ctrl;
  }
  return out;
}

}  // namespace

Result<void> checkpoint(const Globals& g, const CheckpointOptions& o) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(o.id, Lock::exclusive));
  Record rec = TRY(dir.load());
  Status s = status_of(rec);
  if (s != Status::running && s != Status::paused)
    return fail("cannot checkpoint container " + o.id + ": it is " + status_name(s) + ", not running");
  oci::Config c = TRY(load_saved_config(dir));
  auto ext = TRY(saved_extension(c, dir.path() + "/config.json: sharness"));
  if (auto bound = uncarried_bound(c, ext ? &*ext : nullptr, g.sidecars); !bound.empty())
    return fail("cannot checkpoint container " + o.id + ": " + bound);
  if (c.process && c.process->terminal)
    return fail("cannot checkpoint container " + o.id + ": it has a terminal (process.terminal), which this "
                "runtime does not checkpoint yet");
  for (const auto& n : c.linux.namespaces)
    if (!n.path.empty() && n.type != "network")
      return fail("cannot checkpoint container " + o.id + ": it joins the " + n.type + " namespace " + n.path +
                  ", which this runtime does not checkpoint (only a joined network namespace)");

  ImageDirs dirs = TRY(open_image_dirs(o.criu.image_path, o.criu.work_path, /*create=*/true));
  criu::Options co = TRY(criu_options(o.criu, dirs, o.pre_dump ? "pre-dump.log" : "dump.log"));
  co.pid = rec.pid;
  co.root = rec.rootfs;
  co.leave_running = o.leave_running;
  co.parent_img = o.parent_path;
  co.track_mem = o.pre_dump || !o.parent_path.empty();
  // A paused container is frozen by its freezer: CRIU must use it rather than ptrace a frozen task
  // (it would wait for ever for the task to run its parasite). On cgroup v2 that is cgroup.freeze.
  if (!rec.cgroup_path.empty()) co.freeze_cgroup = TRY(live_cgroup(rec)).freezer_path();
  for (const auto& [dest, src] : external_binds(c, rec.bundle)) co.external.push_back("mnt[" + dest + "]:" + dest);
  if (auto* net = c.find_namespace("network"); net && !net->path.empty()) {
    struct stat st;
    if (::stat(net->path.c_str(), &st) < 0) return sys_error("stat the network namespace " + net->path);
    co.external.push_back("net[" + std::to_string(st.st_ino) + "]:" + kExternalNetns);
  }
  ImageRecord image;
  image.id = o.id;
  if (ext) image.policy_id = ext->policy_id, image.policy_hash = ext->policy_hash;
  image.ephemeral_uid = rec.ephemeral_uid;
  image.stdio = stdio_of(rec.pid);
  image.cgroup_binds = TRY(cgroup_binds(rec.pid));
  for (const auto& [mp, ctrl] : image.cgroup_binds) co.external.push_back("mnt[" + mp + "]:" + mp);
  if (ext && ext->wall_clock_seconds) image.wall_clock_spent_ms = wall_clock_spent_ms(rec);

  TRYC("checkpoint " + o.id,
       criu::call(g.criu, o.pre_dump ? criu::Request::pre_dump : criu::Request::dump, co, nullptr));
  if (o.pre_dump) return {};
  TRYV(write_file_at(dirs.images.get(), kImageRecordFile, image_record_to_json(image) + "\n",
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600));
  if (o.leave_running) return {};
  // CRIU ended the processes: the container goes as `delete` takes it (cgroup, hooks, uid, sidecars).
  return tear_down(g.sidecars, dir, rec, {});
}

}  // namespace sh::lifecycle
