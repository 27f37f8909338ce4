// sharness-kms: the KMS sidecar (docs/kms.md). Two commands, both run as root by the
// container's hooks:
//   sharness-kms start --config FILE   set up gate + worker, return once they serve
//   sharness-kms stop  --config FILE   stop them, remove cgroups, socket, uid claims
//   sharness-kms status --config FILE  what runs (JSON); exit 3 when it does not
//   sharness-kms seal --kek F --out V [--credential ID=FILE]... ID[=KEYFILE]...   make a vault (seal_cli.cpp)
// start forks a daemon (the gate), which clones the worker into new namespaces. The parent
// returns 0 only after both reported ready, or prints the first error and returns 1.
#include <fcntl.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/file.hpp"
#include "base/json.hpp"
#include "kms/config.hpp"
#include "kms/freezer.hpp"
#include "kms/gate.hpp"
#include "kms/kms_log.hpp"
#include "cmd/sharness-kms/seal_cli.hpp"
#include "runtime/linux/self_sandbox.hpp"
#include "kms/worker.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/proc_info.hpp"

namespace {

using namespace sh;
using namespace sh::kms;

std::string state_dir(const Config& c) { return c.state_root + "/" + c.name; }
std::string pid_file(const Config& c) { return state_dir(c) + "/kms.pid"; }
std::string uids_file(const Config& c) { return state_dir(c) + "/uids"; }

Result<cgroups::Cgroup> cgroup_of(const Config& c, const char* which) {
  return cgroups::Cgroup(TRY(cgroups::detect_layout()), c.cgroup_parent + "/" + c.name + "/" + which);
}

Result<void> make_cgroup(cgroups::Cgroup cg, const Config& c, int64_t pids) {
  oci::Resources r;
  r.memory = oci::MemoryResources{};
  r.memory->limit = static_cast<int64_t>(c.memory_limit);
  r.pids = oci::PidsResources{pids};
  return cg.create(&r);
}

Result<Fd> listen_on(const std::string& path) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof sa.sun_path) return fail("socket path too long: " + path);
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return fail("socket " + path + ": exists and is not a socket");
    ::unlink(path.c_str());  // a previous instance's
  }
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket");
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return sys_error("bind " + path);
  // Anyone who can reach the path may connect: the mTLS handshake decides who is heard.
  if (::chmod(path.c_str(), 0666) != 0) return sys_error("chmod " + path);
  if (::listen(s.get(), 16) != 0) return sys_error("listen " + path);
  return s;
}

std::string describe_status(int st) {
  if (WIFEXITED(st)) return "worker exited with status " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
    return "worker killed by SIGSYS: a syscall outside its seccomp allowlist";
  if (WIFSIGNALED(st)) return "worker killed by signal " + std::to_string(WTERMSIG(st));
  return "worker status " + std::to_string(st);
}

std::vector<std::string> gate_syscalls() {
  auto s = sandbox::base_syscalls();
  for (const char* n : {"accept4", "poll", "setsockopt", "shutdown", "sendto", "recvfrom", "wait4", "pread64", "pwrite64"})
    s.push_back(n);
  return s;
}

// The daemon: clone the worker, become the gate. Reports "ok" or an error on `ready`.
Result<int> run_gate(const Config& c, Fd& listen_fd, int ready, uint32_t gate_uid, uint32_t worker_uid) {
  int log_fd = 2;
  int chan[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) != 0) return sys_error("socketpair");
  Fd gate_end(chan[0]), worker_end(chan[1]);
  auto worker_cg = TRY(cgroup_of(c, "worker"));
  auto gate_cg = TRY(cgroup_of(c, "gate"));
  // The worker: new pid, net, mount, ipc and uts namespaces; it gets nothing of the gate's
  // (the TLS key is loaded after this clone).
  pid_t pid = static_cast<pid_t>(::syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC |
                                                          CLONE_NEWUTS | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  if (pid < 0) return sys_error("clone the worker");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    listen_fd.reset();
    gate_end.reset();
    ::close(ready);
    worker_main(c, worker_end.get(), log_fd, worker_uid);
  }
  worker_end.reset();
  TRYV(worker_cg.add_pid(pid));
  TRYV(gate_cg.add_pid(::getpid()));
  if (::write(gate_end.get(), "g", 1) != 1) return sys_error("start the worker");
  struct pollfd p{gate_end.get(), POLLIN, 0};
  char msg[1024];
  ssize_t n = ::poll(&p, 1, 20000) == 1 ? ::recv(gate_end.get(), msg, sizeof msg - 1, 0) : -1;
  std::string m = n > 0 ? std::string(msg, static_cast<size_t>(n)) : "no word from the worker";
  if (m != "ready") {
    ::kill(pid, SIGKILL);
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (m.starts_with("error ")) return fail(m.substr(6));
    return fail(m + " (" + describe_status(st) + ")");
  }
  Freezer fz = TRY(Freezer::open(worker_cg));
  // The gate sandboxes itself with few fds: no host cgroup directory stays open in it.
  worker_cg = {};
  gate_cg = {};
  cgroups::close_kept_roots();
  double t = TRY(fz.set(true));
  log_line(log_fd, c.name, "gate", "worker " + std::to_string(pid) + " ready and frozen (" + std::to_string(t) + " ms)");

  OPENSSL_init_ssl(0, nullptr);
  tls::Ctx ctx = TRY(tls::make_ctx(true, c.tls));
  const tls::Peer caller{c.caller_roles(), c.caller_id, {}};  // a KMS serves its own container only
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a logged error, not the gate's end
  sigset_t ss;
  sigemptyset(&ss);
  sigaddset(&ss, SIGTERM);
  sigaddset(&ss, SIGINT);
  if (::sigprocmask(SIG_BLOCK, &ss, nullptr) != 0) return sys_error("block SIGTERM");
  Fd sig(::signalfd(-1, &ss, SFD_CLOEXEC));
  if (!sig) return sys_error("signalfd");
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS) != 0) return sys_error("gate: unshare");
  TRYVC("gate", sandbox::empty_root());
  TRYVC("gate", sandbox::harden(16));
  TRYVC("gate", sandbox::drop_to(gate_uid, gate_uid));
  std::string ll = TRYC("gate", sandbox::confine(gate_syscalls()));
  log_line(log_fd, c.name, "gate", "sandboxed: uid " + std::to_string(gate_uid) + ", " + ll);
  (void)!::write(ready, "ok", 2);
  ::close(ready);
  Gate g{c, listen_fd.get(), gate_end.get(), sig.get(), log_fd, pid, ctx.get(), caller, fz};
  return serve(g);
}

