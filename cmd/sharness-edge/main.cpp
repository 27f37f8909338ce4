// sharness-edge: the per-container edge proxy of per-edge mutual TLS (issue 9).
//
//   sharness-edge up   --root R [--config F]   createRuntime hook (OCI state on stdin)
//   sharness-edge down --root R [--config F]   poststop hook (OCI state on stdin)
//   sharness-edge connect --cert-dir D --socket S --role R   one TLS client connection:
//                                               stdin -> peer, peer -> stdout (tests, tools)
//   sharness-edge ca init|show|rotate|issue|revoke --dir D ...   the CA (cmd/sharness-edge/ca_cli.cpp), for
//                                               `sharness-runtime ca` and `create`
//
// `up` reads the container's saved config (its "sharness"."edges" block) and identity, makes
// every listening socket while still root (the client ends of UNIX edges in <root>/<id>/edges,
// of TCP edges on 127.0.0.1 inside the container's network namespace, and the server socket
// <root>/.edges/<role>/<id>.sock), then forks a supervisor which forks the proxy. The proxy
// drops to a throwaway uid of its own (no groups, no capabilities in any set, no_new_privs, not
// dumpable, seccomp, Landlock) and serves until the container's init exits; the supervisor
// stays root with three capabilities to renew the leaf (docs/edges.md "Renewal") and to reap
// and stop the proxy. Connections between proxies are TLS 1.3 over the UNIX sockets of
// <root>/.edges/<role>/, or over TCP between containers that have networks; the plaintext legs
// never leave a container and its proxy.
#include <dirent.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "base/file.hpp"
#include "base/json.hpp"
#include "cmd/sharness-edge/ca_cli.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "edges/provision.hpp"
#include "edges/tls.hpp"
#include "oci/config.hpp"
#include "runtime/cli/args.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/self_sandbox.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::edges {
namespace {

constexpr int kMaxConnections = 64;
// Per connection at most three fds (its two sockets, an O_PATH while connecting), plus the
// listeners, the log, the pidfd: RLIMIT_NOFILE, checked before the drop.
constexpr unsigned kNoFile = 3 * kMaxConnections + 32;
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

std::string ip_text(in_addr addr) {
  char b[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr, b, sizeof b);
  return b;
}

Result<Fd> tcp_listen(in_addr addr, uint16_t port) {
  std::string what = ip_text(addr) + ":" + std::to_string(port);
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr = addr;
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("bind " + what);
  if (::listen(s.get(), 64) < 0) return sys_error("listen " + what);
  return s;
}

Result<Fd> tcp_connect(in_addr addr, uint16_t port) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr = addr;
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return sys_error("connect " + ip_text(addr) + ":" + std::to_string(port));
  return s;
}

in_addr loopback() { return in_addr{htonl(INADDR_LOOPBACK)}; }
Result<Fd> tcp_listen_local(uint16_t port) { return tcp_listen(loopback(), port); }
Result<Fd> tcp_connect_local(uint16_t port) { return tcp_connect(loopback(), port); }

// The first IPv4 address of an interface other than loopback in the calling thread's network
// namespace: a container "with a network".
std::optional<in_addr> network_address() {
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) < 0) return std::nullopt;
  std::optional<in_addr> r;
  for (auto* i = list; i && !r; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK) && (i->ifa_flags & IFF_UP))
      r = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
  ::freeifaddrs(list);
  return r;
}

// ---- the proxy -----------------------------------------------------------------------------

// The registry of one role: <root>/.edges/<role>/, one <container id>.sock per accepting
// container. Opened before the sandbox (Landlock then forbids opening it), read under a lock
// (one directory stream), instances tried in turn from a rotating start.
struct RoleDir {
  DIR* dir = nullptr;
  std::mutex mu;
  unsigned next = 0;
  ~RoleDir() {
    if (dir) ::closedir(dir);
  }
};

struct Listener {
  Fd fd;
  bool server = false;  // accepts TLS from peers (else: plaintext from the workload)
  policy::Edge edge;    // client side: where it goes
  std::shared_ptr<RoleDir> peers;  // client side: the registry of edge.to
};

