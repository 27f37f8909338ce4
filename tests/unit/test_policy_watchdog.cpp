// The wall-clock watchdog: kills a process that ignores SIGTERM once the time is up (counted from
// the process's start, and said in the record it leaves), exits promptly when the container ends
// first, and never touches a recycled pid.
#define BOOST_TEST_MODULE policy_watchdog
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/file.hpp"
#include "runtime/lifecycle/watchdog.hpp"
#include "runtime/lifecycle/watchdog_record.hpp"
#include "runtime/linux/proc_info.hpp"

using namespace sh;
using namespace sh::lifecycle;
using Clock = std::chrono::steady_clock;

namespace {

// The watchdog is double-forked: as a child subreaper, this process inherits it and can
// wait for it like for any child.
struct Subreaper {
  Subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }
};
BOOST_GLOBAL_FIXTURE(Subreaper);

// A child that traps SIGTERM (and everything it can) and sleeps until killed.
// Returns once the child has set its dispositions.
pid_t stubborn_child() {
  int ready[2];
  BOOST_REQUIRE(pipe(ready) == 0);
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    for (int s = 1; s < NSIG; ++s) signal(s, SIG_IGN);
    (void)!write(ready[1], "x", 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  BOOST_REQUIRE(read(ready[0], &c, 1) == 1);
  close(ready[0]);
  return pid;
}

uint64_t start_time(pid_t pid) {
  // The child may not have been scheduled yet; its stat is there as soon as fork returns.
  auto st = proc::stat(pid);
  BOOST_REQUIRE(st);
  return st->start_time;
}

// waitpid with a deadline: the status, or nullopt if pid is still running after `secs`.
std::optional<int> wait_for(pid_t pid, double secs) {
  auto end = Clock::now() + std::chrono::duration<double>(secs);
  while (Clock::now() < end) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return st;
    if (r < 0) return std::nullopt;
    struct timespec t = {0, 10'000'000};
    nanosleep(&t, nullptr);
  }
  return std::nullopt;
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A temp dir for the watchdog's record, removed at the end of the case.
struct RecordDir {
  std::string dir = std::filesystem::temp_directory_path() / ("sharness-wdr-" + std::to_string(getpid()));
  std::string path = dir + "/" + kWatchdogFiredFile;
  RecordDir() { std::filesystem::create_directories(dir); }
  ~RecordDir() { std::filesystem::remove_all(dir); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(kills_a_process_that_ignores_sigterm_after_the_limit) {
  RecordDir rd;
  pid_t child = stubborn_child();
  kill(child, SIGTERM);  // ignored
  uint64_t started = start_time(child);
  auto wd = spawn_watchdog(child, started, {}, 1, rd.path);
  BOOST_REQUIRE_MESSAGE(wd, (wd ? "" : wd.error().what()));
  BOOST_TEST(*wd != child);
  auto st = wait_for(child, 5);
  BOOST_REQUIRE_MESSAGE(st, "the watchdog did not kill the child within 5 s");
  BOOST_TEST(WIFSIGNALED(*st));
  BOOST_TEST(WTERMSIG(*st) == SIGKILL);
  // Its job done, the watchdog is gone too.
  BOOST_TEST(wait_for(*wd, 5).has_value());
  // Its record, left before the kill: armed 1 s after the child's start (in boot-time ticks, the
  // clock of /proc/<pid>/stat), fired at or after that.
  auto text = read_file(rd.path);
  BOOST_REQUIRE_MESSAGE(text, "no record at " << rd.path);
  struct stat st_rec {};
  BOOST_TEST(stat(rd.path.c_str(), &st_rec) == 0);
  BOOST_TEST((st_rec.st_mode & 07777) == 0600u);  // its owner reads it without CAP_DAC_OVERRIDE (rootless)
  auto f = parse_watchdog_fired(*text, rd.path);
  BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().what()));
  BOOST_TEST(f->started_ns == started * (1'000'000'000u / uint64_t(sysconf(_SC_CLK_TCK))));
  BOOST_TEST(f->deadline_ns - f->started_ns == 1'000'000'000u);
  BOOST_TEST(f->fired_ns >= f->deadline_ns);
  BOOST_TEST(describe(*f).starts_with("the wall-clock watchdog sent SIGKILL "));
}

BOOST_AUTO_TEST_CASE(the_limit_counts_from_the_process_start_not_the_spawn) {
  // A watchdog spawned 1.2 s after the process started, with a limit of 1 s, fires at once.
  RecordDir rd;
  pid_t child = stubborn_child();
  struct timespec t = {1, 200'000'000};
  nanosleep(&t, nullptr);
  auto wd = spawn_watchdog(child, start_time(child), {}, 1, rd.path);
  BOOST_REQUIRE(wd);
  auto st = wait_for(child, 5);
  BOOST_REQUIRE(st);
  BOOST_TEST(WTERMSIG(*st) == SIGKILL);
  BOOST_TEST(wait_for(*wd, 5).has_value());
  auto f = parse_watchdog_fired(read_file(rd.path).value_or(""), rd.path);
  BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().what()));
  // Armed from the start (from the spawn it would say 2.2 s), already past when it was armed.
  BOOST_TEST(f->deadline_ns - f->started_ns == 1'000'000'000u);
  BOOST_TEST(f->fired_after_seconds() >= 1.2);
}

BOOST_AUTO_TEST_CASE(exits_promptly_when_the_container_ends_first) {
  pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    struct timespec t = {0, 200'000'000};
    nanosleep(&t, nullptr);
    _exit(7);
  }
  RecordDir rd;
  auto wd = spawn_watchdog(child, start_time(child), {}, 3600, rd.path);
  BOOST_REQUIRE(wd);
  auto st = wait_for(child, 5);
  BOOST_REQUIRE(st);
  BOOST_TEST(WEXITSTATUS(*st) == 7);
  // The child is reaped now; the pidfd said so to the watchdog, which leaves at once.
  auto t0 = Clock::now();
  auto wst = wait_for(*wd, 3);
  BOOST_REQUIRE_MESSAGE(wst, "the watchdog outlived the container");
  BOOST_TEST(since(t0) < 1.5);
  BOOST_TEST(WIFEXITED(*wst));
  BOOST_TEST(WEXITSTATUS(*wst) == 0);
  BOOST_TEST(!std::filesystem::exists(rd.path));  // it never fired: no record
}

BOOST_AUTO_TEST_CASE(kills_every_process_listed_in_the_cgroup) {
  pid_t init = stubborn_child();
  pid_t other = stubborn_child();  // not the init: found through the procs file only
  std::string dir = std::filesystem::temp_directory_path() / ("sharness-wd-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cgroup.procs") << init << "\n" << other << "\n";
  auto wd = spawn_watchdog(init, start_time(init), {dir + "/cgroup.procs"}, 1, "");
  BOOST_REQUIRE(wd);
  auto a = wait_for(init, 5), b = wait_for(other, 5);
  BOOST_REQUIRE(a);
  BOOST_REQUIRE(b);
  BOOST_TEST(WTERMSIG(*a) == SIGKILL);
  BOOST_TEST(WTERMSIG(*b) == SIGKILL);
  BOOST_TEST(wait_for(*wd, 5).has_value());
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_recycled_pid_is_never_killed) {
  pid_t child = stubborn_child();
  // A start time that is not this process's: the pid "was recycled".
  RecordDir rd;
  auto wd = spawn_watchdog(child, start_time(child) + 1, {}, 1, rd.path);
  BOOST_REQUIRE(wd);
  BOOST_TEST(wait_for(*wd, 3).has_value());  // the watchdog gave up at once
  BOOST_TEST(!wait_for(child, 1.5).has_value());  // and the process lives on past the limit
  BOOST_TEST(!std::filesystem::exists(rd.path));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
  BOOST_TEST(!spawn_watchdog(0, 0, {}, 1, "").has_value());
  BOOST_TEST(!spawn_watchdog(getpid(), 0, {}, 0, "").has_value());
  BOOST_TEST(!spawn_watchdog(getpid(), 0, {}, 1, "relative/record").has_value());
}
