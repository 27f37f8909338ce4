#include "runtime/lifecycle/seccomp_listener.hpp"

#include "runtime/linux/fd_passing.hpp"

namespace sh::lifecycle {

Result<ListenerTarget> listener_of(const oci::Config& c, oci::State state, pid_t pid) {
  const auto& s = c.linux.seccomp;
  if (!s || !s->listener_path || s->listener_path->empty())
    return fail("seccomp: a notify fd came from container " + state.id + ", but its config has no listenerPath");
  return ListenerTarget{*s->listener_path, s->listener_metadata.value_or(""), std::move(state), pid};
}

Result<void> hand_notify_fd(int sock, int notify_fd) {
  if (sock < 0) return fail("seccomp: SCMP_ACT_NOTIFY: no runtime to hand the listener fd to");
  TRYV(sync::send_with_fd(sock, sync::Msg::seccomp_fd, notify_fd));
  TRY(sync::expect(sock, sync::Msg::seccomp_done, "runtime"));
  return {};
}

namespace {

Result<void> send_to_listener(const ListenerTarget& t, int notify_fd) {
  Fd conn = TRY(fd_passing::connect_unix(t.path, "seccomp listenerPath"));
  std::string json = oci::container_process_state_json(t.state, t.pid, t.metadata);
  auto sent = fd_passing::send_fd(conn.get(), notify_fd, json);
  if (!sent) return fail(std::move(sent.error()).context("seccomp listenerPath " + t.path));
  return {};
}

}  // namespace

Result<std::optional<sync::Message>> recv_serving_listener(int sock,
                                                           const std::function<Result<ListenerTarget>()>& target) {
  for (;;) {
    auto m = TRY(sync::recv(sock));
    if (!m || m->type != sync::Msg::seccomp_fd) return m;
    auto sent = [&]() -> Result<void> { return send_to_listener(TRY(target()), m->fd.get()); }();
    m->fd.reset();
    if (!sent) {
      // The process gives up on it; our caller reports it as the process's own error.
      (void)sync::send(sock, sync::Msg::error, sent.error().what());
      return std::optional<sync::Message>(sync::Message{sync::Msg::error, sent.error().what(), Fd{}});
    }
    TRYV(sync::send(sock, sync::Msg::seccomp_done));
  }
}

}  // namespace sh::lifecycle