struct Proxy {
  std::string id;
  policy::Mesh mesh;
  std::mutex ctx_mu;  // renewal swaps the contexts; a connection takes a reference first
  Ctx client_ctx, server_ctx;
  Fd control;  // SOCK_SEQPACKET from the supervisor: renewed certificate and key
  std::vector<Listener> listeners;
  Fd service_dir;  // <root>/<id>/service (O_PATH) when the service is on a UNIX socket
  Fd live;         // the live registry (edges/live.hpp): every peer's leaf is checked in it
  Fd init_pidfd;
  bool networked = false;  // lives in a container network namespace with a non-loopback address
  std::atomic<int> active{0};
};

// A reference to the current context: a renewal may replace it while the handshake runs.
Ctx current_ctx(Proxy& px, bool server) {
  std::lock_guard lock(px.ctx_mu);
  SSL_CTX* c = server ? px.server_ctx.get() : px.client_ctx.get();
  if (c) SSL_CTX_up_ref(c);
  return Ctx(c);
}

// A live instance of the role: the registered sockets in turn, starting one further than the
// last connection did; a socket whose proxy is gone refuses the connection and is skipped.
// A TCP registration's name: <container id>@<IPv4>:<port>.tcp (the name is the record: the
// proxy can list the registry but may open no file in it).
Result<Fd> connect_tcp_registration(const std::string& n) {
  size_t at = n.rfind('@'), colon = n.rfind(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at) return fail(n + ": not a TCP registration");
  in_addr addr{};
  if (::inet_pton(AF_INET, n.substr(at + 1, colon - at - 1).c_str(), &addr) != 1) return fail(n + ": bad address");
  int port = std::atoi(n.substr(colon + 1, n.size() - 4 - colon - 1).c_str());
  if (port <= 0 || port > 65535) return fail(n + ": bad port");
  return tcp_connect(addr, uint16_t(port));
}

Result<Fd> connect_role(RoleDir& rd, const std::string& role, bool tcp, std::string* instance) {
  std::vector<std::string> names;
  unsigned start = 0;
  {
    std::lock_guard lock(rd.mu);
    ::rewinddir(rd.dir);
    while (struct dirent* e = ::readdir(rd.dir)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.ends_with(tcp ? ".tcp" : ".sock")) names.push_back(n);
    }
    start = rd.next++;
  }
  if (names.empty()) return fail("no instance of role " + role + " is registered");
  std::sort(names.begin(), names.end());
  std::string errors;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[(start + i) % names.size()];
    auto fd = tcp ? connect_tcp_registration(n) : connect_unix_in(::dirfd(rd.dir), n, "the " + role + " proxy " + n);
    if (fd) {
      *instance = n.substr(0, n.rfind('.'));
      return fd;
    }
    errors += (errors.empty() ? "" : "; ") + fd.error().what();
  }
  return fail("no live instance of role " + role + ": " + errors);
}

void serve_client(Proxy& px, Fd plain, policy::Edge edge, RoleDir& peers) {
  std::string what = "edge to " + edge.to;
  std::string instance;
  // Over the network when both ends have one (the edge's TCP port is the server's), else on the
  // host's UNIX sockets.
  bool over_net = px.networked && edge.tcp;
  auto peer = connect_role(peers, edge.to, over_net, &instance);
  if (!peer && over_net) peer = connect_role(peers, edge.to, false, &instance);
  if (!peer) {
    logf(what + ": " + peer.error().what());
    return;
  }
  std::vector<std::string> roles = {edge.to};
  Ctx ctx = current_ctx(px, false);
  auto ssl = handshake(ctx.get(), peer->get(), false, roles, Liveness(px.live.get()));
  if (!ssl) {
    logf(what + ": refused: " + ssl.error().what());
    return;
  }
  logf(what + ": connected to " + peer_uri(ssl->get()) + " (instance " + instance + ")");
  auto r = relay(plain.get(), plain.get(), ssl->get(), peer->get());
  if (!r) logf(what + ": " + r.error().what());
}