// Close every fd above 2 but `keep`: the daemon must not hold anything its caller (the
// runtime running the hook) left open without O_CLOEXEC.
void close_other_fds(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int k : keep) {
    if (static_cast<unsigned>(k) > from) ::close_range(from, static_cast<unsigned>(k) - 1, 0);
    from = static_cast<unsigned>(k) + 1;
  }
  ::close_range(from, ~0u, 0);
}

Result<Config> config_arg(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[2], "--config") == 0) return load_config(argv[3]);
  return fail("usage: sharness-kms start|stop|status --config FILE");
}

Result<int> start(const Config& c) {
  if (::geteuid() != 0) return fail("start: must run as root (it reads the vault, then drops to its own uid)");
  if (::mkdir(c.state_root.c_str(), 0700) != 0 && errno != EEXIST) return sys_error("mkdir " + c.state_root);
  if (::mkdir(state_dir(c).c_str(), 0700) != 0) {
    if (errno == EEXIST) return fail("start: " + state_dir(c) + " exists: a KMS named \"" + c.name + "\" runs (or was not stopped)");
    return sys_error("mkdir " + state_dir(c));
  }
  uint32_t gate_uid = TRY(lifecycle::allocate_ephemeral_uid(c.state_root, kKmsUidFirst, kKmsUidCount, c.name));
  uint32_t worker_uid = TRY(lifecycle::allocate_ephemeral_uid(c.state_root, kKmsUidFirst, kKmsUidCount, c.name));
  TRYV(write_file_atomic(uids_file(c), std::to_string(gate_uid) + " " + std::to_string(worker_uid) + "\n"));
  TRYV(make_cgroup(TRY(cgroup_of(c, "worker")), c, 1));
  TRYV(make_cgroup(TRY(cgroup_of(c, "gate")), c, 1));
  Fd log;
  if (!c.log.empty()) {
    log = Fd(::open(c.log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
    if (!log) return sys_error("open log " + c.log);
  }
  Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null) return sys_error("open /dev/null");
  Fd listen_fd = TRY(listen_on(c.socket));
  int rp[2];
  if (::pipe2(rp, O_CLOEXEC) != 0) return sys_error("pipe");
  pid_t d = ::fork();
  if (d < 0) return sys_error("fork the gate");
  if (d == 0) {
    ::close(rp[0]);
    ::setsid();
    // The hook's stdio must not stay open in the daemon (the hook runner waits for EOF);
    // fd 2 becomes the log.
    ::dup2(null.get(), 0);
    ::dup2(null.get(), 1);
    ::dup2(log ? log.get() : null.get(), 2);
    log.reset();
    null.reset();
    close_other_fds({listen_fd.get(), rp[1]});
    auto r = run_gate(c, listen_fd, rp[1], gate_uid, worker_uid);
    if (!r) {
      std::string e = "error " + r.error().what();
      (void)!::write(rp[1], e.data(), e.size());
      log_line(2, c.name, "gate", e);
      ::_exit(1);
    }
    ::_exit(*r);
  }
  ::close(rp[1]);
  Fd rd(rp[0]);
  listen_fd.reset();
  std::string m = TRY(read_fd(rd.get(), "gate readiness"));
  if (m != "ok") {
    ::waitpid(d, nullptr, 0);
    return fail(m.starts_with("error ") ? m.substr(6) : "the gate exited before it was ready");
  }
  auto st = proc::stat(d);
  TRYV(write_file_atomic(pid_file(c), std::to_string(d) + " " + std::to_string(st ? st->start_time : 0) + "\n"));
  return 0;
}

// Stop by pid (and start time: never a recycled pid), then remove what start made.
Result<int> stop(const Config& c) {
  if (auto text = read_file(pid_file(c), 128)) {
    pid_t pid = 0;
    unsigned long long start = 0;
    if (std::sscanf(text->c_str(), "%d %llu", &pid, &start) == 2 && pid > 0 && proc::alive(pid, start)) {
      int pfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
      if (pfd >= 0 && proc::alive(pid, start)) {
        Fd p(pfd);
        ::syscall(SYS_pidfd_send_signal, pfd, SIGTERM, nullptr, 0);
        struct pollfd w{pfd, POLLIN, 0};
        if (::poll(&w, 1, 5000) != 1) ::syscall(SYS_pidfd_send_signal, pfd, SIGKILL, nullptr, 0);
      }
    }
  }
  // Whatever is left in the cgroups (a worker that outlived its gate) is killed here.
  std::optional<Error> first;
  for (const char* w : {"worker", "gate"}) {
    auto cg = cgroup_of(c, w);
    if (!cg) return std::unexpected(cg.error());
    if (auto r = cg->destroy(); !r && !first) first = r.error();
  }
  if (auto l = cgroups::detect_layout()) {
    std::string rel = c.cgroup_parent + "/" + c.name;
    for (auto& [ctl, mnt] : l->v1_mounts) ::rmdir((mnt + rel).c_str());
    if (!l->unified_mount.empty()) ::rmdir((l->unified_mount + rel).c_str());
  }
  struct stat st{};
  if (::lstat(c.socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(c.socket.c_str());
  if (auto u = read_file(uids_file(c), 128)) {
    unsigned a = 0, b = 0;
    if (std::sscanf(u->c_str(), "%u %u", &a, &b) == 2) {
      (void)lifecycle::release_ephemeral_uid(c.state_root, a, c.name);
      (void)lifecycle::release_ephemeral_uid(c.state_root, b, c.name);
    }
  }
  ::unlink(pid_file(c).c_str());
  ::unlink(uids_file(c).c_str());
  ::rmdir(state_dir(c).c_str());
  if (first) return fail(std::move(*first));
  return 0;
}

// What runs, for operators and for `state`/`hello`: one JSON object.
Result<int> status(const Config& c) {
  json::Writer w(true);
  w.begin_object().kv("name", c.name).kv("socket", c.socket);
  bool running = false;
  if (auto text = read_file(pid_file(c), 128)) {
    pid_t pid = 0;
    unsigned long long st = 0;
    running = std::sscanf(text->c_str(), "%d %llu", &pid, &st) == 2 && proc::alive(pid, st);
    if (running) w.key("gatePid").integer(pid);
  }
  w.kv("running", running);
  if (auto u = read_file(uids_file(c), 128)) {
    unsigned a = 0, b = 0;
    if (std::sscanf(u->c_str(), "%u %u", &a, &b) == 2) w.key("gateUid").uinteger(a).key("workerUid").uinteger(b);
  }
  if (running) {
    auto cg = TRY(cgroup_of(c, "worker"));
    auto pids = cg.pids();
    if (pids && !pids->empty()) w.key("workerPid").integer(pids->front());
    if (auto f = cg.is_frozen()) w.kv("workerFrozen", *f);
  }
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  return running ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "seal") == 0) {
    auto r = sh::kms::seal_command(std::vector<std::string>(argv, argv + argc), 2);
    if (!r) std::fprintf(stderr, "%s\n", r.error().what().c_str());
    return r ? *r : 1;
  }
  if (argc < 2 || (std::strcmp(argv[1], "start") != 0 && std::strcmp(argv[1], "stop") != 0 &&
                   std::strcmp(argv[1], "status") != 0)) {
    std::fprintf(stderr, "usage: sharness-kms start|stop|status --config FILE | seal --kek F --out V [--credential ID=FILE]... ID[=KEYFILE]...\n");
    return 1;
  }
  auto c = config_arg(argc, argv);
  Result<int> r = !c ? std::unexpected(c.error())
                  : std::strcmp(argv[1], "start") == 0 ? start(*c)
                  : std::strcmp(argv[1], "stop") == 0  ? stop(*c)
                                                       : status(*c);
  if (!r) {
    std::fprintf(stderr, "sharness-kms %s: %s\n", argv[1], r.error().what().c_str());
    if (c && std::strcmp(argv[1], "start") == 0 && r.error().msg.find(" exists: a KMS named") == std::string::npos)
      (void)stop(*c);  // leave nothing behind
    return 1;
  }
  return *r;
}
