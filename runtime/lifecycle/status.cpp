#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::lifecycle {

const char* status_name(Status s) {
  switch (s) {
    case Status::creating: return "creating";
    case Status::created: return "created";
    case Status::running: return "running";
    case Status::paused: return "paused";
    case Status::stopped: return "stopped";
  }
  return "unknown";
}


// The truth comes from the kernel, not from what we wrote: a dead, zombie or recycled
// pid means stopped; init still in our code (its comm) means created; a frozen cgroup
// means paused.
Status status_of(const Record& r) {
  if (r.pid <= 0) return Status::creating;
  auto st = proc::stat(r.pid);
  if (!st || st->state == 'Z' || st->state == 'X' || st->start_time != r.start_time) return Status::stopped;
  if (!r.started && st->comm == "sharness:[init]") return Status::created;
  auto layout = cgroups::detect_layout();
  if (layout && !r.cgroup_path.empty()) {  // empty: rootless, made without a cgroup
    cgroups::Cgroup cg(*layout, r.cgroup_path);
    auto frozen = cg.is_frozen();
    if (frozen && *frozen) return Status::paused;
  }
  return Status::running;
}

Fd init_pidfd(const Record& r) { return proc::pidfd_of(r.pid, r.start_time); }

Result<oci::State> state(const Globals& g, const std::string& id) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(id, Lock::none));
  Record r = TRY(dir.load());
  // What the sidecars report now (a renewed leaf's fingerprint), not what create recorded.
  for (const Sidecar* s : g.sidecars)
    if (s->annotate_state) s->annotate_state(g.root, id, r.annotations);
  return to_state(r, status_of(r));
}

Result<std::vector<oci::State>> list(const Globals& g) {
  Store store(g.root);
  std::vector<oci::State> out;
  for (auto& id : TRY(store.list())) {
    auto s = state(g, id);
    if (s) out.push_back(std::move(*s));  // a container deleted meanwhile is simply absent
  }
  return out;
}

}  // namespace sh::lifecycle