void serve_server(Proxy& px, Fd tls) {
  Ctx ctx = current_ctx(px, true);
  auto ssl = handshake(ctx.get(), tls.get(), true, px.mesh.accepts->roles, Liveness(px.live.get()));
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

// The supervisor's renewal message: three decimal lengths on one line, then the certificate,
// the key and the CA certificate (PEM), in one SOCK_SEQPACKET record.
constexpr size_t kMaxRenewal = 48 * 1024;

std::string renewal_message(const identity::Leaf& l) {
  return std::to_string(l.cert_pem.size()) + " " + std::to_string(l.key_pem.size()) + " " +
         std::to_string(l.ca_pem.size()) + "\n" + l.cert_pem + l.key_pem + l.ca_pem;
}

Result<void> take_renewal(Proxy& px, std::string& msg) {
  size_t nl = msg.find('\n');
  size_t a = 0, b = 0, c = 0;
  if (nl == std::string::npos || std::sscanf(msg.substr(0, nl).c_str(), "%zu %zu %zu", &a, &b, &c) != 3 ||
      nl + 1 + a + b + c != msg.size())
    return fail("renewal: malformed message");
  std::string cert = msg.substr(nl + 1, a), key = msg.substr(nl + 1 + a, b), ca = msg.substr(nl + 1 + a + b, c);
  Ctx client, server;
  if (px.mesh.edges && !px.mesh.edges->empty()) client = TRY(make_ctx(false, cert, key, ca));
  if (px.mesh.accepts) server = TRY(make_ctx(true, cert, key, ca));
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(msg.data(), msg.size());
  auto x = TRY(identity::cert_from_pem(cert, "renewed certificate"));
  {
    std::lock_guard lock(px.ctx_mu);
    px.client_ctx = std::move(client);
    px.server_ctx = std::move(server);
  }
  logf("renewed: certificate " + identity::fingerprint(x.get()) + ", " + std::to_string(identity::seconds_left(x.get())) +
       " s left");
  return {};
}

[[noreturn]] void serve(Proxy& px) {
  std::vector<pollfd> fds;
  fds.push_back({px.init_pidfd.get(), POLLIN, 0});
  fds.push_back({px.control.get(), POLLIN, 0});
  constexpr size_t kFirstListener = 2;
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
    if (fds[1].revents) {
      std::string msg(kMaxRenewal, '\0');
      ssize_t n = ::recv(fds[1].fd, msg.data(), msg.size(), 0);
      if (n <= 0) {
        logf("the supervisor is gone: no more renewals");
        fds[1].fd = -1;
      } else {
        msg.resize(size_t(n));
        // The answer tells the supervisor when it may revoke the leaf this proxy held.
        auto r = take_renewal(px, msg);
        if (!r) logf(r.error().what());
        std::string ack = r ? "ok" : "failed";
        (void)::send(fds[1].fd, ack.data(), ack.size(), MSG_NOSIGNAL);
      }
    }
    for (size_t i = kFirstListener; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      Fd conn(::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn) continue;
      if (px.active.load() >= kMaxConnections) continue;  // dropped: closed by Fd
      Listener& l = px.listeners[i - kFirstListener];
      ++px.active;
      std::thread([&px, c = std::move(conn), server = l.server, edge = l.edge, peers = l.peers]() mutable {
        if (server) serve_server(px, std::move(c));
        else serve_client(px, std::move(c), edge, *peers);
        --px.active;
      }).detach();
    }
  }
}

// The proxy's whole syscall surface once serving (the edges suite run under SCMP_ACT_LOG: accept, TLS
// relay, listing a role's registry, connecting to a peer proxy or the service, the log), plus
// what malloc, threads and OpenSSL's DRBG may need. openat only for the O_PATH of a socket or
// of a holder's directory in the live registry, which it then stats (edges/live.hpp: the
// revocation check needs nothing more; Landlock refuses reading or writing any file). Nothing
// that execs, forks (clone is allowed only with CLONE_THREAD), changes ids, binds or listens.
std::vector<std::string> proxy_syscalls() {
  std::vector<std::string> s = sandbox::base_syscalls();
  for (const char* n : {"accept4", "socket", "connect", "openat", "fstat", "newfstatat", "poll", "ppoll",
                        "fcntl", "setsockopt", "getsockopt", "shutdown", "sendto", "recvfrom", "sendmsg", "recvmsg",
                        "mprotect", "set_robust_list", "rseq", "rt_sigprocmask", "rt_sigaction", "sched_yield", "gettid",
                        "getsockname", "getpeername", "nanosleep", "clock_nanosleep", "getdents64", "lseek"})
    s.emplace_back(n);
  return s;
}

