// A container that has processes, opened for an operation on its cgroup (pause, update, ps,
// stats, events): internal.hpp's open_live and live_cgroup.
#include "base/error.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"

namespace sh::lifecycle {

Result<cgroups::Cgroup> live_cgroup(const Record& r) {
  if (r.cgroup_path.empty()) return fail("container " + r.id + " has no cgroup");
  auto layout = TRY(cgroups::detect_layout());
  return cgroups::Cgroup(std::move(layout), r.cgroup_path);
}

Result<Live> open_live(const Globals& g, const std::string& id, Lock lock) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(id, lock));
  Record rec = TRY(dir.load());
  Status s = status_of(rec);
  TRYV(rules::has_processes(id, s));
  return Live{std::move(dir), std::move(rec), s};
}

}  // namespace sh::lifecycle
