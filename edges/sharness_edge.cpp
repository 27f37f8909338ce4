// sharness-edge: the per-container edge proxy of per-edge mutual TLS (issue 9).
//
//   sharness-edge up   --root R [--config F]   createRuntime hook (OCI state on stdin)
//   sharness-edge down --root R [--config F]   poststop hook (OCI state on stdin)
//   sharness-edge connect --cert-dir D --socket S --role R   one TLS client connection:
//                                               stdin -> peer, peer -> stdout (tests, tools)
//
// `up` reads the container's saved config (its "sharness"."edges" block) and identity, makes
// every listening socket while still root (the client ends of UNIX edges in <root>/<id>/edges,
// of TCP edges on 127.0.0.1 inside the container's network namespace, and the server socket
// <root>/.edges/<role>.sock), then forks one proxy process that drops to a throwaway uid of its
// own (no groups, no capabilities in any set, no_new_privs, not dumpable) and serves until the
// container's init exits. Connections between proxies are TLS 1.3 over the UNIX sockets of
// <root>/.edges; the plaintext legs never leave a container and its proxy.
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include "base/file.hpp"
#include "base/json.hpp"
#include "edges/identity.hpp"
#include "edges/tls.hpp"
#include "oci/config.hpp"
#include "runtime/cli/args.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/proc_info.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::edges {
namespace {

constexpr int kMaxConnections = 64;
constexpr const char* kStateFile = "edge.json";  // in <root>/<id>: pid, start time, uid, socket
constexpr const char* kLogFile = "edge.log";

struct ContainerState {
  std::string id;
  pid_t pid = 0;
};

Result<ContainerState> read_state() {
  auto text = TRY(read_fd(0, "hook state on stdin", 1 << 20));
  auto doc = TRY(json::Document::parse(text, "state"));
  ContainerState s;
  s.id = TRY(TRY(doc.root().need("id")).as_string());
  if (auto pid = doc.root().get("pid")) s.pid = pid_t(TRY(pid->as_int_in(0, 1 << 30)));  // absent once stopped
  if (s.id.empty() || s.id.find('/') != std::string::npos || s.id[0] == '.') return fail("state: bad id");
  return s;
}

// ---- logging: one line per event into <root>/<id>/edge.log (opened before the drop) ----------

int g_log = -1;
std::mutex g_log_mu;

void logf(const std::string& msg) {
  if (g_log < 0) return;
  char ts[32];
  time_t now = ::time(nullptr);
  struct tm tm {};
  gmtime_r(&now, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string line = std::string(ts) + " " + msg + "\n";
  std::lock_guard lock(g_log_mu);
  (void)!::write(g_log, line.data(), line.size());
}

// ---- sockets ---------------------------------------------------------------------------------

Result<Fd> unix_socket() {
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_UNIX)");
  return s;
}

Result<sockaddr_un> unix_addr(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return fail("socket path too long: " + path);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

// Listen on dir/name (via the directory fd, so the path length never matters), mode 0666: the
// directory decides who reaches it.
Result<Fd> listen_unix(int dirfd, const std::string& name, const std::string& what) {
  std::string path = "/proc/self/fd/" + std::to_string(dirfd) + "/" + name;
  Fd s = TRY(unix_socket());
  auto a = TRY(unix_addr(path));
  ::unlinkat(dirfd, name.c_str(), 0);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("bind " + what);
  if (::fchmodat(dirfd, name.c_str(), 0666, 0) < 0) return sys_error("chmod " + what);
  if (::listen(s.get(), 64) < 0) return sys_error("listen " + what);
  return s;
}

Result<Fd> connect_unix_path(const std::string& path, const std::string& what) {
  Fd s = TRY(unix_socket());
  auto a = TRY(unix_addr(path));
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("connect " + what);
  return s;
}

// Connect to dir/name, where dir may be written by a container: the name must be a socket
// itself, never a symlink to one elsewhere on the host.
Result<Fd> connect_unix_in(int dirfd, const std::string& name, const std::string& what) {
  Fd p(::openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!p) return sys_error("open " + what);
  struct stat st {};
  if (::fstat(p.get(), &st) < 0) return sys_error("stat " + what);
  if (!S_ISSOCK(st.st_mode)) return fail(what + ": not a socket");
  return connect_unix_path("/proc/self/fd/" + std::to_string(p.get()), what);
}

Result<Fd> tcp_listen_local(uint16_t port) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return sys_error("bind 127.0.0.1:" + std::to_string(port));
  if (::listen(s.get(), 64) < 0) return sys_error("listen 127.0.0.1:" + std::to_string(port));
  return s;
}

Result<Fd> tcp_connect_local(uint16_t port) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return sys_error("connect 127.0.0.1:" + std::to_string(port));
  return s;
}