// The harsh bounds, after every socket, the key and the log are open: one uid and gid
// nobody else has, no groups, every capability set empty (bounding and ambient too), not
// dumpable (the key is in this process's memory), no core, few files and threads, no_new_privs,
// Landlock (no file at all, TCP connect only to the service's port), a seccomp allowlist.
Result<std::string> confine_proxy(uint32_t uid, const Proxy& px) {
  TRYV(sandbox::harden(kNoFile, kMaxConnections + 8));
  TRYV(sandbox::drop_to(uid, uid));
  sandbox::Bounds b{proxy_syscalls(), true, {}};
  if (px.mesh.accepts && px.mesh.accepts->tcp) b.connect_ports.push_back(px.mesh.accepts->port);
  if (px.networked && px.mesh.edges)  // peers' proxies on the network, at the edges' ports
    for (const auto& e : *px.mesh.edges)
      if (e.tcp) b.connect_ports.push_back(e.port);
  return sandbox::confine(b);
}

Result<Fd> open_ns(pid_t pid, const char* ns) {
  return open_file("/proc/" + std::to_string(pid) + "/ns/" + ns, O_RDONLY);
}

struct Saved {
  pid_t pid = 0;  // the proxy
  uint64_t start_time = 0;
  pid_t supervisor = 0;  // its parent, root: renews the leaf, reaps the proxy
  uint64_t supervisor_start = 0;
  uint32_t uid = 0;
  std::string server_socket;  // <root>/.edges/<role>/<id>.sock, "" when none
  uint64_t server_ino = 0;
  std::string server_tcp;  // <root>/.edges/<role>/<id>@<ip>:<port>.tcp, "" when none
};

std::string saved_json(const Saved& s) {
  json::Writer w(true);
  w.begin_object().key("pid").integer(s.pid).key("startTime").uinteger(s.start_time).key("uid").uinteger(s.uid);
  w.key("supervisorPid").integer(s.supervisor).key("supervisorStartTime").uinteger(s.supervisor_start);
  w.kv("serverSocket", s.server_socket).key("serverInode").uinteger(s.server_ino).kv("serverTcp", s.server_tcp);
  w.end_object();
  return w.str() + "\n";
}

Result<Saved> saved_from(const std::string& text) {
  auto doc = TRY(json::Document::parse(text, kStateFile));
  auto r = doc.root();
  Saved s;
  s.pid = pid_t(TRY(TRY(r.need("pid")).as_int()));
  s.start_time = TRY(TRY(r.need("startTime")).as_uint());
  s.uid = uint32_t(TRY(TRY(r.need("uid")).as_uint()));
  s.supervisor = pid_t(TRY(TRY(r.need("supervisorPid")).as_int()));
  s.supervisor_start = TRY(TRY(r.need("supervisorStartTime")).as_uint());
  s.server_socket = TRY(TRY(r.need("serverSocket")).as_string());
  s.server_ino = TRY(TRY(r.need("serverInode")).as_uint());
  if (auto t = r.get("serverTcp")) s.server_tcp = TRY(t->as_string());
  return s;
}

struct Opts {
  std::string root, config;
};

Result<lifecycle::RuntimeConfig> runtime_config(const Opts& o) {
  return lifecycle::load_runtime_config(o.config.empty() ? lifecycle::kDefaultRuntimeConfig : o.config,
                                        !o.config.empty());
}

