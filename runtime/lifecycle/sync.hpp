// The typed protocol between the runtime and the container's init, over a SOCK_SEQPACKET
// socketpair (one datagram a message): a type byte and a text payload. Errors travel back
// as messages, so the user sees the real cause, not "init exited".
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "runtime/linux/fd_passing.hpp"

namespace sh::sync {

enum class Msg : unsigned char {
  go = 1,          // runtime -> init: namespaces joined, maps written, cgroup joined; payload: state json
  hooks_request,   // init -> runtime: run prestart + createRuntime hooks now
  hooks_done,      // runtime -> init: hooks ran; payload: state json for createContainer
  ready,           // init -> runtime: set up, waiting on the start barrier
  error,           // either way: payload is the error text; the sender gives up
  start,           // start command -> init: payload: state json for startContainer hooks
  seccomp_fd,      // init or exec -> its runtime: SCM_RIGHTS carries the seccomp notify fd
  seccomp_done,    // runtime -> init or exec: the fd reached listenerPath, go on to execve
  listener,        // init -> start (policy learn): the recording listener is about to be fd N; payload: N
};

struct Message {
  Msg type;
  std::string payload;
  Fd fd;  // the fd a seccomp_fd message carries
};

// An error's text is cut to kMaxErrorText bytes (it may embed a config value of any size,
// and a datagram larger than the socket buffer is refused whole: the error would be lost).
inline constexpr size_t kMaxErrorText = 16 * 1024;
Result<void> send(int fd, Msg type, std::string_view payload = {});
// `text` cut to at most `max` bytes (its start and its last 256 bytes, on UTF-8 boundaries),
// saying how long it was.
std::string truncate_text(std::string_view text, size_t max);
// A message whose SCM_RIGHTS carries `fd` (seccomp_fd).
Result<void> send_with_fd(int sock, Msg type, int fd);
// nullopt on EOF (the peer closed: for init after a successful execve).
Result<std::optional<Message>> recv(int fd);
// recv() that insists on `want`; an error message becomes an Error carrying its text.
Result<Message> expect(int fd, Msg want, std::string_view peer);

// Pass an fd over a unix socket (SCM_RIGHTS), and receive one: runtime/linux/fd_passing.hpp's.
using fd_passing::recv_fd;
using fd_passing::send_fd;

}  // namespace sh::sync
