#include "runtime/lifecycle/exec.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/file.hpp"
#include "base/text.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/state_rules.hpp"
#include "oci/landlock.hpp"
#include "spec-mapping/extension.hpp"
#include "runtime/lifecycle/preserved_fds.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/lifecycle/process_launch.hpp"
#include "runtime/lifecycle/seccomp_listener.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/numa_affinity.hpp"
#include "oci/spec13.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "runtime/linux/terminal.hpp"

namespace sh::lifecycle {

namespace {

void set_env(std::vector<std::string>& env, const std::string& kv) {
  auto eq = kv.find('=');
  std::string key = kv.substr(0, eq);
  for (auto& e : env)
    if (e.compare(0, key.size() + 1, key + "=") == 0) {
      e = kv;
      return;
    }
  env.push_back(kv);
}

struct Joined {
  std::vector<ns::Join> joins;  // user first
};

// Open init's namespaces (those that differ from ours) while a pidfd pins init.
Result<Joined> open_namespaces(const Record& r, int pidfd) {
  Joined j;
  const std::pair<const char*, int> kinds[] = {{"user", CLONE_NEWUSER}, {"mnt", CLONE_NEWNS},   {"pid", CLONE_NEWPID},
                                               {"net", CLONE_NEWNET},   {"ipc", CLONE_NEWIPC},  {"uts", CLONE_NEWUTS},
                                               {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME}};
  for (auto [name, flag] : kinds) {
    std::string theirs = "/proc/" + std::to_string(r.pid) + "/ns/" + name;
    std::string ours = std::string("/proc/self/ns/") + name;
    struct stat a, b;
    if (::stat(theirs.c_str(), &a) < 0) {
      if (errno == ENOENT && ::stat(ours.c_str(), &b) < 0) continue;  // kernel without it
      return sys_error("open namespace " + theirs);
    }
    if (::stat(ours.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) continue;
    Fd fd = TRY(open_file(theirs, O_RDONLY));
    j.joins.push_back(ns::Join{flag, std::move(fd), theirs});
  }
  // The fds are only init's if init is still the process the pidfd pins.
  if (!proc::alive(r.pid, r.start_time)) return fail("container " + r.id + " is not running");
  (void)pidfd;
  return j;
}

// The child: join, set up, launch. Errors go back over `sock`; success closes it (CLOEXEC).
[[noreturn]] void exec_child(const Joined& j, const oci::Config& c, const oci::Process& p, const ExecOptions& o,
                             const std::optional<policy::Extension>& ext, const std::vector<seccomp::Filter>& filters,
                             const std::vector<cgroups::TasksFile>& cgroup_tasks, int sock, int console) {
  auto run = [&]() -> Result<void> {
    ::prctl(PR_SET_DUMPABLE, 0);  // nothing inside may reach our memory or /proc/<pid>/exe
    TRY(sync::expect(sock, sync::Msg::go, "runtime"));
    // The container's v1 cgroups, joined by this (single-threaded) process itself: no RCU
    // grace period (cgroups.hpp). Into a paused container it freezes here, until `resume`.
    auto joined = cgroups::join_self(cgroup_tasks);
    for (const auto& t : cgroup_tasks) ::close(t.fd.get());
    TRYV(joined);
    for (auto& n : j.joins)
      if (n.flag != CLONE_NEWPID && n.flag != CLONE_NEWTIME && ::setns(n.fd.get(), n.flag) < 0)
        return sys_error("join namespace " + n.path);
    if (p.terminal) TRYV(terminal::setup_console(console, p.console_size));
    if (console >= 0) ::close(console);
    TRYV(procattr::apply_process(p));  // as init does (runc 1.2+ and crun too, for exec)
    // The container's Landlock domain always holds exec (a --process file cannot shed it);
    // the exec'd process's own block, if different, stacks as a second layer.
    // So does a policy's layer.
    std::vector<oci::LandlockConfig> landlock;
    auto block = [](const std::string& json) { return oci::parse_landlock(json, "config.json: process.landlock"); };
    if (c.process && c.process->landlock_json) landlock.push_back(TRY(block(*c.process->landlock_json)));
    if (p.landlock_json && (!c.process || c.process->landlock_json != p.landlock_json))
      landlock.push_back(TRY(block(*p.landlock_json)));
    if (ext && ext->landlock) landlock.push_back(*ext->landlock);
    auto plan = TRY(plan_launch(p, filters, landlock, o.preserve_fds));
    plan.notify_sink = sock;  // our runtime hands a seccomp notify fd to listenerPath
    plan.deny_write_execute = ext && ext->deny_write_execute;  // the floor's, as init got it
    if (c.linux.memory_policy) plan.memory_policy = &*c.linux.memory_policy;
    if (auto& a = p.exec_cpu_affinity) {
      plan.final_cpus = a->final_cpus;
      plan.reset_affinity = a->initial && !a->final_cpus;
    }
    return launch(plan);
  };
  auto r = run();
  (void)sync::send(sock, sync::Msg::error, r.error().what());
  _exit(127);
}

}  // namespace

Result<oci::Process> exec_process(const oci::Process& base, const ExecOptions& o) {
  oci::Process p;
  if (!o.process_file.empty()) {
    std::string text = TRY(read_file(o.process_file, 4u << 20));
    p = TRY(oci::parse_process_json(text, o.process_file));
    if (p.exec_cpu_affinity) TRYV(oci::check_exec_cpu_affinity(*p.exec_cpu_affinity, o.process_file + ": execCPUAffinity"));
  } else {
    p = base;
    p.args = o.args;
    p.terminal = o.tty;
    p.console_size.reset();
  }
  if (p.args.empty()) return fail("exec: no command given (args must not be empty)");
  for (auto& e : o.env) set_env(p.env, e);
  if (!o.cwd.empty()) p.cwd = o.cwd;
  if (!o.user.empty()) {
    auto colon = o.user.find(':');
    p.user.uid = TRY(parse_id(o.user.substr(0, colon), "user"));
    if (colon != std::string::npos) p.user.gid = TRY(parse_id(o.user.substr(colon + 1), "group"));
  }
  for (auto& g : o.additional_gids) p.user.additional_gids.push_back(TRY(parse_id(g, "additional gid")));
  for (auto& cap : o.caps) {
    // Never inheritable or ambient (CVE-2022-27650): only what was asked, where asked.
    for (auto* set : {&p.capabilities.bounding, &p.capabilities.effective, &p.capabilities.permitted}) {
      if (!*set) *set = std::vector<std::string>{};
      (*set)->push_back(cap);
    }
  }
  if (o.no_new_privs) p.no_new_privileges = true;
  if (!o.apparmor.empty()) p.apparmor_profile = o.apparmor;
  TRYV(keep_container_lsm(base, p));
  if (p.cwd.empty() || p.cwd[0] != '/') return fail("exec: cwd \"" + p.cwd + "\" must be an absolute path");
  TRYV(caps::warn_ambient_left_out(p.capabilities, "exec: process.capabilities.ambient"));  // as create does
  return p;
}

Result<int> exec(const Globals& g, const ExecOptions& o) {
  TRYV(check_preserved_fds(o.preserve_fds));  // before we open anything
  Store store(g.root);
  ContainerDir dir = TRY(store.open(o.id, Lock::shared));
  Record rec = TRY(dir.load());
  Status s = status_of(rec);
  TRYV(rules::can_exec(o.id, s, o.ignore_paused));
  oci::Config c = TRY(load_saved_config(dir));
  oci::Process p = TRY(exec_process(c.process.value_or(oci::Process{}), o));
  // Created under a policy: the exec is held to the floor create recorded (floor.hpp).
  if (auto floor = TRY(load_floor(dir, rec)))
    TRYV(hold_exec(*floor, p, ExecFlags{!o.user.empty(), !o.additional_gids.empty(), o.caps}));
  if (p.terminal && o.console_socket.empty()) return fail("exec --tty needs --console-socket");
  // A policy's stacked filter holds exec too. Compiled here, on the host, where the cache is.
  std::optional<policy::Extension> ext;
  if (c.sharness_json) {
    auto doc = TRY(json::Document::parse(*c.sharness_json, "config.json: sharness"));
    ext = TRY(policy::parse_extension(doc.root()));
  }
  RuntimeConfig rc = TRY(load_runtime_config(g.config_path.empty() ? kDefaultRuntimeConfig : g.config_path,
                                             !g.config_path.empty()));
  auto filters = TRY(compile_filters({c.linux.seccomp ? &*c.linux.seccomp : nullptr,
                                      ext && ext->seccomp ? &*ext->seccomp : nullptr},
                                     rc.seccomp_cache ? g.root : std::string()));

  Fd pidfd(int(::syscall(SYS_pidfd_open, rec.pid, 0)));
  if (!pidfd) return sys_error("container " + o.id + " init");
  Joined j = TRY(open_namespaces(rec, pidfd.get()));
  auto layout = TRY(cgroups::detect_layout());
  std::string cgpath = rec.cgroup_path;
  if (!o.cgroup.empty()) {
    if (o.cgroup.find("..") != std::string::npos || o.cgroup.find(':') != std::string::npos)
      return fail("exec --cgroup " + o.cgroup + ": only a sub-cgroup path of the container is accepted");
    cgpath += "/" + o.cgroup;
  }
  cgroups::Cgroup cg(layout, cgpath);
  Fd console;
  if (!o.console_socket.empty()) console = TRY(terminal::connect_console_socket(o.console_socket));

  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("socketpair");
  Fd parent_sock(sp[0]), child_sock(sp[1]);
  // pid and time namespaces apply to children: enter them here, right before clone3. An
  // unprivileged runtime has CAP_SYS_ADMIN over them (their owner is the container's user
  // namespace) only inside that user namespace: it joins it first, and the child inherits it.
  if (::geteuid() != 0 && !j.joins.empty() && j.joins.front().flag == CLONE_NEWUSER &&
      std::ranges::any_of(j.joins, [](const ns::Join& n) { return n.flag == CLONE_NEWPID || n.flag == CLONE_NEWTIME; })) {
    if (::setns(j.joins.front().fd.get(), CLONE_NEWUSER) < 0) return sys_error("join namespace " + j.joins.front().path);
    j.joins.erase(j.joins.begin());
  }
  for (auto& n : j.joins)
    if ((n.flag == CLONE_NEWPID || n.flag == CLONE_NEWTIME) && ::setns(n.fd.get(), n.flag) < 0)
      return sys_error("join namespace " + n.path);
  // A rootless container made without a cgroup (create's warning) has none to join.
  bool has_cgroup = !rec.cgroup_path.empty();
  Fd cg_dir(has_cgroup ? TRY(cg.open_v2_dir()) : -1);
  std::vector<cgroups::TasksFile> cgroup_tasks;
  if (!cg_dir && has_cgroup) cgroup_tasks = TRY(cg.open_v1_tasks());
  // execCPUAffinity.initial: the runtime's part, up to joining the cgroup, runs there (the
  // child inherits it; joining a cpuset may change it, and launch() sets the final one).
  if (p.exec_cpu_affinity && p.exec_cpu_affinity->initial)
    TRYV(procattr::apply_cpu_affinity(p.exec_cpu_affinity->initial, "process.execCPUAffinity.initial"));
  // Into a paused container the child freezes on joining the cgroup, until `resume`, which
  // needs this lock: everything is pinned by fds now, so let it go first.
  if (s == Status::paused) dir.unlock();
  int child_pidfd = -1;
  struct clone_args args{};
  args.flags = CLONE_PIDFD | (cg_dir ? CLONE_INTO_CGROUP : 0);
  args.pidfd = reinterpret_cast<uint64_t>(&child_pidfd);
  args.exit_signal = SIGCHLD;
  args.cgroup = cg_dir ? uint64_t(cg_dir.get()) : 0;
  long pid = ::syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0) return sys_error("clone3 exec process");
  if (pid == 0) {
    ::close(dir.fd());  // the flock is shared with our copy: do not hold it past the runtime
    for (int fd : cg.kept_fds()) ::close(fd);  // no host cgroup directory in the container
    if (cg_dir) ::close(cg_dir.get());
    parent_sock.reset();
    exec_child(j, c, p, o, ext, filters, cgroup_tasks, child_sock.get(), console.get());
  }
  cgroup_tasks.clear();
  Launched l;
  l.pid = pid_t(pid);
  l.pidfd = Fd(child_pidfd);
  child_sock.reset();
  console.reset();
  auto abort_child = [&](Error e) -> Result<int> {
    ::kill(l.pid, SIGKILL);
    ::waitpid(l.pid, nullptr, 0);
    return fail(std::move(e));
  };
  if (!cg_dir && has_cgroup)
    if (auto r = cg.add_pid(l.pid, /*except_v1=*/true); !r) return abort_child(std::move(r.error()).context("cgroup " + cgpath));
  if (auto r = sync::send(parent_sock.get(), sync::Msg::go); !r) return abort_child(r.error());
  auto m = recv_serving_listener(parent_sock.get(), [&]() -> Result<ListenerTarget> {
    return listener_of(c, to_state(rec, Status::running), l.pid);
  });
  if (!m) return abort_child(m.error());
  if (*m) {
    int status;
    ::waitpid(l.pid, &status, 0);
    return fail((*m)->type == sync::Msg::error ? (*m)->payload : "protocol error from exec process");
  }
  if (!o.pid_file.empty()) TRYV(write_pid_file(o.pid_file, l.pid));
  // The process runs: pause/resume/update/delete must not wait for it to end.
  dir.unlock();
  if (o.detach) return 0;
  return wait_forwarding(l);
}

}  // namespace sh::lifecycle
