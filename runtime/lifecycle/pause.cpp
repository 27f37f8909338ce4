// pause / resume: freeze or thaw every process of a container (its cgroup freezer).
#include "runtime/lifecycle/pause.hpp"

#include "base/log.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"

namespace sh::lifecycle {

Result<void> pause(const Globals& g, const std::string& id) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  TRYV(rules::can_pause(id, c.status));
  auto cg = TRY(live_cgroup(c.rec));
  if (auto r = cg.freeze(true); !r) {
    // A freeze that failed half way can leave some tasks frozen: never leave it like that.
    if (auto t = cg.freeze(false); !t) log::warn("pause " + id + ": thaw after failure: " + t.error().what());
    return fail(std::move(r.error()).context("pause container " + id));
  }
  return {};
}

Result<void> resume(const Globals& g, const std::string& id) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  TRYV(rules::can_resume(id, c.status));
  auto cg = TRY(live_cgroup(c.rec));
  TRYVC("resume container " + id, cg.freeze(false));
  return {};
}

}  // namespace sh::lifecycle
