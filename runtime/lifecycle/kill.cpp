// kill and delete. Signals go through a pidfd opened after checking the start time, so a
// recycled pid is never signalled.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fault.hpp"
#include "base/log.hpp"
#include <sys/wait.h>

#include "hooks/hooks.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/lifecycle/systemd_scope.hpp"
#include "runtime/lifecycle/watchdog_record.hpp"
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

}  // namespace

void stop_init(const Record& r) {
  Fd fd = init_pidfd(r);
  if (!fd) return;
  ::syscall(SYS_pidfd_send_signal, fd.get(), SIGKILL, nullptr, 0);
  proc::exits_within(fd.get(), std::chrono::seconds(5));
}

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
  auto sent = cg.signal_all(sig);
  // A stopped container whose cgroup is gone has nothing left to signal: systemd removes a
  // scope's cgroup once it empties (--systemd-cgroup), and containerd's shim kills --all a pod
  // sandbox that exited on its own (as runc, which then succeeds too).
  if (!sent && s == Status::stopped && sent.error().err == ENOENT) return {};
  return sent;
}

Result<void> tear_down(Sidecars sidecars, ContainerDir& dir, const Record& rec, const Teardown& how) {
  const bool go_on = how.create_failed;
  fault::point("delete.locked");
  if (!how.create_failed) {
    stop_init(rec);
  } else if (how.child > 0) {
    ::kill(how.child, SIGKILL);
    ::waitpid(how.child, nullptr, 0);
  }
  fault::point("delete.killed");
  if (!rec.cgroup_path.empty()) {
    auto cg = cgroup_of(rec);
    auto gone = cg ? cg->destroy() : Result<void>{};
    // --systemd-cgroup: the scope goes too, whether or not its cgroup did (systemd removes it).
    if (!rec.systemd_unit.empty())
      if (auto r = systemd_scope::stop(rec.systemd_unit, rec.systemd_user); !r && !go_on)
        return fail(std::move(r.error()).context("remove cgroup " + rec.cgroup_path));
    if (!gone && !go_on) return fail(std::move(gone.error()).context("remove cgroup " + rec.cgroup_path));
  }
  fault::point("delete.cgroup-removed");
  // delete: the saved config's, parsed only when create recorded poststop hooks (or the state
  // predates that record).
  Result<oci::Config> saved = how.create_failed || !rec.poststop_hooks ? Result<oci::Config>(oci::Config{})
                                                                       : load_saved_config(dir);
  const std::vector<oci::Hook>* poststop = how.create_failed ? how.poststop : saved ? &saved->hooks.poststop : nullptr;
  if (poststop && !poststop->empty()) {
    // The spec: a failing poststop hook is a warning, the next ones run and the delete goes on.
    (void)hooks::run_warn(*poststop, "poststop", oci::hook_state_json(to_state(rec, Status::stopped)));
  }
  fault::point("delete.poststop-run");
  if (rec.ephemeral_uid)
    if (auto r = release_ephemeral_uid(dir.root(), rec.ephemeral_uid, rec.id); !r && !go_on) return r;
  // After poststop (which stopped them): what the sidecars made on the host goes.
  TRYV(unprovision_sidecars(sidecars, dir.root(), rec.id, go_on));
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
    // and undo what a half-made create's sidecars made under the id (an edge leaf registered live).
    if (force) {
      (void)unprovision_sidecars(g.sidecars, dir->root(), id, true);
      return dir->remove();
    }
    return fail(rec.error());
  }
  Status s = status_of(*rec);
  TRYV(rules::can_delete(id, s, force));
  // Why a container under a wall clock ended is otherwise only "SIGKILL" in its exit status.
  if (auto fired = read_watchdog_fired(*dir); !fired)
    log::warn(fired.error().what());
  else if (*fired)
    log::warn("container " + id + ": " + describe(**fired));
  return tear_down(g.sidecars, *dir, *rec, {});
}

}  // namespace sh::lifecycle
