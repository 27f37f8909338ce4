// The container side of create and start. Order matters and follows the spec:
//   wait for the runtime (maps, cgroup) -> join/create namespaces -> hostname ->
//   rootfs (prepare) -> prestart/createRuntime hooks (by the runtime) -> createContainer
//   hooks -> pivot_root -> sysctl -> masked/readonly paths -> console -> rlimits etc. ->
//   resolve the executable, chdir -> compile seccomp -> ready -> [start barrier] ->
//   startContainer hooks -> user, capabilities, no_new_privs, seccomp -> execve.
#include "runtime/lifecycle/init.hpp"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>

#include "base/file.hpp"
#include "base/log.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/seccomp.hpp"
#include "runtime/linux/terminal.hpp"

namespace sh::lifecycle {

namespace {

// Write a sysctl through the container's own procfs: the file must be on procfs and the
// walk must not follow symlinks (CVE-2025-52881 redirected such writes).
Result<void> write_sysctl(const std::string& key, const std::string& value) {
  std::string rel = "sys/" + key;
  for (auto& c : rel)
    if (c == '.') c = '/';
  if (rel.find("..") != std::string::npos) return fail("sysctl " + key + ": invalid name");
  Fd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!proc) return sys_error("open /proc for sysctl " + key);
  struct open_how how{};
  how.flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
  Fd f(int(::syscall(SYS_openat2, proc.get(), rel.c_str(), &how, sizeof how)));
  if (!f) return sys_error("sysctl " + key + ": open /proc/" + rel);
  struct statfs sfs;
  if (::fstatfs(f.get(), &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) return fail("sysctl " + key + ": not on procfs");
  return write_all(f.get(), value, "/proc/" + rel);
}

std::string env_value(const std::vector<std::string>& env, std::string_view name) {
  for (auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return {};
}

// Find the executable as execvp would, inside the container, so a missing binary fails create.
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
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/" + arg0;
    if (usable(cand)) return cand;
    start = end + 1;
  }
  return fail("exec: \"" + arg0 + "\": executable file not found in $PATH");
}

// chdir into cwd and check we really are inside the container (CVE-2024-21626: a cwd
// reached through a leaked host fd would print as "(unreachable)/...").
Result<void> enter_cwd(const std::string& cwd) {
  if (::chdir(cwd.c_str()) < 0) return sys_error("chdir to cwd \"" + cwd + "\" set in config.json");
  char buf[PATH_MAX];
  if (!::getcwd(buf, sizeof buf)) return sys_error("getcwd after chdir to " + cwd);
  if (buf[0] != '/') return fail("cwd " + cwd + " is outside the container");
  return {};
}

struct Prepared {
  std::string exe;
  seccomp::Filter filter;
};

Result<void> join_namespaces(const InitContext& ctx) {
  for (auto& j : ctx.plan->joins) {
    if (j.flag == CLONE_NEWPID || j.flag == CLONE_NEWTIME) continue;  // joined by the runtime before clone
    if (::setns(j.fd.get(), j.flag) < 0) return sys_error("join namespace " + j.path);
  }
  unsigned long later = 0;
  if (ctx.plan->joins_user()) later = ctx.plan->new_flags & ~(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWTIME);
  if (ctx.cgroupns_after_join) later |= CLONE_NEWCGROUP;
  if (later && ::unshare(int(later)) < 0) return sys_error("unshare namespaces");
  return {};
}

Result<void> become_root_in_userns(const InitContext& ctx) {
  if (!ctx.plan->new_user() && !ctx.plan->joins_user()) return {};
  if (::setresgid(0, 0, 0) < 0) return sys_error("setresgid 0 in user namespace");
  if (::setresuid(0, 0, 0) < 0) return sys_error("setresuid 0 in user namespace");
  return {};
}

Result<void> setup_uts(const oci::Config& c) {
  if (!c.hostname.empty() && ::sethostname(c.hostname.data(), c.hostname.size()) < 0)
    return sys_error("sethostname " + c.hostname);
  if (!c.domainname.empty() && ::setdomainname(c.domainname.data(), c.domainname.size()) < 0)
    return sys_error("setdomainname " + c.domainname);
  return {};
}

Result<void> join_session_keyring(const InitContext& ctx) {
  if (ctx.no_new_keyring) return {};
  std::string name = "_ses." + ctx.id;
  if (::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name.c_str()) < 0 && errno != ENOSYS && errno != EPERM &&
      errno != EACCES)
    return sys_error("join session keyring");
  return {};
}

