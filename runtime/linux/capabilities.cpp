#include "runtime/linux/capabilities.hpp"

#include <fcntl.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include <algorithm>
#include <memory>

#include "base/file.hpp"
#include "base/log.hpp"

namespace sh::caps {
namespace {

struct CapFree {
  void operator()(void* p) const { cap_free(p); }
};
using CapPtr = std::unique_ptr<std::remove_pointer_t<cap_t>, CapFree>;

int read_last_cap() {
  auto text = read_file("/proc/sys/kernel/cap_last_cap", 64);
  if (text) {
    try {
      return std::stoi(*text);
    } catch (...) {
    }
  }
  // No procfs (or garbage): trust what libcap knows about the running kernel.
  return int(cap_max_bits()) - 1;
}

bool contains(const std::vector<int>& v, int cap) { return std::ranges::find(v, cap) != v.end(); }

Result<std::vector<int>> parse_opt(const std::optional<std::vector<std::string>>& names, const std::string& what) {
  if (!names) return std::vector<int>{};  // absent == empty
  return parse_list(*names, what);
}

Result<void> set_flag(cap_t c, cap_flag_t flag, const std::vector<int>& caps, const char* what) {
  if (caps.empty()) return {};
  std::vector<cap_value_t> vals(caps.begin(), caps.end());
  if (cap_set_flag(c, flag, int(vals.size()), vals.data(), CAP_SET) < 0) return sys_error(std::string("set ") + what);
  return {};
}

Result<void> apply_ambient(const std::vector<int>& ambient, const std::vector<int>& permitted,
                           const std::vector<int>& inheritable) {
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
    // Kernels before 4.3 have no ambient set: fine as long as none is asked for.
    if (errno != EINVAL || !ambient.empty()) return sys_error("clear the ambient set");
  }
  for (int cap : ambient) {
    // The kernel raises only what is permitted and inheritable; the rest is left out, as runc
    // and crun do (create warned about each: warn_ambient_left_out).
    if (!contains(permitted, cap) || !contains(inheritable, cap)) continue;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
      return sys_error("raise " + name(cap) + " in the ambient set");
  }
  return {};
}

}  // namespace

int last_cap() {
  static const int last = read_last_cap();
  return last;
}

Result<std::vector<int>> parse_list(const std::vector<std::string>& names, const std::string& what) {
  std::vector<int> out;
  for (const auto& n : names) {
    int cap = TRYC(what, parse(n));
    if (cap > last_cap()) {
      log::warn(what + ": " + n + " is not supported by this kernel (last capability " + std::to_string(last_cap()) +
                "), ignored");
      continue;
    }
    if (!contains(out, cap)) out.push_back(cap);
  }
  return out;
}

Result<std::vector<int>> ambient_left_out(const oci::Capabilities& c) {
  auto prm = TRY(parse_opt(c.permitted, "process.capabilities.permitted"));
  auto inh = TRY(parse_opt(c.inheritable, "process.capabilities.inheritable"));
  auto amb = TRY(parse_opt(c.ambient, "process.capabilities.ambient"));
  std::vector<int> out;
  for (int cap : amb)
    if (!contains(prm, cap) || !contains(inh, cap)) out.push_back(cap);
  return out;
}

Result<void> warn_ambient_left_out(const oci::Capabilities& c, const std::string& what) {
  auto prm = TRY(parse_opt(c.permitted, "process.capabilities.permitted"));
  auto inh = TRY(parse_opt(c.inheritable, "process.capabilities.inheritable"));
  for (int cap : TRY(ambient_left_out(c))) {
    const bool p = contains(prm, cap), i = contains(inh, cap);
    log::warn(what + ": " + name(cap) + " is not in " +
              (!p && !i ? "permitted and inheritable" : !p ? "permitted" : "inheritable") +
              ", left out of the ambient set (the kernel raises only what is in both)");
  }
  return {};
}

