// `sharness-edge up`, the createRuntime hook: reads the container's saved config (its
// "sharness"."edges" block) and identity, makes every listening socket while still root (the
// client ends of UNIX edges in <root>/<id>/edges, of TCP edges on 127.0.0.1 inside the
// container's network namespace, and the server socket <root>/.edges/<role>/<id>.sock), then
// forks a supervisor which forks the proxy. The proxy drops to a throwaway uid of its own and
// serves until the container's init exits (edges/proxy.cpp); the supervisor stays root with
// three capabilities to renew the leaf (edges/renewal.cpp) and to reap and stop the proxy.
// `up()` at the bottom is the whole order, one named step per line.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <optional>

#include "base/file.hpp"
#include "base/json.hpp"
#include "edges/commands.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "edges/proxy.hpp"
#include "edges/proxy_log.hpp"
#include "edges/proxy_state.hpp"
#include "edges/renewal.hpp"
#include "edges/sockets.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::edges {
namespace {

// What the steps of `up` make and hand on: the proxy's and the supervisor's halves, and the record.
struct Up {
  Up(const Opts& opts, ContainerState state) : o(opts), st(std::move(state)) {}
  const Opts& o;
  ContainerState st;
  std::string cdir, idir;  // <root>/<id>, and its identity/
  Proxy px;
  Fd log, host_net, cont_net, mesh_fd;
  std::string mdir;                  // <root>/.edges
  std::optional<in_addr> net_addr;  // the container's non-loopback address, if it has one
  lifecycle::RuntimeConfig rc;
  uint32_t uid = 0;  // the proxy's
  Renewal rn;
  Saved saved;
};

// f() inside the container's network namespace, then back in the host's.
template <class F>
auto in_container_net(const Up& u, F f) -> decltype(f()) {
  if (::setns(u.cont_net.get(), CLONE_NEWNET) < 0) return sys_error("enter the container's network namespace");
  auto r = f();
  if (::setns(u.host_net.get(), CLONE_NEWNET) < 0) return sys_error("return to the host network namespace");
  return r;
}

Result<Fd> open_ns(pid_t pid, const char* ns) {
  return open_file("/proc/" + std::to_string(pid) + "/ns/" + ns, O_RDONLY);
}

// <root>/.edges/<role>, made when absent (0755 root): the role's registry.
Result<Fd> role_dir(const Up& u, const std::string& role) {
  const std::string& mdir = u.mdir;
  if (::mkdirat(u.mesh_fd.get(), role.c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + mdir + "/" + role);
  Fd d(::openat(u.mesh_fd.get(), role.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) return sys_error("open " + mdir + "/" + role);
  struct stat st {};
  if (::fstat(d.get(), &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) return fail(mdir + "/" + role + ": not a root-owned directory");
  // Every proxy (each its own uid) must reach the sockets in it; mkdir's mode went through our umask.
  if ((st.st_mode & 07777) != 0755 && ::fchmod(d.get(), 0755) < 0) return sys_error("chmod " + mdir + "/" + role);
  return d;
}

// The container's "sharness" block, from the config create saved: its edges and role.
Result<void> read_mesh(Up& u) {
  u.cdir = u.o.root + "/" + u.st.id;
  auto cfg = TRY(oci::parse_config(TRY(read_file(u.cdir + "/config.json")), u.cdir + "/config.json"));
  if (!cfg.sharness_json) return fail("container " + u.st.id + ": no sharness block in its config");
  auto doc = TRY(json::Document::parse(*cfg.sharness_json, "config.json: sharness"));
  auto ext = TRY(policy::parse_extension(doc.root()));
  if (!ext.mesh || !ext.mesh->active()) return fail("container " + u.st.id + ": no edges in its sharness block");
  u.px.id = u.st.id;
  u.px.mesh = *ext.mesh;
  return {};
}

// The leaf create issued into the container's identity directory: the TLS contexts.
Result<void> load_identity(Up& u) {
  u.idir = u.cdir + "/identity/";
  std::string cert = TRY(read_file(u.idir + identity::kCertFile, 1 << 16));
  std::string key = TRY(read_file(u.idir + identity::kKeyFile, 1 << 16));
  std::string ca = TRY(read_file(u.idir + identity::kCaFile, 1 << 16));
  if (u.px.mesh.edges && !u.px.mesh.edges->empty()) u.px.client_ctx = TRY(tls::make_ctx(false, tls::Pem{cert, key, ca}));
  if (u.px.mesh.accepts) u.px.server_ctx = TRY(tls::make_ctx(true, tls::Pem{cert, key, ca}));
  return {};
}

// The log, init's pidfd (the proxy ends with it), both network namespaces, the container's address.
Result<void> open_container(Up& u) {
  u.log = TRY(open_file(u.cdir + "/" + kLogFile, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600));
  if (u.st.pid <= 0) return fail("container " + u.st.id + ": no init pid in the hook state");
  u.px.init_pidfd = Fd(int(::syscall(SYS_pidfd_open, u.st.pid, 0)));
  if (!u.px.init_pidfd) return sys_error("pidfd_open container init " + std::to_string(u.st.pid));
  u.host_net = TRY(open_ns(::getpid(), "net"));
  u.cont_net = TRY(open_ns(u.st.pid, "net"));
  u.net_addr = TRY(in_container_net(u, [] { return Result<std::optional<in_addr>>(network_address()); }));
  u.px.networked = u.net_addr.has_value();
  return {};
}

// <root>/.edges, and the live registry. Fails closed: without the registry no peer could be
// checked, so there is no proxy.
Result<void> open_registries(Up& u) {
  u.mdir = policy::mesh_dir(u.o.root);
  u.mesh_fd = TRY(open_file(u.mdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  u.px.live = TRY(live::open_registry(u.o.root));
  return {};
}

// The workload's end of each edge: a UNIX socket in <root>/<id>/edges, or 127.0.0.1:<port> in
// the container's own network namespace; with the registry of the role it leads to.
Result<void> listen_edges(Up& u) {
  if (!u.px.mesh.edges) return {};
  Fd edir;
  for (const auto& e : *u.px.mesh.edges) {
    Listener l;
    l.edge = e;
    l.peers = std::make_shared<RoleDir>();
    l.peers->dir = ::fdopendir(TRY(role_dir(u, e.to)).release());
    if (!l.peers->dir) return sys_error("opendir " + u.mdir + "/" + e.to);
    if (e.tcp) {
      l.fd = TRYC("edge to " + e.to, in_container_net(u, [&] { return tcp_listen_local(e.port); }));
    } else {
      if (!edir) edir = TRY(open_file(u.cdir + "/edges", O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
      l.fd = TRY(listen_unix(edir.get(), e.to + ".sock", "edge to " + e.to));
    }
    u.px.listeners.push_back(std::move(l));
  }
  return {};
}

// The server side: one instance of the role among any number, <root>/.edges/<role>/<id>.sock;
// with a network, also TLS on the container's address at the service's port (the service itself
// is on 127.0.0.1), published by name in the role's registry.
Result<void> listen_service(Up& u) {
  if (!u.px.mesh.accepts) return {};
  const std::string& role = *u.px.mesh.role;
  const auto& accepts = *u.px.mesh.accepts;
  Fd rdir = TRY(role_dir(u, role));
  std::string name = u.st.id + ".sock";
  Listener l;
  l.server = true;
  l.fd = TRY(listen_unix(rdir.get(), name, "server socket of role " + role));
  u.saved.server_socket = u.mdir + "/" + role + "/" + name;
  struct stat sst {};
  if (::fstatat(rdir.get(), name.c_str(), &sst, AT_SYMLINK_NOFOLLOW) == 0) u.saved.server_ino = sst.st_ino;
  u.px.listeners.push_back(std::move(l));
  if (accepts.tcp && u.net_addr) {
    Listener t;
    t.server = true;
    t.fd = TRYC("server of role " + role + " on the network",
                in_container_net(u, [&] { return tcp_listen(*u.net_addr, accepts.port); }));
    u.px.listeners.push_back(std::move(t));
    std::string reg = u.st.id + "@" + ip_text(*u.net_addr) + ":" + std::to_string(accepts.port) + ".tcp";
    ::unlinkat(rdir.get(), reg.c_str(), 0);
    TRYV(openat_file(rdir.get(), reg, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644));
    if (::fchmodat(rdir.get(), reg.c_str(), 0644, 0) < 0) return sys_error("chmod " + reg);
    u.saved.server_tcp = u.mdir + "/" + role + "/" + reg;
  }
  if (!accepts.tcp) u.px.service_dir = TRY(open_file(u.cdir + "/service", O_PATH | O_DIRECTORY | O_NOFOLLOW));
  return {};
}

// A throwaway uid for the proxy, from the runtime config's range.
Result<void> claim_uid(Up& u) {
  u.rc = TRY(lifecycle::load_runtime_config(u.o.config.empty() ? lifecycle::kDefaultRuntimeConfig : u.o.config,
                                            !u.o.config.empty()));
  u.uid = TRY(lifecycle::allocate_ephemeral_uid(u.o.root, u.rc.ephemeral_first, u.rc.ephemeral_count, u.st.id));
  u.saved.uid = u.uid;
  return {};
}

// What the supervisor renews with: the CA, the identity directory and its owner, the live
// registry, and its end of the control pair to the proxy.
Result<void> prepare_renewal(Up& u) {
  Renewal& rn = u.rn;
  rn.id = u.st.id;
  rn.role = *u.px.mesh.role;
  rn.ca_dir = lifecycle::ca_dir(u.rc, u.o.root);
  rn.lifetime = u.rc.leaf_seconds;
  rn.identity_dir = TRY(open_file(u.idir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  rn.live = TRY(live::open_registry(u.o.root));
  struct stat cst {};
  if (::fstatat(rn.identity_dir.get(), identity::kCertFile, &cst, AT_SYMLINK_NOFOLLOW) < 0)
    return sys_error("stat " + u.idir + identity::kCertFile);
  rn.uid = cst.st_uid;
  rn.gid = cst.st_gid;
  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("socketpair");
  rn.control = Fd(sp[0]);
  u.px.control = Fd(sp[1]);
  return {};
}

// The proxy's last steps as root: the service on TCP is in the container's network namespace,
// so the proxy lives there; so does a proxy whose container has a network: it reaches peers
// over it (UNIX sockets on the host work from any network namespace). Then the bounds.
Result<std::string> enter_sandbox(Up& u) {
  if (((u.px.mesh.accepts && u.px.mesh.accepts->tcp) || u.px.networked) && ::setns(u.cont_net.get(), CLONE_NEWNET) < 0)
    return sys_error("enter the container's network namespace");
  u.host_net.reset();
  u.cont_net.reset();
  if (::chdir("/") < 0) return sys_error("chdir /");
  if (u.px.listeners.size() + 8 > 32) return fail("too many edges for one proxy (at most 24)");
  return confine_proxy(u.uid, u.px);
}

// The proxy: reports "ok <pid>" or its error on `ready`, then serves.
[[noreturn]] void run_proxy(Up& u, Fd ready) {
  u.rn.control.reset();
  u.rn.identity_dir.reset();
  u.rn.live.reset();
  ::prctl(PR_SET_NAME, "sharness-edge", 0, 0, 0);
  auto bounds = enter_sandbox(u);
  std::string msg = bounds ? "ok " + std::to_string(::getpid()) : bounds.error().what();
  (void)!::write(ready.get(), msg.data(), msg.size());
  if (!bounds) _exit(1);
  ready.reset();
  logf("proxy up as uid " + std::to_string(u.uid) + " for " + u.st.id + " (role " + *u.px.mesh.role +
       "): no capabilities, no_new_privs, seccomp allowlist, " + *bounds);
  serve(u.px);
}

// The supervisor, in a session of its own: forks the proxy, keeps none of its sockets, keys or
// contexts, and supervises it.
[[noreturn]] void run_supervisor(Up& u, Fd ready) {
  ::setsid();
  ::signal(SIGPIPE, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  set_log(u.log.get());
  pid_t proxy = ::fork();
  if (proxy < 0) _exit(1);
  if (proxy == 0) run_proxy(u, std::move(ready));
  ready.reset();
  u.px.listeners.clear();
  u.px.control.reset();
  u.px.live.reset();
  u.px.client_ctx.reset();
  u.px.server_ctx.reset();
  u.host_net.reset();
  u.cont_net.reset();
  ::prctl(PR_SET_NAME, "sharness-edge-s", 0, 0, 0);
  if (auto b = bound_supervisor(); !b) logf(b.error().what());  // it still stops the proxy
  supervise(std::move(u.rn), std::move(u.px.init_pidfd), proxy);
}

// Fork the supervisor and wait for the proxy's word; a proxy that failed takes its uid back.
Result<void> start_proxy(Up& u) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd rd(pipefd[0]), wr(pipefd[1]);
  pid_t sup = ::fork();
  if (sup < 0) return sys_error("fork the edge supervisor");
  if (sup == 0) {
    rd.reset();
    run_supervisor(u, std::move(wr));
  }
  wr.reset();
  char buf[512];
  ssize_t n = ::read(rd.get(), buf, sizeof buf);
  std::string msg = n > 0 ? std::string(buf, size_t(n)) : "the proxy died before it was ready";
  if (!msg.starts_with("ok ")) {
    ::kill(sup, SIGKILL);  // its proxy has exited or will: it failed
    (void)lifecycle::release_ephemeral_uid(u.o.root, u.uid, u.st.id);
    return fail("edge proxy for " + u.st.id + ": " + msg);
  }
  record_started(u.saved, pid_t(std::stol(msg.substr(3))), sup);
  return {};
}

}  // namespace

Result<int> up(const Opts& o) {
  Up u(o, TRY(read_state()));
  TRYV(read_mesh(u));
  TRYV(load_identity(u));
  TRYV(open_container(u));
  TRYV(open_registries(u));
  ::umask(077);
  TRYV(listen_edges(u));
  TRYV(listen_service(u));
  TRYV(claim_uid(u));
  TRYV(prepare_renewal(u));
  TRYV(start_proxy(u));
  TRYV(write_file_atomic(u.cdir + "/" + kStateFile, saved_json(u.saved), 0600));
  return 0;
}

}  // namespace sh::edges