// ---- the proxy -----------------------------------------------------------------------------

struct Listener {
  Fd fd;
  bool server = false;  // accepts TLS from peers (else: plaintext from the workload)
  policy::Edge edge;    // client side: where it goes
};

struct Proxy {
  std::string id;
  policy::Mesh mesh;
  Ctx client_ctx, server_ctx;
  std::vector<Listener> listeners;
  Fd mesh_dir;     // <root>/.edges (O_PATH): peers' server sockets
  Fd service_dir;  // <root>/<id>/service (O_PATH) when the service is on a UNIX socket
  Fd init_pidfd;
  std::atomic<int> active{0};
};

void serve_client(Proxy& px, Fd plain, policy::Edge edge) {
  std::string what = "edge to " + edge.to;
  auto peer = connect_unix_in(px.mesh_dir.get(), edge.to + ".sock", "the " + edge.to + " proxy");
  if (!peer) {
    logf(what + ": " + peer.error().what());
    return;
  }
  std::vector<std::string> roles = {edge.to};
  auto ssl = handshake(px.client_ctx.get(), peer->get(), false, roles);
  if (!ssl) {
    logf(what + ": refused: " + ssl.error().what());
    return;
  }
  logf(what + ": connected to " + peer_uri(ssl->get()));
  auto r = relay(plain.get(), plain.get(), ssl->get(), peer->get());
  if (!r) logf(what + ": " + r.error().what());
}

void serve_server(Proxy& px, Fd tls) {
  auto ssl = handshake(px.server_ctx.get(), tls.get(), true, px.mesh.accepts->roles);
  if (!ssl) {
    // Nothing was read past the handshake and the service was never contacted.
    logf("service: refused: " + ssl.error().what());
    return;
  }
  std::string who = peer_uri(ssl->get());
  auto svc = px.mesh.accepts->tcp ? tcp_connect_local(px.mesh.accepts->port)
                                  : connect_unix_in(px.service_dir.get(), policy::kServiceSocket, "the service socket");
  if (!svc) {
    logf("service: accepted " + who + " but " + svc.error().what());
    return;
  }
  logf("service: accepted " + who);
  auto r = relay(svc->get(), svc->get(), ssl->get(), tls.get());
  if (!r) logf("service: " + who + ": " + r.error().what());
}

[[noreturn]] void serve(Proxy& px) {
  std::vector<pollfd> fds;
  fds.push_back({px.init_pidfd.get(), POLLIN, 0});
  for (auto& l : px.listeners) fds.push_back({l.fd.get(), POLLIN, 0});
  for (;;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      _exit(2);
    }
    if (fds[0].revents) {
      logf("container init exited: proxy ends");
      _exit(0);
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      Fd conn(::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn) continue;
      if (px.active.load() >= kMaxConnections) continue;  // dropped: closed by Fd
      Listener& l = px.listeners[i - 1];
      ++px.active;
      std::thread([&px, c = std::move(conn), server = l.server, edge = l.edge]() mutable {
        if (server) serve_server(px, std::move(c));
        else serve_client(px, std::move(c), edge);
        --px.active;
      }).detach();
    }
  }
}