// <root>/.edges/<role>, made when absent (0755 root): the role's registry.
Result<Fd> role_dir(int mesh_fd, const std::string& mdir, const std::string& role) {
  if (::mkdirat(mesh_fd, role.c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + mdir + "/" + role);
  Fd d(::openat(mesh_fd, role.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) return sys_error("open " + mdir + "/" + role);
  struct stat st {};
  if (::fstat(d.get(), &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) return fail(mdir + "/" + role + ": not a root-owned directory");
  // Every proxy (each its own uid) must reach the sockets in it; mkdir's mode went through our umask.
  if ((st.st_mode & 07777) != 0755 && ::fchmod(d.get(), 0755) < 0) return sys_error("chmod " + mdir + "/" + role);
  return d;
}

// ---- the supervisor: renewal (docs/edges.md "Renewal") --------------------------------------

struct Renewal {
  std::string id, role, ca_dir;
  int64_t lifetime = 0;
  Fd identity_dir;  // the container's identity tmpfs
  uint32_t uid = 0, gid = 0;  // owner of its files (the container's user)
  Fd control;       // to the proxy
  Fd live;          // the live registry: the new leaf in, then the old one out
};

// The proxy's answer to a renewal: "ok" once it uses the new leaf for every new connection.
bool renewal_taken(int control) {
  struct pollfd p {control, POLLIN, 0};
  if (::poll(&p, 1, 5000) <= 0) return false;
  char buf[16];
  ssize_t n = ::recv(control, buf, sizeof buf, 0);
  return n == 2 && std::memcmp(buf, "ok", 2) == 0;
}

// A fresh key and leaf from the CA on disk (loaded for this renewal only, then freed: no
// long-lived process keeps the CA key), into the container's tmpfs and to the proxy.
Result<int64_t> renew(Renewal& rn) {
  identity::Leaf leaf;
  {
    auto ca = TRYC("renewal: CA", identity::Ca::load(rn.ca_dir));
    leaf = TRYC("renewal: certificate for " + rn.id, identity::issue_leaf(ca, edges::leaf_request(rn.role, rn.id, rn.lifetime)));
  }
  auto cleanse = [&] { OPENSSL_cleanse(leaf.key_pem.data(), leaf.key_pem.size()); };
  auto r = identity::replace_leaf(rn.identity_dir.get(), leaf, rn.uid, rn.gid);
  if (!r) {
    cleanse();
    return fail(std::move(r.error()));
  }
  // Live before any peer can see it; the old leaf stays live until the proxy has let go of it.
  if (auto a = live::add_at(rn.live.get(), rn.id, leaf.fingerprint); !a) {
    cleanse();
    return fail(std::move(a.error()).context("renewal"));
  }
  std::string msg = renewal_message(leaf);
  cleanse();
  for (char stale[16]; ::recv(rn.control.get(), stale, sizeof stale, MSG_DONTWAIT) > 0;) {
  }  // a late answer to an earlier renewal is not this one's
  ssize_t n = ::send(rn.control.get(), msg.data(), msg.size(), MSG_NOSIGNAL);
  OPENSSL_cleanse(msg.data(), msg.size());
  if (n != ssize_t(msg.size())) return sys_error("renewal: send to the proxy");
  if (!renewal_taken(rn.control.get())) return fail("renewal: the proxy did not take the new leaf");
  // A renewed leaf revokes the ones before it (a copy the workload made of them is refused).
  TRYVC("renewal", live::revoke_others_at(rn.live.get(), rn.id, leaf.fingerprint));
  logf("supervisor: renewed " + leaf.uri + ": " + leaf.fingerprint + "; the previous leaf is revoked");
  return leaf.not_after - int64_t(::time(nullptr));
}

// The supervisor keeps of root only what renewal and stopping the proxy need: writing into the
// container's tmpfs (owned by its user, 0500), giving the new files to that user, signalling
// the proxy (another uid). Not dumpable: a key passes through its memory at each renewal.
Result<void> bound_supervisor() {
  oci::Capabilities keep;
  keep.bounding = keep.effective = keep.permitted =
      std::vector<std::string>{"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_KILL"};
  keep.inheritable = keep.ambient = std::vector<std::string>{};
  TRYVC("supervisor", caps::apply_bounding(keep));
  TRYVC("supervisor", caps::apply_sets(keep));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return sys_error("supervisor: no_new_privs");
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) return sys_error("supervisor: dumpable");
  struct rlimit core {0, 0};
  if (::setrlimit(RLIMIT_CORE, &core) < 0) return sys_error("supervisor: RLIMIT_CORE");
  return {};
}

// Root, but holding nothing secret between renewals: waits for the container's init (then
// stops the proxy), for the proxy (then ends), or for the time to renew: when a third of the
// leaf's life is left. A failed renewal is retried every few seconds and logged.
[[noreturn]] void supervise(Renewal rn, Fd init_pidfd, pid_t proxy) {
  Fd proxy_pidfd(int(::syscall(SYS_pidfd_open, proxy, 0)));
  if (!proxy_pidfd) {
    ::kill(proxy, SIGKILL);
    ::waitpid(proxy, nullptr, 0);
    _exit(1);
  }
  int64_t left = 0;  // of the leaf create issued (none readable: renew now)
  if (auto cert = read_file("/proc/self/fd/" + std::to_string(rn.identity_dir.get()) + "/" + identity::kCertFile, 1 << 16))
    if (auto x = identity::cert_from_pem(*cert, "certificate")) left = identity::seconds_left(x->get());
  int64_t due = int64_t(::time(nullptr)) + left - rn.lifetime / 3;  // when to renew
  for (;;) {
    int64_t wait_s = std::clamp<int64_t>(due - int64_t(::time(nullptr)), 0, 3600);
    pollfd fds[2] = {{init_pidfd.get(), POLLIN, 0}, {proxy_pidfd.get(), POLLIN, 0}};
    int n = ::poll(fds, 2, int(wait_s * 1000));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && fds[0].revents) {
      // The container is stopped: nothing may use its leaf any more (delete revokes it too).
      if (auto r = live::revoke_at(rn.live.get(), rn.id); !r) logf("supervisor: " + r.error().what());
      else logf("supervisor: the container's init exited: its leaves are revoked");
      ::syscall(SYS_pidfd_send_signal, proxy_pidfd.get(), SIGKILL, nullptr, 0);
      ::waitpid(proxy, nullptr, 0);
      _exit(0);
    }
    if (n > 0 && fds[1].revents) {
      int ws = 0;
      ::waitpid(proxy, &ws, 0);
      logf("supervisor: the proxy ended: " + (WIFSIGNALED(ws) ? "killed by signal " + std::to_string(WTERMSIG(ws))
                                                               : "exit " + std::to_string(WEXITSTATUS(ws))));
      _exit(0);
    }
    if (int64_t(::time(nullptr)) < due) continue;
    auto r = renew(rn);
    if (r) {
      due = int64_t(::time(nullptr)) + *r - rn.lifetime / 3;
    } else {
      logf("supervisor: " + r.error().what());
      due = int64_t(::time(nullptr)) + 5;  // try again in five seconds
    }
  }
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
  std::optional<in_addr> net_addr;  // the container's non-loopback address, if it has one
  if (::setns(cont_net.get(), CLONE_NEWNET) < 0) return sys_error("enter the container's network namespace");
  net_addr = network_address();
  if (::setns(host_net.get(), CLONE_NEWNET) < 0) return sys_error("return to the host network namespace");
  px.networked = net_addr.has_value();

  std::string mdir = policy::mesh_dir(o.root);
  Fd mesh_fd = TRY(open_file(mdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  // Fails closed: without the registry no peer could be checked, so there is no proxy.
  px.live = TRY(live::open_registry(o.root));
  Saved saved;
  ::umask(077);
  if (px.mesh.edges) {
    Fd edir;
    for (const auto& e : *px.mesh.edges) {
      Listener l;
      l.edge = e;
      l.peers = std::make_shared<RoleDir>();
      l.peers->dir = ::fdopendir(TRY(role_dir(mesh_fd.get(), mdir, e.to)).release());
      if (!l.peers->dir) return sys_error("opendir " + mdir + "/" + e.to);
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
    // One instance of the role among any number: <root>/.edges/<role>/<container id>.sock.
    Fd rdir = TRY(role_dir(mesh_fd.get(), mdir, role));
    std::string name = st.id + ".sock";
    Listener l;
    l.server = true;
    l.fd = TRY(listen_unix(rdir.get(), name, "server socket of role " + role));
    saved.server_socket = mdir + "/" + role + "/" + name;
    struct stat sst {};
    if (::fstatat(rdir.get(), name.c_str(), &sst, AT_SYMLINK_NOFOLLOW) == 0) saved.server_ino = sst.st_ino;
    px.listeners.push_back(std::move(l));
    if (px.mesh.accepts->tcp && net_addr) {
      // With a network: also TLS on the container's address, at the service's port (the
      // service itself is on 127.0.0.1), published by name in the role's registry.
      uint16_t port = px.mesh.accepts->port;
      if (::setns(cont_net.get(), CLONE_NEWNET) < 0) return sys_error("enter the container's network namespace");
      auto ts = tcp_listen(*net_addr, port);
      if (::setns(host_net.get(), CLONE_NEWNET) < 0) return sys_error("return to the host network namespace");
      Listener t;
      t.server = true;
      t.fd = TRYC("server of role " + role + " on the network", std::move(ts));
      px.listeners.push_back(std::move(t));
      std::string reg = st.id + "@" + ip_text(*net_addr) + ":" + std::to_string(port) + ".tcp";
      ::unlinkat(rdir.get(), reg.c_str(), 0);
      TRYV(openat_file(rdir.get(), reg, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644));
      if (::fchmodat(rdir.get(), reg.c_str(), 0644, 0) < 0) return sys_error("chmod " + reg);
      saved.server_tcp = mdir + "/" + role + "/" + reg;
    }
    if (!px.mesh.accepts->tcp) px.service_dir = TRY(open_file(cdir + "/service", O_PATH | O_DIRECTORY | O_NOFOLLOW));
  }

  auto rc = TRY(runtime_config(o));
  uint32_t uid = TRY(lifecycle::allocate_ephemeral_uid(o.root, rc.ephemeral_first, rc.ephemeral_count, st.id));
  saved.uid = uid;

  Renewal rn;
  rn.id = st.id;
  rn.role = *px.mesh.role;
  rn.ca_dir = lifecycle::ca_dir(rc, o.root);
  rn.lifetime = rc.leaf_seconds;
  rn.identity_dir = TRY(open_file(idir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  rn.live = TRY(live::open_registry(o.root));
  {
    struct stat cst {};
    if (::fstatat(rn.identity_dir.get(), identity::kCertFile, &cst, AT_SYMLINK_NOFOLLOW) < 0)
      return sys_error("stat " + idir + identity::kCertFile);
    rn.uid = cst.st_uid;
    rn.gid = cst.st_gid;
  }
  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("socketpair");
  rn.control = Fd(sp[0]);
  px.control = Fd(sp[1]);

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd rd(pipefd[0]), wr(pipefd[1]);
  // The supervisor (root) forks the proxy, which drops everything; the proxy reports "ok <pid>"
  // or its error on the pipe.
  pid_t sup = ::fork();
  if (sup < 0) return sys_error("fork the edge supervisor");
  if (sup == 0) {
    rd.reset();
    ::setsid();
    ::signal(SIGPIPE, SIG_IGN);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    g_log = log.get();
    pid_t child = ::fork();
    if (child < 0) _exit(1);
    if (child == 0) {
      rn.control.reset();
      rn.identity_dir.reset();
      rn.live.reset();
      ::prctl(PR_SET_NAME, "sharness-edge", 0, 0, 0);
      std::string bounds;
      auto go = [&]() -> Result<void> {
        // The service on TCP is in the container's network namespace: live there.
        // So does a proxy whose container has a network: it reaches peers over it (UNIX
        // sockets on the host work from any network namespace).
        if (((px.mesh.accepts && px.mesh.accepts->tcp) || px.networked) && ::setns(cont_net.get(), CLONE_NEWNET) < 0)
          return sys_error("enter the container's network namespace");
        host_net.reset();
        cont_net.reset();
        if (::chdir("/") < 0) return sys_error("chdir /");
        if (px.listeners.size() + 8 > 32) return fail("too many edges for one proxy (at most 24)");
        bounds = TRY(confine_proxy(uid, px));
        return {};
      };
      auto r = go();
      std::string msg = r ? "ok " + std::to_string(::getpid()) : r.error().what();
      (void)!::write(wr.get(), msg.data(), msg.size());
      if (!r) _exit(1);
      wr.reset();
      logf("proxy up as uid " + std::to_string(uid) + " for " + st.id + " (role " + *px.mesh.role +
           "): no capabilities, no_new_privs, seccomp allowlist, " + bounds);
      serve(px);
    }
    // The supervisor keeps no socket, key or context of the proxy's.
    wr.reset();
    px.listeners.clear();
    px.control.reset();
    px.live.reset();
    px.client_ctx.reset();
    px.server_ctx.reset();
    host_net.reset();
    cont_net.reset();
    ::prctl(PR_SET_NAME, "sharness-edge-s", 0, 0, 0);
    if (auto b = bound_supervisor(); !b) logf(b.error().what());  // it still stops the proxy
    supervise(std::move(rn), std::move(px.init_pidfd), child);
  }
  wr.reset();
  char buf[512];
  ssize_t n = ::read(rd.get(), buf, sizeof buf);
  std::string msg = n > 0 ? std::string(buf, size_t(n)) : "the proxy died before it was ready";
  if (!msg.starts_with("ok ")) {
    ::kill(sup, SIGKILL);  // its proxy has exited or will: it failed
    (void)lifecycle::release_ephemeral_uid(o.root, uid, st.id);
    return fail("edge proxy for " + st.id + ": " + msg);
  }
  saved.pid = pid_t(std::stol(msg.substr(3)));
  auto cst = proc::stat(saved.pid);
  saved.start_time = cst ? cst->start_time : 0;
  saved.supervisor = sup;
  auto sst = proc::stat(sup);
  saved.supervisor_start = sst ? sst->start_time : 0;
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
  // The supervisor first (no renewal after this), then the proxy.
  for (auto [pid, start] : {std::pair{s.supervisor, s.supervisor_start}, {s.pid, s.start_time}}) {
    if (pid <= 0) continue;
    Fd pidfd(int(::syscall(SYS_pidfd_open, pid, 0)));
    auto pst = proc::stat(pid);
    if (pidfd && pst && pst->start_time == start) {
      ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
      struct pollfd p {pidfd.get(), POLLIN, 0};
      ::poll(&p, 1, 5000);
    }
  }
  if (!s.server_socket.empty()) {
    struct stat sst {};
    if (::lstat(s.server_socket.c_str(), &sst) == 0 && sst.st_ino == s.server_ino) ::unlink(s.server_socket.c_str());
  }
  if (!s.server_tcp.empty()) {
    ::unlink(s.server_tcp.c_str());
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
  // A tool, not a proxy: it does not check that the server's leaf is live.
  auto ssl = TRY(handshake(ctx.get(), s.get(), false, roles, Liveness::unchecked()));
  ::signal(SIGPIPE, SIG_IGN);
  TRYV(relay(0, 1, ssl.get(), s.get()));
  return 0;
}

}  // namespace
}  // namespace sh::edges

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "ca") {
    auto r = sh::edges::ca_command(args, 2);
    if (!r) std::fprintf(stderr, "sharness-edge ca: %s\n", r.error().what().c_str());
    return r ? *r : 1;
  }
  auto p = sh::cli::parse({{{"root"}, true},
                           {{"config"}, true},
                           {{"cert-dir"}, true},
                           {{"socket"}, true},
                           {{"role"}, true}},
                          args, 1);
  if (!p || p->positional.size() != 1) {
    std::fprintf(stderr, "usage: sharness-edge up|down --root DIR [--config F] | connect --cert-dir D --socket S --role R"
                 " | ca init|show|rotate|issue|revoke --dir D ...\n%s\n",
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
