#include "runtime/lifecycle/sidecar.hpp"

#include "base/log.hpp"

namespace sh::lifecycle {

Result<void> provision_sidecars(Sidecars list, const SidecarHost& h, const policy::Extension& ext, oci::Config& c) {
  for (const Sidecar* s : list)
    if (s->wanted(ext)) TRYV(s->provision(h, ext, c));
  return {};
}

Result<void> unprovision_sidecars(Sidecars list, const std::string& state_root, const std::string& id,
                                  bool keep_going) {
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    auto r = (*it)->unprovision(state_root, id);
    if (r) continue;
    if (!keep_going) return r;
    log::debug(std::string((*it)->name) + ": " + r.error().what());
  }
  return {};
}

}  // namespace sh::lifecycle