// No groups, one uid and gid nobody else has, every capability set empty (bounding and ambient
// too), no_new_privs, not dumpable (the key is in this process's memory).
Result<void> drop_privileges(uint32_t uid) {
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) return sys_error("drop bounding capability");
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return sys_error("clear ambient capabilities");
  if (::setgroups(0, nullptr) < 0) return sys_error("setgroups");
  if (::setresgid(uid, uid, uid) < 0) return sys_error("setresgid " + std::to_string(uid));
  if (::setresuid(uid, uid, uid) < 0) return sys_error("setresuid " + std::to_string(uid));
  cap_t none = cap_init();
  int r = none ? cap_set_proc(none) : -1;
  if (none) cap_free(none);
  if (r < 0) return sys_error("clear capabilities");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return sys_error("no_new_privs");
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) return sys_error("dumpable");
  return {};
}

Result<Fd> open_ns(pid_t pid, const char* ns) {
  return open_file("/proc/" + std::to_string(pid) + "/ns/" + ns, O_RDONLY);
}

struct Saved {
  pid_t pid = 0;
  uint64_t start_time = 0;
  uint32_t uid = 0;
  std::string server_socket;  // <root>/.edges/<role>.sock, "" when none
  uint64_t server_ino = 0;
};

std::string saved_json(const Saved& s) {
  json::Writer w(true);
  w.begin_object().key("pid").integer(s.pid).key("startTime").uinteger(s.start_time).key("uid").uinteger(s.uid);
  w.kv("serverSocket", s.server_socket).key("serverInode").uinteger(s.server_ino).end_object();
  return w.str() + "\n";
}

Result<Saved> saved_from(const std::string& text) {
  auto doc = TRY(json::Document::parse(text, kStateFile));
  auto r = doc.root();
  Saved s;
  s.pid = pid_t(TRY(TRY(r.need("pid")).as_int()));
  s.start_time = TRY(TRY(r.need("startTime")).as_uint());
  s.uid = uint32_t(TRY(TRY(r.need("uid")).as_uint()));
  s.server_socket = TRY(TRY(r.need("serverSocket")).as_string());
  s.server_ino = TRY(TRY(r.need("serverInode")).as_uint());
  return s;
}

struct Opts {
  std::string root, config;
};

Result<lifecycle::RuntimeConfig> runtime_config(const Opts& o) {
  return lifecycle::load_runtime_config(o.config.empty() ? lifecycle::kDefaultRuntimeConfig : o.config,
                                        !o.config.empty());
}

