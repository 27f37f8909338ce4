// `events --denials ID`: the container's denials record (denial_reader.hpp), followed.
#include <fcntl.h>
#include <unistd.h>

#include <thread>

#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/denial_reader.hpp"
#include "runtime/lifecycle/state_store.hpp"

namespace sh::lifecycle {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr auto kDrain = std::chrono::milliseconds(600);  // the reader's own drain, and margin

// Emit the complete lines that arrived since the last call; false when the reader went away.
Result<bool> emit_new(int fd, std::string& partial, const std::function<bool(const std::string&)>& emit) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("read denials record");
    if (n == 0) return true;
    partial.append(buf, size_t(n));
    for (size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1))
      if (!emit(partial.substr(0, nl))) return false;
  }
}

}  // namespace

Result<void> follow_denials(const Globals& g, const std::string& id,
                            const std::function<bool(const std::string& line)>& emit) {
  // No lock held for the stream's life: delete must not wait for a watcher.
  ContainerDir dir = TRY(Store(g.root).open(id, Lock::none));
  Record rec = TRY(dir.load());
  Fd log(::openat(dir.fd(), kDenialLog, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!log && errno == ENOENT)
    return fail("container " + id + " has no denials record: only a container under a policy with a seccomp filter "
                "or Landlock, created by root, has one (docs/denials.md)");
  if (!log) return sys_error("container " + id + ": open " + kDenialLog);
  std::string partial;
  std::optional<std::chrono::steady_clock::time_point> stopped_at;
  for (;;) {
    if (!TRY(emit_new(log.get(), partial, emit))) return {};
    if (!stopped_at && status_of(rec) == Status::stopped) stopped_at = std::chrono::steady_clock::now();
    if (stopped_at && std::chrono::steady_clock::now() - *stopped_at > kDrain) break;
    std::this_thread::sleep_for(kPoll);
  }
  TRY(emit_new(log.get(), partial, emit));
  return {};
}

}  // namespace sh::lifecycle