Result<Held> held_now() {
  CapPtr cur(cap_get_proc());
  if (!cur) return sys_error("read this process's capabilities");
  Held h;
  for (int cap = 0; cap <= last_cap() && cap < 64; ++cap) {
    cap_flag_value_t v = CAP_CLEAR;
    if (cap_get_flag(cur.get(), cap_value_t(cap), CAP_PERMITTED, &v) == 0 && v == CAP_SET) h.permitted |= 1ULL << cap;
    if (cap_get_flag(cur.get(), cap_value_t(cap), CAP_INHERITABLE, &v) == 0 && v == CAP_SET)
      h.inheritable |= 1ULL << cap;
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) h.bounding |= 1ULL << cap;
  }
  return h;
}

Result<std::string> first_unraisable(const oci::Capabilities& c, const Held& h) {
  const bool keep_bounding = !c.bounding && !c.effective && !c.permitted && !c.inheritable && !c.ambient;
  uint64_t bounding = h.bounding;
  if (!keep_bounding) {
    uint64_t listed = 0;
    for (int cap : TRY(parse_opt(c.bounding, "process.capabilities.bounding")))
      if (cap < 64) listed |= 1ULL << cap;
    bounding &= listed;
  }
  auto held = [](uint64_t mask, int cap) { return cap < 64 && (mask >> cap & 1) != 0; };
  const char* why = " is not in the runtime's own permitted set: the kernel refuses to raise it (capset EPERM)";
  for (int cap : TRY(parse_opt(c.permitted, "process.capabilities.permitted")))
    if (!held(h.permitted, cap)) return "process.capabilities.permitted: " + name(cap) + why;
  for (int cap : TRY(parse_opt(c.effective, "process.capabilities.effective")))
    if (!held(h.permitted, cap)) return "process.capabilities.effective: " + name(cap) + why;
  for (int cap : TRY(parse_opt(c.inheritable, "process.capabilities.inheritable")))
    if (!held(h.inheritable | bounding, cap))
      return "process.capabilities.inheritable: " + name(cap) +
             " is in neither the runtime's inheritable set nor the bounding set left: the kernel refuses to "
             "raise it (capset EPERM)";
  return std::string();
}

Result<void> apply_bounding(const oci::Capabilities& c) {
  // As runc: only a wholly absent capabilities object (every set nullopt) keeps the runtime's
  // bounding set; inside a present object an absent set is empty (`--cap-drop ALL` writes {}).
  if (!c.bounding && !c.effective && !c.permitted && !c.inheritable && !c.ambient) return {};
  auto keep = TRY(parse_opt(c.bounding, "process.capabilities.bounding"));
  for (int cap = 0; cap <= last_cap(); ++cap) {
    if (contains(keep, cap)) continue;
    // Skip caps already gone so that an already-reduced set needs no CAP_SETPCAP.
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) return sys_error("drop " + name(cap) + " from the bounding set");
  }
  return {};
}

Result<void> apply_sets(const oci::Capabilities& c) {
  auto eff = TRY(parse_opt(c.effective, "process.capabilities.effective"));
  auto prm = TRY(parse_opt(c.permitted, "process.capabilities.permitted"));
  auto inh = TRY(parse_opt(c.inheritable, "process.capabilities.inheritable"));
  auto amb = TRY(parse_opt(c.ambient, "process.capabilities.ambient"));
  for (int cap : eff)
    if (!contains(prm, cap))
      return fail("process.capabilities.effective: " + name(cap) + " must also be in permitted");

  CapPtr caps(cap_init());
  if (!caps) return sys_error("cap_init");
  TRYV(set_flag(caps.get(), CAP_EFFECTIVE, eff, "effective capabilities"));
  TRYV(set_flag(caps.get(), CAP_PERMITTED, prm, "permitted capabilities"));
  TRYV(set_flag(caps.get(), CAP_INHERITABLE, inh, "inheritable capabilities"));
  if (cap_set_proc(caps.get()) < 0) {
    char* text = cap_to_text(caps.get(), nullptr);
    std::string desc = text ? text : "?";
    if (text) cap_free(text);
    return sys_error("set capabilities (" + desc + ")");
  }
  return apply_ambient(amb, prm, inh);
}

}  // namespace sh::caps
