// The accept loop: one thread per connection, at most kMaxConnections at once (more wait in the
// listen queue); it ends when the listener is shut.
#include <malloc.h>
#include <poll.h>
#include <sys/socket.h>

#include <thread>

#include "egress/door.hpp"
#include "egress/request_log.hpp"

namespace sh::egress {
namespace {

// How long the door waits, idle, before it gives its free heap back.
constexpr int kIdleTrimMs = 1000;

// Waits for a connection to accept. Once the door has been idle (no connection open) for
// kIdleTrimMs, the heap's free pages go back to the kernel: the TLS and HTTP buffers of finished
// connections lie free in the middle of the heap, where glibc keeps them. Once, not after every
// connection: a busy door would only fault them back in. Anything but a timeout (a client, the
// listener shut, an error) is accept4's to see.
void wait_for_client(Door& d, bool& trimmed) {
  pollfd p{d.listener.get(), POLLIN, 0};
  while (!trimmed && ::poll(&p, 1, kIdleTrimMs) == 0) {
    if (d.active.load() != 0) continue;
    ::malloc_trim(0);
    trimmed = true;
  }
}

}  // namespace

int serve(Door& d) {
  bool trimmed = false;
  for (;;) {
    wait_for_client(d, trimmed);
    Fd conn(::accept4(d.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM)
        continue;
      // EINVAL: the listener was shut (shutdown SHUT_RD); anything else: it is gone.
      log_door("info", std::string("door stops: the listener is closed (") + strerrordesc_np(errno) + ")");
      return 0;
    }
    trimmed = false;
    while (d.active.load() >= kMaxConnections) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++d.active;
    std::thread([&d, c = std::move(conn)]() mutable {
      serve_connection(d, std::move(c));
      --d.active;
    }).detach();
  }
}

}  // namespace sh::egress
