#include "runtime/lifecycle/process_launch.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include "base/log.hpp"
#include "oci/landlock.hpp"
#include "runtime/linux/apparmor.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/numa_affinity.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "runtime/linux/seccomp_cache.hpp"
#include "runtime/linux/syscall_recorder.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/lifecycle/seccomp_listener.hpp"

namespace sh::lifecycle {

namespace {

std::string env_value(const std::vector<std::string>& env, std::string_view name) {
  for (auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return {};
}

Result<std::string> find_executable(const oci::Process& p) {
  const std::string& arg0 = p.args.front();
  auto usable = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
  };
  if (arg0.find('/') != std::string::npos) {
    std::string path = arg0[0] == '/' ? arg0 : p.cwd + "/" + arg0;
    struct stat st;
    if (::stat(path.c_str(), &st) < 0) return sys_error("exec: \"" + arg0 + "\"");
    if (!S_ISREG(st.st_mode)) return fail("exec: \"" + arg0 + "\": not a regular file");
    return path;
  }
  std::string path_var = env_value(p.env, "PATH");
  if (path_var.empty()) path_var = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    std::string cand = (dir.empty() ? "." : dir) + "/" + arg0;
    if (usable(cand)) return cand;
    start = end + 1;
  }
  return fail("exec: \"" + arg0 + "\": executable file not found in $PATH");
}

}  // namespace

Result<std::vector<seccomp::Filter>> compile_filters(const std::vector<const oci::Seccomp*>& filters,
                                                     const std::string& cache_root) {
  std::vector<seccomp::Filter> out;
  for (auto* f : filters)
    if (f) out.push_back(TRYC("seccomp", seccomp::compile_cached(*f, cache_root)));
  return out;
}

Result<void> keep_container_lsm(const oci::Process& container, oci::Process& p) {
  const auto& theirs = container.apparmor_profile;
  if (!theirs || theirs->empty()) return {};
  if (!p.apparmor_profile || p.apparmor_profile->empty()) {
    p.apparmor_profile = theirs;
    return {};
  }
  if (*p.apparmor_profile != *theirs)
    return fail("exec: process.apparmorProfile \"" + *p.apparmor_profile + "\": the container runs under \"" + *theirs +
                "\", and exec cannot change it");
  return {};
}

Result<LaunchPlan> plan_launch(const oci::Process& p, std::vector<seccomp::Filter> filters,
                               const std::vector<oci::LandlockConfig>& landlock, unsigned preserve_fds) {
  LaunchPlan plan;
  plan.process = &p;
  plan.preserve_fds = preserve_fds;
  if (p.args.empty()) return fail("process.args: must not be empty");
  plan.exe = TRY(find_executable(p));
  plan.filters = std::move(filters);
  // Applied or refused, never dropped: both for init and for exec (and exec --process).
  if (p.selinux_label && !p.selinux_label->empty())
    return fail("process.selinuxLabel: SELinux labels are not supported by this runtime (refused, not ignored)");
  // Above every fd a caller may preserve, so clearing CLOEXEC there never leaks it.
  auto high_fd = [&](int fd, const char* what) -> Result<Fd> {
    Fd high(::fcntl(fd, F_DUPFD_CLOEXEC, int(3 + preserve_fds + 16)));
    if (!high) return sys_error(std::string("move ") + what + " fd");
    return high;
  };
  if (p.apparmor_profile && !p.apparmor_profile->empty()) {
    TRYV(apparmor::exec_attr_text(*p.apparmor_profile));  // a bad name fails here, not at start
    Fd attr = TRY(apparmor::open_exec_attr());
    plan.apparmor = TRY(high_fd(attr.get(), "apparmor attribute"));
  }
  for (auto& ll : landlock) {
    landlock::Negotiated n;
    Fd rs = TRY(landlock::build_ruleset(ll, &n));
    if (!n.dropped.empty() || !n.skipped_paths.empty() || !n.stood_in.empty()) log::warn(landlock::describe(n));
    else log::debug(landlock::describe(n));
    if (rs) plan.landlock.push_back(TRY(high_fd(rs.get(), "landlock ruleset")));
  }
  // As runc: a process whose env has no (or an empty) HOME gets the user's home from the
  // container's /etc/passwd, "/" without one. We are inside the container's root here.
  if (env_value(p.env, "HOME").empty()) {
    Fd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    plan.home_env = "HOME=" + (root ? procattr::container_home(root.get(), p.user.uid) : std::string("/"));
  }
  auto sg = ::open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
  if (sg >= 0) {
    char buf[16] = {0};
    (void)!::read(sg, buf, sizeof buf - 1);
    ::close(sg);
    plan.setgroups_allowed = std::string_view(buf).find("deny") == std::string_view::npos;
  }
  return plan;
}