// Everything up to `ready`. Errors go to the runtime over the sync socket.
Result<Prepared> setup(const InitContext& ctx) {
  const oci::Config& c = *ctx.config;
  const oci::Process& p = *c.process;
  std::string state_json = TRY(sync::expect(ctx.sync_fd, sync::Msg::go, "runtime")).payload;
  TRYV(join_namespaces(ctx));
  TRYV(become_root_in_userns(ctx));
  if (ctx.plan->has(CLONE_NEWUTS)) TRYV(setup_uts(c));
  TRYV(join_session_keyring(ctx));

  rootfs::Options ro;
  ro.rootfs = ctx.rootfs;
  ro.no_pivot = ctx.no_pivot;
  ro.in_user_namespace = ctx.plan->new_user() || ctx.plan->joins_user();
  ro.new_mount_ns = (ctx.plan->new_flags & CLONE_NEWNS) != 0;
  Fd rootfd = TRY(rootfs::prepare(c, ro));

  if (!c.hooks.prestart.empty() || !c.hooks.create_runtime.empty()) {
    TRYV(sync::send(ctx.sync_fd, sync::Msg::hooks_request));
    state_json = TRY(sync::expect(ctx.sync_fd, sync::Msg::hooks_done, "runtime")).payload;
  }
  TRYV(hooks::run(c.hooks.create_container, "createContainer", state_json));
  TRYV(rootfs::pivot(c, ro, rootfd.get()));
  rootfd.reset();
  for (auto& [k, v] : c.linux.sysctl) TRYV(write_sysctl(k, v));
  TRYV(rootfs::finalize(c, ro));

  if (p.terminal) {
    if (ctx.console_fd < 0) return fail("process.terminal is true but there is no console socket");
    TRYV(terminal::setup_console(ctx.console_fd, p.console_size));
    ::close(ctx.console_fd);
  }
  if (p.oom_score_adj) TRYV(procattr::apply_oom_score_adj(*p.oom_score_adj));
  if (c.linux.personality) TRYV(procattr::apply_personality(*c.linux.personality));
  if (p.scheduler) TRYV(procattr::apply_scheduler(*p.scheduler));
  if (p.io_priority) TRYV(procattr::apply_io_priority(*p.io_priority));
  TRYV(procattr::apply_rlimits(p.rlimits));

  Prepared out;
  out.exe = TRY(find_executable(p));
  if (c.linux.seccomp) out.filter = TRYC("seccomp", seccomp::Filter::compile(*c.linux.seccomp));
  return out;
}

// After the start barrier: the last bounds, applied from above, then execve.
Result<void> finish(const InitContext& ctx, const Prepared& prep, int conn) {
  const oci::Config& c = *ctx.config;
  const oci::Process& p = *c.process;
  auto msg = TRY(sync::expect(conn, sync::Msg::start, "start command"));
  TRYV(hooks::run(c.hooks.start_container, "startContainer", msg.payload));

  bool cwd_done = static_cast<bool>(enter_cwd(p.cwd));  // retried as the user below if denied
  // Without no_new_privs, loading a filter needs CAP_SYS_ADMIN: load it while we still have it.
  if (!p.no_new_privileges && !prep.filter.empty()) TRYV(prep.filter.load());
  TRYV(caps::apply_bounding(p.capabilities));
  bool setgroups_ok = true;
  if (ctx.plan->new_user()) {
    auto sg = read_file("/proc/self/setgroups");
    setgroups_ok = !sg || sg->find("deny") == std::string::npos;
  }
  TRYV(procattr::apply_user(p.user, setgroups_ok));
  TRYV(caps::apply_sets(p.capabilities));
  if (!cwd_done) TRYV(enter_cwd(p.cwd));
  if (p.no_new_privileges && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return sys_error("set no_new_privs");
  if (p.no_new_privileges && !prep.filter.empty()) TRYV(prep.filter.load());

  // Only stdio and the preserved fds survive execve (CVE-2024-21626).
  for (unsigned i = 0; i < ctx.preserve_fds; ++i) {
    int fd = 3 + int(i);
    int fl = ::fcntl(fd, F_GETFD);
    if (fl >= 0) ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
  }
  ::syscall(SYS_close_range, 3 + ctx.preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);

  std::vector<char*> argv, envp;
  for (auto& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : p.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execve(prep.exe.c_str(), argv.data(), envp.data());
  return sys_error("exec \"" + prep.exe + "\"");
}

[[noreturn]] void die(int fd, const Error& e) {
  (void)sync::send(fd, sync::Msg::error, e.what());
  _exit(1);
}

}  // namespace

void init_main(const InitContext& ctx) {
  // A flock belongs to the open file description we share with the runtime: drop our copy
  // or the lock outlives the runtime's command.
  if (ctx.state_dir_fd >= 0) ::close(ctx.state_dir_fd);
  // Die with the runtime while it still sets us up; never be dumpable (no /proc/<pid>/exe
  // or memory access from the container to a process that still holds runtime state).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_DUMPABLE, 0);
  ::prctl(PR_SET_NAME, "sharness:[init]");
  auto prep = setup(ctx);
  if (!prep) die(ctx.sync_fd, prep.error());
  ::prctl(PR_SET_PDEATHSIG, 0);
  if (auto r = sync::send(ctx.sync_fd, sync::Msg::ready); !r) _exit(1);
  ::close(ctx.sync_fd);

  // The start barrier: `start` connects here. A failed peer (closed before sending) is ignored.
  for (;;) {
    int conn = ::accept4(ctx.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      _exit(1);
    }
    ::close(ctx.listen_fd);
    auto r = finish(ctx, *prep, conn);
    die(conn, r.error());
  }
}

}  // namespace sh::lifecycle
