// start: release the barrier init waits on, and report init's errors if it cannot exec.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fault.hpp"
#include "base/file.hpp"
#include "hooks/hooks.hpp"
#include "oci/spec13.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/seccomp_listener.hpp"
#include "runtime/lifecycle/state_rules.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::lifecycle {

Result<oci::Config> load_saved_config(const ContainerDir& dir) {
  std::string text = TRY(read_file_at(dir.fd(), "config.json", 32u << 20));
  return oci::parse_config(text, dir.path() + "/config.json");
}

namespace {

// init's start socket, connected (and unlinked: one start only).
Result<Fd> connect_start_socket(ContainerDir& dir, const Record& rec) {
  Fd sock(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!sock) return sys_error("start socket");
  struct sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = dir.fd_path("start.sock");
  std::memcpy(addr.sun_path, path.c_str(), std::min(path.size() + 1, sizeof addr.sun_path - 1));
  if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
    return sys_error("start container " + rec.id + ": connect to init");
  fault::point("start.connected");
  ::unlinkat(dir.fd(), "start.sock", 0);
  return sock;
}

// Release init's barrier: send the state over `sock` (init's start socket, or the sync socket
// of a create that starts at once). Returns what init answered (nothing when it exec'd), or the
// transport error.
Result<std::optional<sync::Message>> release_init(ContainerDir& dir, const Record& rec, int sock,
                                                  const ListenerHook* learning) {
  TRYV(sync::send(sock, sync::Msg::start, oci::hook_state_json(to_state(rec, Status::created))));
  fault::point("start.sent");
  // init closes the socket by exec'ing (CLOEXEC); anything it sends but a seccomp notify fd
  // on the way (for listenerPath, named by the saved config) is an error, and but a recording
  // run's announcement of its listener, which the recorder takes before init goes on.
  for (;;) {
    auto m = TRY(recv_serving_listener(sock, [&]() -> Result<ListenerTarget> {
      return listener_of(TRY(load_saved_config(dir)), to_state(rec, Status::created), rec.pid);
    }));
    if (!m || !learning || m->type != sync::Msg::listener) return m;
    if (auto r = (*learning)(m->payload); !r) {
      stop_init(rec);
      return std::unexpected(r.error());
    }
  }
}

}  // namespace

Result<void> start_locked(ContainerDir& dir, Record& rec, const Poststart* poststart, const ListenerHook* learning,
                          int init_sock) {
  Status s = status_of(rec);
  TRYV(rules::can_start(rec.id, s));
  // Opened first: a kill that came just before our lock may have init dying still, and then
  // the socket refuses or resets. That is the state error, not a runtime failure.
  Fd init = init_pidfd(rec);
  Fd connected;
  auto m = [&]() -> Result<std::optional<sync::Message>> {
    if (init_sock < 0) connected = TRY(connect_start_socket(dir, rec));
    return release_init(dir, rec, init_sock < 0 ? connected.get() : init_sock, learning);
  }();
  if (!m) {
    if (!init || proc::exits_within(init.get(), std::chrono::seconds(2)))
      return fail("cannot start container " + rec.id + ": it is stopped, not created");
    return std::unexpected(m.error());
  }
  if (*m) return fail((*m)->type == sync::Msg::error ? (*m)->payload : "protocol error from container init");
  fault::point("start.released");
  rec.started = true;
  TRYV(dir.save(rec));
  fault::point("start.saved");
  // run hands over the hooks of the config it parsed; a `start` parses the saved config only
  // when create recorded that it has poststart hooks (or the state predates that record).
  std::optional<Poststart> saved;
  if (!poststart && rec.poststart_hooks) {
    if (auto c = load_saved_config(dir)) poststart = &saved.emplace(poststart_of(*c));
  }
  if (!poststart || poststart->hooks.empty()) return {};
  std::string state = oci::hook_state_json(to_state(rec, Status::running));
  if (!poststart->fatal) {
    // runtime-spec 1.0.2 to 1.2: a failing poststart hook is a warning and the next ones still
    // run; the container is already running.
    (void)hooks::run_warn(poststart->hooks, "poststart", state);
    return {};
  }
  // runtime-spec 1.3: the first failure is an error, the container is stopped, and the lifecycle
  // goes on at its destruction (`delete`, which runs the poststop hooks; `run` deletes it itself).
  auto r = hooks::run(poststart->hooks, "poststart", state);
  if (r) return {};
  stop_init(rec);
  return fail(std::move(r.error())
                  .context("start container " + rec.id + " (ociVersion 1.3 or later: a failing poststart hook is an "
                           "error, runtime-spec 1.3; the container was stopped)"));
}

Poststart poststart_of(oci::Config& c) {
  return {std::move(c.hooks.poststart), oci::poststart_failure_is_error(c.oci_version)};
}

Result<void> start(const Globals& g, const std::string& id) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(id));
  Record rec = TRY(dir.load());
  return start_locked(dir, rec);
}

}  // namespace sh::lifecycle