Result<void> enter_cwd(const std::string& cwd) {
  if (::chdir(cwd.c_str()) < 0) return sys_error("chdir to cwd \"" + cwd + "\" set in config.json");
  char buf[PATH_MAX];
  // A cwd reached through a leaked host fd reads "(unreachable)/..." (CVE-2024-21626).
  if (!::getcwd(buf, sizeof buf)) return sys_error("getcwd after chdir to " + cwd);
  if (buf[0] != '/') return fail("cwd " + cwd + " is outside the container");
  return {};
}

// Only stdio and the preserved fds may survive execve (CVE-2024-21626). Done first, before
// any filter is loaded: a strict seccomp allowlist need not allow close_range, and a
// failure here must stop the launch, never let a host fd through.
Result<void> mark_fds_cloexec(unsigned preserve_fds) {
  for (unsigned i = 0; i < preserve_fds; ++i) {
    int fd = 3 + int(i);
    int fl = ::fcntl(fd, F_GETFD);
    if (fl >= 0 && ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) < 0) return sys_error("keep preserved fd " + std::to_string(fd));
  }
  if (::syscall(SYS_close_range, 3 + preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return sys_error("mark fds close-on-exec");
  return {};
}

namespace {
// The recording filter goes last: from its load on, every syscall of ours waits for the
// recorder, which can only take the listener (pidfd_getfd) once it knows the fd's number.
Result<void> load_recording(const seccomp::Filter& f, int announce) {
  if (announce < 0) return fail("policy learn: the recording filter needs the start connection");
  int next = TRY(recorder::next_fd());
  TRYV(sync::send(announce, sync::Msg::listener, std::to_string(next)));
  Fd listener = TRY(f.load());
  if (listener.get() != next) return fail("policy learn: the recording listener is fd " + std::to_string(listener.get()) +
                                          ", not the announced " + std::to_string(next));
  // Close-on-exec (seccomp makes it so): it goes at execve, once the runtime holds its own copy.
  (void)listener.release();
  return {};
}
}  // namespace

Result<void> launch(const LaunchPlan& plan) {
  const oci::Process& p = *plan.process;
  // First: before no_new_privs (AppArmor refuses a transition under it from a confined
  // caller), the user change and any filter; the kernel switches at our execve.
  if (plan.apparmor) TRYV(apparmor::change_onexec(plan.apparmor.get(), *p.apparmor_profile));
  TRYV(mark_fds_cloexec(plan.preserve_fds));
  bool cwd_done = static_cast<bool>(enter_cwd(p.cwd));  // retried as the user if denied now
  // Landlock, then seccomp: a strict seccomp allowlist need not allow landlock_restrict_self.
  // Without no_new_privs both need CAP_SYS_ADMIN: apply them while we have it.
  auto restrict_and_filter = [&]() -> Result<void> {
    for (auto& rs : plan.landlock) TRYV(landlock::restrict_self(rs.get()));
    for (auto& f : plan.filters)
      if (Fd notify = TRY(f.load())) TRYV(hand_notify_fd(plan.notify_sink, notify.get()));
    if (plan.recording) TRYV(load_recording(*plan.recording, plan.notify_sink));
    return {};
  };
  if (plan.memory_policy) TRYV(procattr::apply_memory_policy(*plan.memory_policy));
  // Before any filter (a strict allowlist need not allow prctl); nothing of ours maps W+X after.
  if (plan.deny_write_execute) TRYV(procattr::deny_write_execute());
  if (plan.final_cpus || plan.reset_affinity)
    TRYV(procattr::apply_cpu_affinity(plan.final_cpus, "process.execCPUAffinity.final"));
  TRYV(caps::apply_bounding(p.capabilities));
  if (!p.no_new_privileges) TRYV(restrict_and_filter());
  TRYV(procattr::apply_user(p.user, plan.setgroups_allowed));
  TRYV(caps::apply_sets(p.capabilities));
  if (!cwd_done) TRYV(enter_cwd(p.cwd));
  if (p.no_new_privileges) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return sys_error("set no_new_privs");
    TRYV(restrict_and_filter());
  }
  std::vector<char*> argv, envp;
  for (auto& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : p.env)
    if (plan.home_env.empty() || !e.starts_with("HOME=")) envp.push_back(const_cast<char*>(e.c_str()));
  if (!plan.home_env.empty()) envp.push_back(const_cast<char*>(plan.home_env.c_str()));
  envp.push_back(nullptr);
  ::execve(plan.exe.c_str(), argv.data(), envp.data());
  int e = errno;
  if (e == EACCES && !plan.landlock.empty())
    return sys_error("exec \"" + plan.exe + "\" (under Landlock only files granted execute run, such as a policy's exec allowlist)", e);
  return sys_error("exec \"" + plan.exe + "\"", e);
}

}  // namespace sh::lifecycle
