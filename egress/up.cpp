// `sharness-egress up`, the createRuntime hook: makes the door's listener on 127.0.0.1:3128 inside
// the container's network namespace (entered with setns, then left), claims a throwaway uid, and
// forks a supervisor which clones the door into mount, pid, ipc and uts namespaces of its own (the
// host's network: it reaches out; nothing of the container's but the listener) and waits until the
// door says it serves. If the door dies the listener dies with it: the container keeps an empty
// network namespace and gains nothing. `up()` at the bottom is the whole order, one named step per line.
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "base/file.hpp"
#include "base/log.hpp"
#include "edges/proxy_state.hpp"
#include "edges/sockets.hpp"
#include "egress/ca.hpp"
#include "egress/commands.hpp"
#include "egress/plan.hpp"
#include "kms/host/plan.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/self_sandbox.hpp"
#include "spec-mapping/egress_map.hpp"

namespace sh::egress {
namespace {

// How long the door may take to read its config, make its contexts and confine itself (a TCG
// guest is slow); after that create fails.
constexpr int kReadyMs = 30000;
// The door's own words once confined (docs/egress.md "The door's interface": Start).
constexpr const char* kServing = "door serving";

struct Up {
  Up(const edges::Opts& opts, edges::ContainerState state) : o(opts), st(std::move(state)) {}
  const edges::Opts& o;
  edges::ContainerState st;
  std::string dir;  // <root>/<id>/egress
  std::string kms_socket_dir;  // the KMS's socket dir when the door asks it for credentials, else ""
  Fd init_pidfd, host_net, cont_net, listener, log, err, exe;
  uint32_t uid = 0;  // the door's
  edges::Saved saved;
};

Result<Fd> open_ns(pid_t pid, const char* ns) { return open_file("/proc/" + std::to_string(pid) + "/ns/" + ns, O_RDONLY); }

// Init's pidfd (the door ends with it), both network namespaces, the door's directory.
Result<void> open_container(Up& u) {
  if (u.st.pid <= 0) return fail("container " + u.st.id + ": no init pid in the hook state");
  u.dir = door_dir(u.o.root, u.st.id);
  TRY(open_file(u.dir + "/" + kConfigFile, O_RDONLY | O_NOFOLLOW));  // provisioned by create
  u.init_pidfd = Fd(int(::syscall(SYS_pidfd_open, u.st.pid, 0)));
  if (!u.init_pidfd) return sys_error("pidfd_open container init " + std::to_string(u.st.pid));
  u.host_net = TRY(open_ns(::getpid(), "net"));
  u.cont_net = TRY(open_ns(u.st.pid, "net"));
  return {};
}

// 127.0.0.1:3128 on the container's own lo: the only way out it has.
Result<void> listen_in_container(Up& u) {
  if (::setns(u.cont_net.get(), CLONE_NEWNET) < 0) return sys_error("enter the container's network namespace");
  auto l = edges::tcp_listen_local(policy::kEgressProxyPort);
  if (::setns(u.host_net.get(), CLONE_NEWNET) < 0) return sys_error("return to the host network namespace");
  u.listener = TRYC("the door's listener in the container", std::move(l));
  u.host_net.reset();
  u.cont_net.reset();
  return {};
}

// A throwaway uid for the door, from the runtime config's range.
Result<void> claim_uid(Up& u) {
  auto rc = TRY(lifecycle::load_runtime_config(u.o.config.empty() ? lifecycle::kDefaultRuntimeConfig : u.o.config,
                                               !u.o.config.empty()));
  u.uid = TRY(lifecycle::allocate_ephemeral_uid(u.o.root, rc.ephemeral_first, rc.ephemeral_count, u.st.id));
  u.saved.uid = u.uid;
  return {};
}

Result<void> give(const std::string& path, std::initializer_list<const char*> files, uint32_t uid) {
  Fd d = TRY(open_file(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  for (const char* f : files)
    if (::fchownat(d.get(), f, uid, uid, AT_SYMLINK_NOFOLLOW) < 0) return sys_error("chown " + path + "/" + f);
  if (::fchown(d.get(), uid, uid) < 0) return sys_error("chown " + path);
  return {};
}

// The CA's directory and key given to the door's uid (it reads them as that uid), and its KMS
// leaf when it has one (provisioned when it asks the KMS for credentials).
Result<void> give_ca(Up& u) {
  TRYV(give(u.dir + "/" + kCaDir, {kCaCertFile, kCaKeyFile}, u.uid));
  struct stat st {};
  if (::lstat((u.dir + "/" + kKmsTlsDir).c_str(), &st) == 0) {
    TRYV(give(u.dir + "/" + kKmsTlsDir, {"ca.pem", "cert.pem", "key.pem"}, u.uid));
    u.kms_socket_dir = kms::kms_socket_dir(u.o.root, u.st.id);
  }
  return {};
}

// The request log (the door's fd 4), its stderr, this binary (the door is the same program), and
// the empty mount point the door's namespace binds its directory over.
Result<void> open_files(Up& u) {
  u.log = TRY(open_file(u.dir + "/" + kLogFile, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600));
  u.err = TRY(open_file(u.dir + "/" + kErrFile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600));
  u.exe = TRY(open_file("/proc/self/exe", O_RDONLY));
  if (::mkdir(kDoorDirInDoor, 0755) < 0 && errno != EEXIST) return sys_error(std::string("mkdir ") + kDoorDirInDoor);
  struct stat st {};
  if (::lstat(kDoorDirInDoor, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
    return fail(std::string(kDoorDirInDoor) + ": not a root-owned directory");
  return {};
}

// The door's process, still root in its new namespaces: a private view of the host's files (its
// directory where its config says, a procfs of its own pid namespace, all of it read-only), its
// fds, its uid; then the door itself. Any failure is on its stderr.
[[noreturn]] void exec_door(Up& u) {
  auto step = [](bool ok, const char* what) {
    if (ok) return;
    std::string m = std::string("egress door start: ") + what + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, m.data(), m.size());
    _exit(127);
  };
  ::dup2(u.err.get(), 2);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);  // the supervisor is how it is stopped
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);  // before /dev turns nodev
  step(null >= 0 && ::dup2(null, 0) == 0 && ::dup2(null, 1) == 1, "stdin and stdout to /dev/null");
  step(::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) == 0, "make / a slave");
  step(::mount(u.dir.c_str(), kDoorDirInDoor, nullptr, MS_BIND, nullptr) == 0, "bind its directory");
  // The KMS's socket dir, for the credentials: the state dir above it is root's alone (0700).
  const std::string kms_mnt = std::string(kDoorDirInDoor) + "/" + kKmsSocketDir;
  step(u.kms_socket_dir.empty() || ::mount(u.kms_socket_dir.c_str(), kms_mnt.c_str(), nullptr, MS_BIND, nullptr) == 0,
       "bind the KMS's socket dir");
  step(::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0, "mount its procfs");
  struct mount_attr ro {};
  ro.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  step(::syscall(SYS_mount_setattr, -1, "/", AT_RECURSIVE, &ro, sizeof ro) == 0, "make every mount read-only");
  step(::sethostname("sharness-egress", 15) == 0, "sethostname");
  // Above every fd the targets could hold first, so that no dup2 closes a source before it is moved.
  int from[3] = {::fcntl(u.listener.get(), F_DUPFD_CLOEXEC, 16), ::fcntl(u.log.get(), F_DUPFD_CLOEXEC, 16),
                 ::fcntl(u.exe.get(), F_DUPFD_CLOEXEC, 16)};
  step(from[0] >= 0 && from[1] >= 0 && from[2] >= 0, "move its fds");
  step(::dup2(from[0], 3) == 3 && ::dup2(from[1], 4) == 4 && ::dup2(from[2], 5) == 5, "its fds");
  step(::syscall(SYS_close_range, 6, ~0u, 0) == 0 && ::fcntl(5, F_SETFD, FD_CLOEXEC) == 0, "close the others");
  if (auto r = sandbox::drop_to(u.uid, u.uid); !r) {
    errno = 0;
    step(false, r.error().what().c_str());
  }
  step(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "no_new_privs");
  const std::string config = std::string(kDoorDirInDoor) + "/" + kConfigFile;
  const char* argv[] = {"sharness-egress", "door", "--config", config.c_str(), nullptr};
  // One malloc arena: glibc shrinks a thread's own arena with a read of
  // /proc/sys/vm/overcommit_memory, a file the confined door may not open (seccomp kills it).
  const char* envp[] = {"GLIBC_TUNABLES=glibc.malloc.arena_max=1", nullptr};
  ::syscall(SYS_execveat, 5, "", argv, envp, AT_EMPTY_PATH);
  step(false, "exec sharness-egress door");
  _exit(127);
}

// Whether the door's log holds its "serving" line yet.
bool serving(const std::string& log_path) {
  auto text = read_file(log_path, 1 << 20);
  return text && text->find(kServing) != std::string::npos;
}

// The door's last words on stderr, for create's error.
std::string door_error(const Up& u) {
  auto text = read_file(u.dir + "/" + kErrFile, 1 << 16);
  std::string s = text ? *text : "";
  while (!s.empty() && s.back() == '\n') s.pop_back();
  if (s.size() > 400) s = "..." + s.substr(s.size() - 400);
  return s.empty() ? "no message" : s;
}

// Until the door says it serves ("" then), dies or takes too long (why, then).
std::string wait_serving(const Up& u, int door_pidfd, pid_t door) {
  const std::string path = u.dir + "/" + kLogFile;
  Fd in(::inotify_init1(IN_CLOEXEC));
  if (!in || ::inotify_add_watch(in.get(), path.c_str(), IN_MODIFY) < 0) return "watch the door's log: " + std::string(std::strerror(errno));
  for (int waited = 0; !serving(path);) {
    pollfd fds[2] = {{in.get(), POLLIN, 0}, {door_pidfd, POLLIN, 0}};
    int n = ::poll(fds, 2, 250);
    if (n < 0 && errno != EINTR) return "poll: " + std::string(std::strerror(errno));
    if (fds[1].revents) {
      if (serving(path)) break;
      int ws = 0;
      ::waitpid(door, &ws, 0);
      return (WIFSIGNALED(ws) ? "killed by signal " + std::to_string(WTERMSIG(ws)) : "exit " + std::to_string(WEXITSTATUS(ws))) +
             ": " + door_error(u);
    }
    if (fds[0].revents) {
      char buf[4096];
      (void)!::read(in.get(), buf, sizeof buf);
    }
    if (n == 0 && (waited += 250) >= kReadyMs) return "it did not say it serves within " + std::to_string(kReadyMs / 1000) + " s";
  }
  return "";
}

// One line in the door's log, as the door writes its own.
void log_line(const Up& u, const char* level, const std::string& msg) {
  std::string line = std::string("{\"level\":\"") + level + "\",\"msg\":\"" + msg + "\",\"time\":\"" + log::now_rfc3339() + "\"}\n";
  (void)!::write(u.log.get(), line.data(), line.size());
}

// The supervisor, root with CAP_KILL only: ends the door when the container's init exits, and
// records it when the door dies first (the container then has no way out).
[[noreturn]] void supervise(Up& u, int door_pidfd, pid_t door) {
  oci::Capabilities keep;
  keep.bounding = keep.effective = keep.permitted = std::vector<std::string>{"CAP_KILL"};
  keep.inheritable = keep.ambient = std::vector<std::string>{};
  if (!caps::apply_bounding(keep) || !caps::apply_sets(keep) || ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    log_line(u, "warning", "egress supervisor: could not drop its capabilities");
  for (;;) {
    pollfd fds[2] = {{u.init_pidfd.get(), POLLIN, 0}, {door_pidfd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    if (fds[0].revents) {
      ::syscall(SYS_pidfd_send_signal, door_pidfd, SIGKILL, nullptr, 0);
      ::waitpid(door, nullptr, 0);
      _exit(0);
    }
    int ws = 0;
    ::waitpid(door, &ws, 0);
    log_line(u, "error", "egress door " + std::to_string(door) + " ended (" +
                             (WIFSIGNALED(ws) ? "signal " + std::to_string(WTERMSIG(ws)) : "exit " + std::to_string(WEXITSTATUS(ws))) +
                             "): the container has no way out now");
    _exit(0);
  }
}

// The supervisor, in a session of its own: clones the door, reports "ok <pid>" or why not on
// `ready`, then supervises.
[[noreturn]] void run_supervisor(Up& u, Fd ready) {
  ::setsid();
  ::signal(SIGPIPE, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  int door_pidfd = -1;
  struct clone_args ca {};
  ca.flags = CLONE_PIDFD | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  ca.pidfd = uint64_t(uintptr_t(&door_pidfd));
  ca.exit_signal = SIGCHLD;
  pid_t door = pid_t(::syscall(SYS_clone3, &ca, sizeof ca));
  if (door == 0) exec_door(u);
  std::string why = door < 0 ? "clone3 the door: " + std::string(std::strerror(errno)) : "";
  u.listener.reset();  // the door holds the only copy: if it dies, the listener is gone
  u.exe.reset();
  u.err.reset();
  if (why.empty()) why = wait_serving(u, door_pidfd, door);
  std::string msg = why.empty() ? "ok " + std::to_string(door) : why;
  (void)!::write(ready.get(), msg.data(), msg.size());
  if (!why.empty()) {
    if (door > 0) ::syscall(SYS_pidfd_send_signal, door_pidfd, SIGKILL, nullptr, 0);
    _exit(1);
  }
  ready.reset();
  ::prctl(PR_SET_NAME, "sharness-egress-s", 0, 0, 0);
  supervise(u, door_pidfd, door);
}

// Fork the supervisor and wait for its word; a door that failed takes its uid back.
Result<void> start_door(Up& u) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd rd(pipefd[0]), wr(pipefd[1]);
  pid_t sup = ::fork();
  if (sup < 0) return sys_error("fork the egress supervisor");
  if (sup == 0) {
    rd.reset();
    run_supervisor(u, std::move(wr));
  }
  wr.reset();
  u.listener.reset();
  char buf[1024];
  ssize_t n = ::read(rd.get(), buf, sizeof buf);
  std::string msg = n > 0 ? std::string(buf, size_t(n)) : "its supervisor died before it was ready";
  if (!msg.starts_with("ok ")) {
    ::kill(sup, SIGKILL);
    ::waitpid(sup, nullptr, 0);
    (void)lifecycle::release_ephemeral_uid(u.o.root, u.uid, u.st.id);
    return fail("egress door for " + u.st.id + ": " + msg);
  }
  edges::record_started(u.saved, pid_t(std::stol(msg.substr(3))), sup);
  return {};
}

// What down reads: the uid as soon as it is claimed, the processes once they run.
Result<void> record(const Up& u) { return write_file_atomic(u.dir + "/" + kStateFile, edges::saved_json(u.saved), 0600); }

}  // namespace

Result<int> up(const edges::Opts& o) {
  Up u(o, TRY(edges::read_state()));
  TRYV(open_container(u));
  TRYV(listen_in_container(u));
  TRYV(claim_uid(u));
  TRYV(record(u));  // from here on `down` (create's undo runs it) releases the uid
  TRYV(give_ca(u));
  TRYV(open_files(u));
  TRYV(start_door(u));
  TRYV(record(u));
  return 0;
}

}  // namespace sh::egress
