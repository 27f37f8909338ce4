// kill and delete. Signals go through a pidfd opened after checking the start time, so a
// recycled pid is never signalled.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fault.hpp"
#include "base/log.hpp"
#include "edges/live.hpp"
#include "edges/provision.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/kms_provision.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::lifecycle {

namespace {

Result<void> signal_init(const Record& r, int sig) {
  Fd fd = init_pidfd(r);
  if (!fd) return fail("cannot kill container " + r.id + ": container not running");
  if (::syscall(SYS_pidfd_send_signal, fd.get(), sig, nullptr, 0) < 0)
    return sys_error("signal container " + r.id + " init (pid " + std::to_string(r.pid) + ")");
  return {};
}

Result<cgroups::Cgroup> cgroup_of(const Record& r) {
  auto layout = TRY(cgroups::detect_layout());
  return cgroups::Cgroup(layout, r.cgroup_path);
}

// Kill init and wait (bounded) until it is gone.
void kill_and_wait(const Record& r) {
  Fd fd = init_pidfd(r);
  if (!fd) return;
  ::syscall(SYS_pidfd_send_signal, fd.get(), SIGKILL, nullptr, 0);
  proc::exits_within(fd.get(), std::chrono::seconds(5));
}

}  // namespace

Result<void> kill(const Globals& g, const std::string& id, int sig, bool all) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(id, Lock::shared));
  Record r = TRY(dir.load());
  Status s = status_of(r);
  TRYV(rules::can_kill(id, s, all, !r.cgroup_path.empty()));
  // Without a cgroup (rootless, no delegation) there is no list of the container's processes:
  // --all signals init, whose pid namespace takes the rest with it (never the root cgroup's).
  if (!all || r.cgroup_path.empty()) return signal_init(r, sig);
  // --all also after init exited: what is left in the cgroup (no pid namespace) still goes.
  auto cg = TRY(cgroup_of(r));
  // A paused container only takes SIGKILL once thawed.
  if (s == Status::paused && sig == SIGKILL) (void)cg.freeze(false);
  for (pid_t p : TRY(cg.pids()))
    if (::kill(p, sig) < 0 && errno != ESRCH) return sys_error("kill pid " + std::to_string(p));
  return {};
}

Result<void> destroy_locked(ContainerDir& dir, const Record& rec) {
  fault::point("delete.locked");
  kill_and_wait(rec);
  fault::point("delete.killed");
  if (!rec.cgroup_path.empty()) {
    auto cg = cgroup_of(rec);
    if (cg) TRYC("remove cgroup " + rec.cgroup_path, cg->destroy());
  }
  fault::point("delete.cgroup-removed");
  // Parsed only when create recorded poststop hooks (or the state predates that record).
  auto cfg = rec.poststop_hooks ? load_saved_config(dir) : Result<oci::Config>(oci::Config{});
  if (cfg && !cfg->hooks.poststop.empty()) {
    // The spec: a failing poststop hook is a warning, the next ones run and the delete goes on.
    (void)hooks::run_warn(cfg->hooks.poststop, "poststop", oci::hook_state_json(to_state(rec, Status::stopped)));
  }
  fault::point("delete.poststop-run");
  if (rec.ephemeral_uid) TRYV(release_ephemeral_uid(dir.root(), rec.ephemeral_uid, rec.id));
  // After poststop (sharness-edge down): the key's tmpfs and the edge sockets go.
  TRYV(edges::unprovision(policy::MeshHost{dir.root(), rec.id, "", ""}));
  TRYV(unprovision_kms(dir.root(), rec.id));  // the KMS's config, socket dir and certificate
  return dir.remove();
}

Result<void> remove(const Globals& g, const std::string& id, bool force) {
  Store store(g.root);
  auto dir = store.open(id);
  if (!dir) {
    if (force && validate_id(id)) return {};  // delete --force of an unknown id succeeds
    return fail(dir.error());
  }
  auto rec = dir->load();
  if (!rec) {
    // A state dir without a readable record: nothing we can stop; with --force, remove it,
    // and revoke any edge leaf a half-made create registered under the id.
    if (force) {
      if (auto r = edges::live::revoke(dir->root(), id); !r) log::warn(r.error().what());
      return dir->remove();
    }
    return fail(rec.error());
  }
  Status s = status_of(*rec);
  TRYV(rules::can_delete(id, s, force));
  return destroy_locked(*dir, *rec);
}

}  // namespace sh::lifecycle
