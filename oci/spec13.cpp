#include "oci/spec13.hpp"

#include <sys/statfs.h>

#include <algorithm>
#include <fstream>

#include "oci/id_list.hpp"

namespace sh::oci {
namespace {

template <class C>
std::optional<int> lookup(const C& table, std::string_view name) {
  for (auto& e : table)
    if (name == e.name) return e.value;
  return std::nullopt;
}

template <class C>
std::vector<std::string> names(const C& table) {
  std::vector<std::string> out;
  for (auto& e : table) out.emplace_back(e.name);
  return out;
}

}  // namespace

std::optional<int> memory_policy_mode(std::string_view name) { return lookup(kMemoryPolicyModes, name); }
std::optional<int> memory_policy_flag(std::string_view name) { return lookup(kMemoryPolicyFlags, name); }
std::vector<std::string> memory_policy_mode_names() { return names(kMemoryPolicyModes); }
std::vector<std::string> memory_policy_flag_names() { return names(kMemoryPolicyFlags); }

bool poststart_failure_is_error(std::string_view v) {
  // "1.M.P[-pre][+build]": 1.3 and every later minor (validation refuses what it does not know).
  if (!v.starts_with("1.")) return false;
  v.remove_prefix(2);
  unsigned minor = 0;
  size_t i = 0;
  for (; i < v.size() && v[i] >= '0' && v[i] <= '9' && minor < 1000; ++i) minor = minor * 10 + unsigned(v[i] - '0');
  return i > 0 && minor >= 3;
}

std::optional<std::string> interface_name_problem(std::string_view name, bool template_ok) {
  if (name.empty()) return "is empty";
  if (name.size() > 15) return "is longer than 15 bytes (IFNAMSIZ)";
  if (name == "." || name == "..") return "is not a valid interface name";
  for (char ch : name)
    if (ch == '/' || ch == ':' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f')
      return "contains '/', ':' or white space";
  auto pct = name.find('%');
  if (pct != std::string_view::npos) {
    bool one_template = template_ok && name.substr(pct, 2) == "%d" && name.find('%', pct + 1) == std::string_view::npos;
    if (!one_template) return template_ok ? "may hold '%' only as one \"%d\"" : "contains '%'";
  }
  return std::nullopt;
}

Result<void> check_exec_cpu_affinity(const ExecCpuAffinity& a, const std::string& path) {
  if (a.initial) TRYV(parse_id_list(*a.initial, path + ".initial", kMaxCpus));
  if (a.final_cpus) TRYV(parse_id_list(*a.final_cpus, path + ".final", kMaxCpus));
  return {};
}

bool host_has_resctrl() {
  std::ifstream in("/proc/filesystems");
  std::string line;
  bool known = false;
  while (std::getline(in, line))
    if (line.ends_with("\tresctrl")) known = true;
  if (!known) return false;
  struct statfs st;
  constexpr long kResctrlMagic = 0x7655821;  // RDTGROUP_SUPER_MAGIC
  return ::statfs("/sys/fs/resctrl", &st) == 0 && st.f_type == kResctrlMagic;
}

}  // namespace sh::oci
