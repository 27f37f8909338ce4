#include "spec-mapping/diff.hpp"

#include <algorithm>

namespace sh::policy {
namespace {

std::string list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (const auto& s : v) out += (out.size() > 1 ? ", " : "") + s;
  return out + "]";
}

// What `b` has and `a` lacks, of a section that adds up.
std::vector<std::string> missing(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& x : b)
    if (std::ranges::find(a, x) == a.end()) out.push_back(x);
  return out;
}

struct Standalone {
  std::vector<Looser>& out;
  void add(std::string section, std::string a, std::string b) { out.push_back({std::move(section), std::move(a), std::move(b)}); }

  // A section B states and A leaves out: A alone does not bound it.
  template <class T>
  void absent(const char* section, const std::optional<T>& a, const std::optional<T>& b, const char* a_text,
              const std::string& b_text) {
    if (!a && b) add(section, a_text, b_text);
  }

  void adds_up(const char* section, const std::vector<std::string>& a, const std::vector<std::string>& b) {
    if (auto m = missing(a, b); !m.empty()) add(section, "without " + list(m), list(b));
  }

  void flag(const char* section, bool a, bool b) {
    if (b && !a) add(section, "false", "true");
  }

  static std::string count(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

  void check(const Policy& a, const Policy& b) {
    const Identity &ai = a.identity, &bi = b.identity;
    absent("identity.uid", ai.uid, bi.uid, "the config's", bi.uid ? (bi.uid->ephemeral ? "ephemeral" : std::to_string(bi.uid->value)) : "");
    absent("identity.capabilities", ai.capabilities, bi.capabilities, "the config's",
           bi.capabilities ? list(*bi.capabilities) : "");
    flag("identity.noNewPrivileges", ai.no_new_privileges, bi.no_new_privileges);
    adds_up("namespaces", a.namespaces, b.namespaces);
    absent("network", a.network, b.network, "the config's", b.network ? network_name(*b.network) : "");
    if (b.memory) {
      const Memory none;
      const Memory& am = a.memory ? *a.memory : none;
      if (b.memory->limit && !am.limit) add("memory.limit", "no limit", format_size(*b.memory->limit));
      if (b.memory->address_space && !am.address_space)
        add("memory.addressSpace", "no limit", format_size(*b.memory->address_space));
    }
    absent("cpu", a.cpu, b.cpu, "no quota", b.cpu ? std::to_string(b.cpu->quota) + " us per " + std::to_string(b.cpu->period) + " us" : "");
    if (b.pids && b.pids->effective_limit() > 0 && !a.pids) add("pids.limit", "no limit", std::to_string(b.pids->effective_limit()));
    absent("priority", a.priority, b.priority, "the config's",
           b.priority ? "oomScoreAdjMin " + std::to_string(b.priority->oom_score_adj_min) + ", niceMin " +
                            std::to_string(b.priority->nice_min) + (b.priority->realtime ? ", realtime" : ", no realtime")
                      : "");
    absent("wallClock.seconds", a.wall_clock_seconds, b.wall_clock_seconds, "no limit",
           b.wall_clock_seconds ? std::to_string(*b.wall_clock_seconds) + " s" : "");
    absent("syscalls", a.syscalls, b.syscalls, "no filter",
           b.syscalls ? std::string("an allowlist, default ") + action_name(b.syscalls->default_action) : "");
    absent("devices", a.devices, b.devices, "the config's", b.devices ? list(*b.devices) : "");
    flag("mounts.readonlyRoot", a.mounts.readonly_root, b.mounts.readonly_root);
    flag("mounts.bindsReadOnly", a.mounts.binds_readonly, b.mounts.binds_readonly);
    adds_up("mounts.maskedPaths", a.mounts.masked_paths, b.mounts.masked_paths);
    adds_up("mounts.readonlyPaths", a.mounts.readonly_paths, b.mounts.readonly_paths);
    absent("files", a.files, b.files, "not handled (any file)", b.files ? count(b.files->size(), "rule") : "");
    absent("ports", a.ports, b.ports, "not handled (any port)", "bind and connect lists");
    if (b.scope) adds_up("scope", a.scope.value_or(std::vector<std::string>{}), *b.scope);
    absent("exec", a.exec, b.exec, "no allowlist", b.exec ? count(b.exec->size(), "pin") : "");
    if (b.hooks_from_config == false && a.hooks_from_config != false) add("hooks.fromConfig", "true", "false");
  }
};

}  // namespace

std::vector<Looser> allows_more(const Policy& a, const Policy& b) {
  auto out = looser_sections(&b, a);
  Standalone{out}.check(a, b);
  std::ranges::stable_sort(out, {}, &Looser::section);
  return out;
}

std::string describe_diff(const Looser& l, const std::string& b_name) {
  return "  " + l.section + ": " + l.client + " (" + b_name + ": " + l.floor + ")";
}

}  // namespace sh::policy
