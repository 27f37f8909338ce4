#include "runtime/linux/namespaces.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "base/file.hpp"

namespace sh::ns {

namespace {
struct Kind {
  std::string_view type;
  const char* proc;
  int flag;
};
constexpr Kind kKinds[] = {
    {"user", "user", CLONE_NEWUSER}, {"pid", "pid", CLONE_NEWPID},       {"network", "net", CLONE_NEWNET},
    {"mount", "mnt", CLONE_NEWNS},   {"ipc", "ipc", CLONE_NEWIPC},       {"uts", "uts", CLONE_NEWUTS},
    {"cgroup", "cgroup", CLONE_NEWCGROUP}, {"time", "time", CLONE_NEWTIME},
};
}  // namespace

int clone_flag(std::string_view type) {
  for (auto& k : kKinds)
    if (k.type == type) return k.flag;
  return 0;
}

const char* proc_name(std::string_view type) {
  for (auto& k : kKinds)
    if (k.type == type) return k.proc;
  return "";
}

bool Plan::new_user() const { return new_flags & CLONE_NEWUSER; }
bool Plan::joins_user() const {
  return std::any_of(joins.begin(), joins.end(), [](const Join& j) { return j.flag == CLONE_NEWUSER; });
}
bool Plan::has(int flag) const {
  return (new_flags & flag) || std::any_of(joins.begin(), joins.end(), [&](const Join& j) { return j.flag == flag; });
}

Result<Plan> plan(const oci::Config& c) {
  Plan p;
  for (size_t i = 0; i < c.linux.namespaces.size(); ++i) {
    const auto& n = c.linux.namespaces[i];
    int flag = clone_flag(n.type);
    if (!flag) return fail("linux.namespaces[" + std::to_string(i) + "].type: unknown namespace type \"" + n.type + "\"");
    if (n.path.empty()) {
      p.new_flags |= flag;
      continue;
    }
    Fd fd = TRY(open_file(n.path, O_RDONLY));
    int t = ::ioctl(fd.get(), NS_GET_NSTYPE);
    if (t < 0) return sys_error("namespace path " + n.path + " for " + n.type + ": not a namespace");
    if (t != flag) return fail("namespace path " + n.path + ": is not a " + n.type + " namespace");
    p.joins.push_back(Join{flag, std::move(fd), n.path});
  }
  // Join the user namespace first: it decides what the other joins are allowed to do.
  std::stable_partition(p.joins.begin(), p.joins.end(), [](const Join& j) { return j.flag == CLONE_NEWUSER; });
  return p;
}

std::string format_id_map(const std::vector<oci::IdMapping>& m) {
  std::string s;
  for (auto& e : m)
    s += std::to_string(e.container_id) + " " + std::to_string(e.host_id) + " " + std::to_string(e.size) + "\n";
  return s;
}

namespace {

bool own_id_only(const std::vector<oci::IdMapping>& m, uint32_t id) {
  return m.size() == 1 && m[0].host_id == id && m[0].size == 1;
}

// The absolute path of a tool, looked up in $PATH (then the usual bin directories).
std::string find_tool(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::string path = std::string(env && *env ? env : "") + ":/usr/bin:/usr/sbin:/bin:/sbin";
  for (size_t at = 0; at <= path.size();) {
    size_t end = path.find(':', at);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(at, end - at);
    at = end + 1;
    if (dir.empty() || dir[0] != '/') continue;  // a relative entry would depend on our cwd
    std::string full = dir + "/" + name;
    if (::access(full.c_str(), X_OK) == 0) return full;
  }
  return {};
}

// Run newuidmap/newgidmap with an empty environment; its own message is the error.
Result<void> run_map_tool(const char* name, const char* file, pid_t pid, const std::vector<oci::IdMapping>& m) {
  std::string tool = find_tool(name);
  std::string what = std::string(file) + " of the container's user namespace";
  if (tool.empty())
    return fail(what + ": an unprivileged user needs " + name + " (Debian's uidmap package) for a map other " +
                "than its own id, size 1: " + name + " not found in $PATH");
  std::vector<std::string> args = map_tool_args(pid, m);
  std::string shown = tool;
  for (auto& a : args) shown += " " + a;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) return sys_error(std::string("pipe for ") + name);
  Fd rd(p[0]), wr(p[1]);
  std::vector<char*> argv{tool.data()};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t child = ::fork();
  if (child < 0) return sys_error("fork " + shown);
  if (child == 0) {
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(wr.get(), 1) < 0 || ::dup2(wr.get(), 2) < 0) _exit(127);
    ::execve(tool.c_str(), argv.data(), envp);
    _exit(127);
  }
  wr.reset();
  auto out = read_fd(rd.get(), name, 64 << 10);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return sys_error("wait for " + shown);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  std::string msg = out ? *out : std::string();
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return fail(what + ": " + shown + " failed (" +
              (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                 : "signal " + std::to_string(WTERMSIG(status))) +
              (msg.empty() ? std::string(")") : "): " + msg) +
              " (the ranges must be granted in /etc/" + (file[0] == 'u' ? "subuid" : "subgid") + ")");
}

}  // namespace

IdMapPlan plan_id_maps(const std::vector<oci::IdMapping>& uids, const std::vector<oci::IdMapping>& gids,
                       bool privileged, uint32_t euid, uint32_t egid) {
  IdMapPlan p;
  if (privileged) return p;
  p.uid_tool = !uids.empty() && !own_id_only(uids, euid);
  p.gid_tool = !gids.empty() && !own_id_only(gids, egid);
  // The kernel takes an unprivileged gid_map only once setgroups is denied; newgidmap decides
  // for itself (it checks /etc/subgid, and so may leave setgroups allowed).
  p.deny_setgroups = !gids.empty() && !p.gid_tool;
  return p;
}

std::vector<std::string> map_tool_args(pid_t pid, const std::vector<oci::IdMapping>& m) {
  std::vector<std::string> a{std::to_string(pid)};
  for (auto& e : m) {
    a.push_back(std::to_string(e.container_id));
    a.push_back(std::to_string(e.host_id));
    a.push_back(std::to_string(e.size));
  }
  return a;
}

Result<void> write_id_maps(pid_t pid, const std::vector<oci::IdMapping>& uids,
                           const std::vector<oci::IdMapping>& gids) {
  IdMapPlan plan = plan_id_maps(uids, gids, ::geteuid() == 0, ::geteuid(), ::getegid());
  std::string base = "/proc/" + std::to_string(pid) + "/";
  // One write each: the kernel accepts a map only in a single write(2).
  if (plan.uid_tool) TRYV(run_map_tool("newuidmap", "uid_map", pid, uids));
  else if (!uids.empty()) TRYV(write_file(base + "uid_map", format_id_map(uids)));
  if (plan.deny_setgroups) TRYV(write_file(base + "setgroups", "deny"));
  if (plan.gid_tool) TRYV(run_map_tool("newgidmap", "gid_map", pid, gids));
  else if (!gids.empty()) TRYV(write_file(base + "gid_map", format_id_map(gids)));
  return {};
}

}  // namespace sh::ns
