// The accept loop: one thread per connection, at most kMaxConnections at once (more wait in the
// listen queue); it ends when the listener is shut.
#include <sys/socket.h>

#include <thread>

#include "egress/door.hpp"
#include "egress/request_log.hpp"

namespace sh::egress {

int serve(Door& d) {
  for (;;) {
    Fd conn(::accept4(d.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM)
        continue;
      // EINVAL: the listener was shut (shutdown SHUT_RD); anything else: it is gone.
      log_door("info", std::string("door stops: the listener is closed (") + strerrordesc_np(errno) + ")");
      return 0;
    }
    while (d.active.load() >= kMaxConnections) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++d.active;
    std::thread([&d, c = std::move(conn)]() mutable {
      serve_connection(d, std::move(c));
      --d.active;
    }).detach();
  }
}

}  // namespace sh::egress
