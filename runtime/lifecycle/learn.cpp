#include "runtime/lifecycle/learn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <memory>
#include <thread>

#include "runtime/lifecycle/internal.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "runtime/linux/syscall_recorder.hpp"

namespace sh::lifecycle {
namespace {

// The recorder's thread: started when init announces its listener, stopped and joined on
// every way out (a recorder left serving would hold the container's processes forever).
struct Recording {
  std::unique_ptr<recorder::Recorder> rec;
  std::thread thread;
  Result<void> served;
  ~Recording() { finish(std::chrono::seconds(0)); }
  // Wait for the recorder to see every recorded process gone, at most `grace`, then stop it.
  void finish(std::chrono::milliseconds grace) {
    if (!thread.joinable()) return;
    auto until = std::chrono::steady_clock::now() + grace;
    while (!done && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    rec->stop();
    thread.join();
  }
  std::atomic<bool> done = false;
};

std::string quoted_args(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Wait for init, killing the container when --seconds runs out; the wait status.
Result<int> wait_init(const Globals& g, const std::string& id, const Launched& l, std::optional<unsigned> seconds,
                      bool& ended) {
  struct pollfd p = {l.pidfd.get(), POLLIN, 0};
  int ms = seconds ? int(*seconds) * 1000 : -1;
  int n;
  while ((n = ::poll(&p, 1, ms)) < 0 && errno == EINTR) {
  }
  if (n == 0) {
    ended = true;
    TRYV(kill(g, id, SIGKILL, true));
  }
  int status = 0;
  while (::waitpid(l.pid, &status, 0) < 0)
    if (errno != EINTR) return sys_error("waitpid container init");
  return status;
}

}  // namespace

Result<LearnRun> learn_run(const Globals& g, const LearnOptions& lo) {
  CreateOptions o;
  o.id = "learn-" + std::to_string(::getpid());
  o.bundle = lo.bundle;
  o.learn = true;
  o.start_at_once = true;
  o.learn_floor = std::make_shared<const policy::Policy>(policy::recording_floor(lo.from.value_or(policy::Policy{})));
  Created made = TRY(create_container(g, o, std::nullopt));
  struct Removed {
    const Globals& g;
    const std::string& id;
    ~Removed() { (void)remove(g, id, true); }
  } removed{g, o.id};
  LearnRun out;
  if (made.rec.pid > 0) out.command = quoted_args(TRY(load_saved_config(made.dir)).process->args);

  Recording recording;
  ListenerHook take = [&](const std::string& number) -> Result<void> {
    int n = -1;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (ec != std::errc() || end != number.data() + number.size() || n < 0)
      return fail("policy learn: init announced listener fd \"" + number + "\"");
    Fd listener = TRY(recorder::take_listener(made.launched.pidfd.get(), n, std::chrono::seconds(5)));
    recording.rec = std::make_unique<recorder::Recorder>(std::move(listener), made.launched.pid);
    recording.thread = std::thread([&recording] {
      recording.served = recording.rec->serve();
      recording.done = true;
    });
    return {};
  };
  TRYV(start_locked(made.dir, made.rec, &made.poststart, &take, made.init_sock.get()));
  made.dir = ContainerDir();  // unlock: kill needs the lock
  if (!recording.rec) return fail("policy learn: init started without announcing its recording listener");

  int status = TRY(wait_init(g, o.id, made.launched, lo.seconds, out.ended_by_seconds));
  out.exit_code = exit_code(status);
  // Without a pid namespace init's children outlive it: the run ends with init.
  (void)kill(g, o.id, SIGKILL, true);
  recording.finish(std::chrono::seconds(5));
  TRYV(recording.served);
  out.trace = std::move(recording.rec->trace());
  auto cg = TRY(live_cgroup(made.rec));
  auto stats = TRY(cg.stats());
  if (!stats.pids_peak) return fail("policy learn: the pids cgroup of " + o.id + " has no pids.peak (Linux 6.1+): the peak "
                                    "process count cannot be learned");
  out.trace.peak_tasks = int64_t(*stats.pids_peak);

  Fd root(::open(made.rec.rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("policy learn: rootfs " + made.rec.rootfs);
  for (const auto& path : out.trace.execs)
    out.sha256[path] = TRYC("policy learn: pin what the run executed (a pin names a file of the bundle's rootfs)",
                            exec_allowlist::hash_in_root(root.get(), path, exec_allowlist::Symlinks::refuse))
                           .sha256;
  return out;
}

}  // namespace sh::lifecycle