// A server socket left by a proxy that is gone may be replaced; a live one may not.
Result<void> claim_role_socket(int mesh_fd, const std::string& role) {
  std::string name = role + ".sock";
  struct stat st {};
  if (::fstatat(mesh_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) return {};
  if (connect_unix_in(mesh_fd, name, name)) return fail("role " + role + " is already served by a running container");
  return {};
}

Result<int> up(const Opts& o) {
  ContainerState st = TRY(read_state());
  std::string cdir = o.root + "/" + st.id;
  auto cfg = TRY(oci::parse_config(TRY(read_file(cdir + "/config.json")), cdir + "/config.json"));
  if (!cfg.sharness_json) return fail("container " + st.id + ": no sharness block in its config");
  auto doc = TRY(json::Document::parse(*cfg.sharness_json, "config.json: sharness"));
  auto ext = TRY(policy::parse_extension(doc.root()));
  if (!ext.mesh || !ext.mesh->active()) return fail("container " + st.id + ": no edges in its sharness block");
  Proxy px;
  px.id = st.id;
  px.mesh = *ext.mesh;

  std::string idir = cdir + "/identity/";
  std::string cert = TRY(read_file(idir + identity::kCertFile, 1 << 16));
  std::string key = TRY(read_file(idir + identity::kKeyFile, 1 << 16));
  std::string ca = TRY(read_file(idir + identity::kCaFile, 1 << 16));
  if (px.mesh.edges && !px.mesh.edges->empty()) px.client_ctx = TRY(make_ctx(false, cert, key, ca));
  if (px.mesh.accepts) px.server_ctx = TRY(make_ctx(true, cert, key, ca));

  Fd log = TRY(open_file(cdir + "/" + kLogFile, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600));
  if (st.pid <= 0) return fail("container " + st.id + ": no init pid in the hook state");
  px.init_pidfd = Fd(int(::syscall(SYS_pidfd_open, st.pid, 0)));
  if (!px.init_pidfd) return sys_error("pidfd_open container init " + std::to_string(st.pid));
  auto pst = proc::stat(st.pid);
  Fd host_net = TRY(open_ns(::getpid(), "net"));
  Fd cont_net = TRY(open_ns(st.pid, "net"));

  std::string mdir = policy::mesh_dir(o.root);
  px.mesh_dir = TRY(open_file(mdir, O_PATH | O_DIRECTORY | O_NOFOLLOW));
  Saved saved;
  ::umask(077);
  if (px.mesh.edges) {
    Fd edir;
    for (const auto& e : *px.mesh.edges) {
      Listener l;
      l.edge = e;
      if (e.tcp) {
        // The workload's end lives in its own network namespace.
        if (::setns(cont_net.get(), CLONE_NEWNET) < 0) return sys_error("enter the container's network namespace");
        auto s = tcp_listen_local(e.port);
        if (::setns(host_net.get(), CLONE_NEWNET) < 0) return sys_error("return to the host network namespace");
        l.fd = TRYC("edge to " + e.to, std::move(s));
      } else {
        if (!edir) edir = TRY(open_file(cdir + "/edges", O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
        l.fd = TRY(listen_unix(edir.get(), e.to + ".sock", "edge to " + e.to));
      }
      px.listeners.push_back(std::move(l));
    }
  }
  if (px.mesh.accepts) {
    const std::string& role = *px.mesh.role;
    TRYV(claim_role_socket(px.mesh_dir.get(), role));
    Fd mdir_rw = TRY(open_file(mdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    Listener l;
    l.server = true;
    l.fd = TRY(listen_unix(mdir_rw.get(), role + ".sock", "server socket of role " + role));
    saved.server_socket = mdir + "/" + role + ".sock";
    struct stat sst {};
    if (::fstatat(mdir_rw.get(), (role + ".sock").c_str(), &sst, AT_SYMLINK_NOFOLLOW) == 0) saved.server_ino = sst.st_ino;
    px.listeners.push_back(std::move(l));
    if (!px.mesh.accepts->tcp) px.service_dir = TRY(open_file(cdir + "/service", O_PATH | O_DIRECTORY | O_NOFOLLOW));
  }

  auto rc = TRY(runtime_config(o));
  uint32_t uid = TRY(lifecycle::allocate_ephemeral_uid(o.root, rc.ephemeral_first, rc.ephemeral_count, st.id));
  saved.uid = uid;

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd rd(pipefd[0]), wr(pipefd[1]);
  pid_t child = ::fork();
  if (child < 0) return sys_error("fork the proxy");
  if (child == 0) {
    rd.reset();
    ::setsid();
    ::prctl(PR_SET_NAME, "sharness-edge", 0, 0, 0);
    ::signal(SIGPIPE, SIG_IGN);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    g_log = log.get();
    auto go = [&]() -> Result<void> {
      // The service on TCP is in the container's network namespace: live there.
      if (px.mesh.accepts && px.mesh.accepts->tcp && ::setns(cont_net.get(), CLONE_NEWNET) < 0)
        return sys_error("enter the container's network namespace");
      host_net.reset();
      cont_net.reset();
      if (::chdir("/") < 0) return sys_error("chdir /");
      return drop_privileges(uid);
    };
    auto r = go();
    std::string msg = r ? "ok" : r.error().what();
    (void)!::write(wr.get(), msg.data(), msg.size());
    if (!r) _exit(1);
    wr.reset();
    logf("proxy up as uid " + std::to_string(uid) + " for " + st.id + " (role " + *px.mesh.role + ")");
    serve(px);
  }
  wr.reset();
  char buf[512];
  ssize_t n = ::read(rd.get(), buf, sizeof buf);
  std::string msg = n > 0 ? std::string(buf, size_t(n)) : "the proxy died before it was ready";
  if (msg != "ok") {
    ::kill(child, SIGKILL);
    (void)lifecycle::release_ephemeral_uid(o.root, uid, st.id);
    return fail("edge proxy for " + st.id + ": " + msg);
  }
  saved.pid = child;
  auto cst = proc::stat(child);
  saved.start_time = cst ? cst->start_time : 0;
  (void)pst;
  TRYV(write_file_atomic(cdir + "/" + kStateFile, saved_json(saved), 0600));
  return 0;
}

Result<int> down(const Opts& o) {
  ContainerState st = TRY(read_state());
  std::string path = o.root + "/" + st.id + "/" + kStateFile;
  auto text = read_file(path, 1 << 16);
  if (!text) return 0;  // no proxy was started
  Saved s = TRY(saved_from(*text));
  Fd pidfd(int(::syscall(SYS_pidfd_open, s.pid, 0)));
  auto pst = proc::stat(s.pid);
  if (pidfd && pst && pst->start_time == s.start_time) {
    ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
    struct pollfd p {pidfd.get(), POLLIN, 0};
    ::poll(&p, 1, 5000);
  }
  if (!s.server_socket.empty()) {
    struct stat sst {};
    if (::lstat(s.server_socket.c_str(), &sst) == 0 && sst.st_ino == s.server_ino) ::unlink(s.server_socket.c_str());
  }
  if (s.uid) TRYV(lifecycle::release_ephemeral_uid(o.root, s.uid, st.id));
  ::unlink(path.c_str());
  return 0;
}

Result<int> connect_cmd(const cli::Parsed& p) {
  if (!p.has("cert-dir") || !p.has("socket") || !p.has("role"))
    return fail("connect: --cert-dir DIR, --socket PATH and --role ROLE are required");
  std::string d = p.get("cert-dir") + "/";
  auto ctx = TRY(make_ctx(false, TRY(read_file(d + identity::kCertFile)), TRY(read_file(d + identity::kKeyFile)),
                          TRY(read_file(d + identity::kCaFile))));
  Fd s = TRY(connect_unix_path(p.get("socket"), p.get("socket")));
  std::vector<std::string> roles = {p.get("role")};
  auto ssl = TRY(handshake(ctx.get(), s.get(), false, roles));
  ::signal(SIGPIPE, SIG_IGN);
  TRYV(relay(0, 1, ssl.get(), s.get()));
  return 0;
}

}  // namespace
}  // namespace sh::edges

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  auto p = sh::cli::parse({{{"root"}, true},
                           {{"config"}, true},
                           {{"cert-dir"}, true},
                           {{"socket"}, true},
                           {{"role"}, true}},
                          args, 1);
  if (!p || p->positional.size() != 1) {
    std::fprintf(stderr, "usage: sharness-edge up|down --root DIR [--config F] | connect --cert-dir D --socket S --role R\n%s\n",
                 p ? "" : p.error().what().c_str());
    return 2;
  }
  sh::edges::Opts o{p->get("root"), p->get("config")};
  const std::string& cmd = p->positional[0];
  sh::Result<int> r = sh::fail("unknown command \"" + cmd + "\"");
  if ((cmd == "up" || cmd == "down") && o.root.empty()) r = sh::fail(cmd + ": --root is required");
  else if (cmd == "up") r = sh::edges::up(o);
  else if (cmd == "down") r = sh::edges::down(o);
  else if (cmd == "connect") r = sh::edges::connect_cmd(*p);
  if (!r) {
    std::fprintf(stderr, "sharness-edge %s: %s\n", cmd.c_str(), r.error().what().c_str());
    return 1;
  }
  return *r;
}
