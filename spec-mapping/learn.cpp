#include "spec-mapping/learn.hpp"

#include <algorithm>

#include "base/lexical_path.hpp"
#include "oci/landlock.hpp"
#include "spec-mapping/seccomp_map.hpp"

namespace sh::policy {
namespace {

uint64_t fs(std::string_view name) { return oci::find_landlock_right(oci::LandlockKind::fs, name)->bit; }

bool under(const std::string& p, std::string_view dir) {
  if (dir == "/") return true;
  return p.starts_with(dir) && (p.size() == dir.size() || p[dir.size()] == '/');
}

// Where every file keeps its own rule: a reviewer grants /etc/ld.so.cache, never /etc (it holds
// the shadow file and keys), and devices one by one.
bool kept_by_name(const std::string& dir) { return dir == "/" || under(dir, "/etc") || under(dir, "/dev"); }

bool always_allowed(const std::string& name) {
  return std::ranges::any_of(kAlwaysAllowed, [&](const char* a) { return name == a; });
}

}  // namespace

Policy recording_floor(const Policy& from) {
  Policy p = from;
  p.syscalls.reset();  // the recording filter takes their place
  p.files.reset();
  p.exec.reset();
  p.ports.reset();
  p.pids.reset();
  // What the learned exec section will imply (landlock_map's apply_exec_allowlist): a read-only
  // root and a pid namespace. The run is recorded as it will run, so a write to the image fails
  // now (nothing written) instead of being learned and then refused.
  p.mounts.readonly_root = true;
  if (std::ranges::find(p.namespaces, "pid") == p.namespaces.end()) {
    p.namespaces.push_back("pid");
    std::ranges::sort(p.namespaces);
  }
  if (p.id.empty()) p.id = "learning";
  return p;
}

std::vector<FileRule> fold_files(const Trace& t) {
  const uint64_t pinned = fs("execute") | fs("read_file");
  // The nearest path at or above p that the run did not make (it exists at create).
  auto existing = [&](std::string p) {
    for (std::string a = p; a != "/"; a = parent_path(a))
      if (t.created.contains(a)) p = parent_path(a);
    return p;
  };
  auto listed = [&](const std::string& d) {
    auto it = t.dirs.find(d);
    return it != t.dirs.end() && (it->second & fs("read_dir"));
  };
  std::map<std::string, int> touched_in;  // directory -> how many of its files the run touched
  for (const auto& [p, r] : t.files) touched_in[parent_path(p)]++;
  std::map<std::string, uint64_t> rules;
  for (const auto& [p, r] : t.dirs) rules[under(p, "/proc") ? "/proc" : existing(p)] |= r;
  for (const auto& [p, used] : t.files) {
    uint64_t r = t.execs.contains(p) ? used & ~pinned : used;
    if (!r) continue;
    if (under(p, "/proc")) {
      rules["/proc"] |= r;
      continue;
    }
    std::string at = existing(p);
    if (at == p) {
      const std::string d = parent_path(p);
      std::string up = d;
      while (!kept_by_name(up) && !listed(up)) up = parent_path(up);
      if (!kept_by_name(up)) at = up;
      else if (!kept_by_name(d) && touched_in[d] >= 2) at = d;
    }
    rules[at] |= r;
  }
  std::vector<FileRule> out;
  for (const auto& [p, r] : rules) {
    bool covered = false;
    for (std::string a = p; a != "/" && !covered;) {
      a = parent_path(a);
      auto it = rules.find(a);
      covered = it != rules.end() && (it->second & r) == r;
    }
    if (!covered) out.push_back({p, r});
  }
  return out;
}

Result<Policy> learned_policy(const LearnInput& in) {
  const Trace& t = *in.trace;
  Policy p = in.from ? *in.from : Policy{};
  p.id = in.id;
  p.description = in.description;
  Syscalls s;
  if (in.from && in.from->syscalls) s.default_action = in.from->syscalls->default_action;
  for (const auto& n : t.syscalls)
    if (!always_allowed(n)) s.allow.push_back(n);
  p.syscalls = std::move(s);
  p.files = fold_files(t);
  std::vector<Pin> pins;
  for (const auto& path : t.execs) {
    auto it = in.sha256 ? in.sha256->find(path) : decltype(in.sha256->end()){};
    if (!in.sha256 || it == in.sha256->end()) return fail("policy learn: " + path + " was executed and has no SHA-256");
    pins.push_back({path, it->second});
  }
  p.exec = std::move(pins);
  p.ports = Ports{{t.bind.begin(), t.bind.end()}, {t.connect.begin(), t.connect.end()}};
  // pids counts threads as tasks, and fork false is a limit of 1: only a run that stayed one task.
  if (!t.forked && t.peak_tasks <= 1) p.pids = Pids{.limit = std::nullopt, .fork = false};
  else p.pids = Pids{.limit = std::max<int64_t>(t.peak_tasks, 2), .fork = true};
  // Through the parser: what is written is what every other command reads, with its hash.
  return parse_policy(policy_to_json(p, true), "learned policy " + p.id);
}

}  // namespace sh::policy
