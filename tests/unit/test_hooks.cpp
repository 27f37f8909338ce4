#define BOOST_TEST_MODULE hooks
#include <boost/test/unit_test.hpp>

#include "tests/unit/temp_dir.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hooks/hooks.hpp"

using namespace sh;
namespace fs = std::filesystem;

namespace {

const std::string kState =
    R"({"ociVersion":"1.2.0","id":"c1","status":"creating","pid":42,"bundle":"/b","annotations":{"a":"b"}})";

struct TmpDir : sh::test::TempDir {
  TmpDir() : TempDir("sharness-hooks") {}
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

oci::Hook sh_hook(const std::string& script, std::optional<int> timeout = {}) {
  return oci::Hook{"/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, timeout};
}

std::string run_error(const std::vector<oci::Hook>& hooks, const std::string& kind = "prestart",
                      const std::string& state = kState) {
  auto r = hooks::run(hooks, kind, state);
  return r ? "" : r.error().what();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(state_on_stdin) {
  TmpDir d;
  BOOST_TEST(run_error({sh_hook("cat > " + (d / "state"))}) == "");
  BOOST_TEST(slurp(d / "state") == kState);
}

BOOST_AUTO_TEST_CASE(no_hooks_is_fine) { BOOST_TEST(run_error({}) == ""); }

BOOST_AUTO_TEST_CASE(failure_carries_status_and_stderr) {
  auto err = run_error({sh_hook("echo first line >&2; echo 'it broke' >&2; exit 3")}, "poststop");
  BOOST_TEST(err == "poststop hook /bin/sh: exited with status 3: first line\nit broke");
}

BOOST_AUTO_TEST_CASE(failure_without_stderr) {
  BOOST_TEST(run_error({{"/bin/false", {}, {}, {}}}, "createRuntime") ==
             "createRuntime hook /bin/false: exited with status 1");
}

BOOST_AUTO_TEST_CASE(stderr_tail_is_bounded) {
  // 20000 bytes of 'x' then a marker: only the last 4 KiB are kept.
  auto err = run_error({sh_hook("i=0; while [ $i -lt 200 ]; do printf '%0100d' 0 >&2; i=$((i+1)); done;"
                                " echo END >&2; exit 1")});
  BOOST_TEST(err.find("exited with status 1: ...") != std::string::npos);
  BOOST_TEST(err.size() < 4096 + 200);
  BOOST_TEST(err.ends_with("0END"));
}

BOOST_AUTO_TEST_CASE(killed_by_signal) {
  auto err = run_error({sh_hook("kill -SEGV $$")});
  BOOST_TEST(err == "prestart hook /bin/sh: killed by signal SIGSEGV");
}

BOOST_AUTO_TEST_CASE(missing_binary) {
  auto err = run_error({{"/nonexistent/hook-binary", {}, {}, {}}});
  BOOST_TEST(err == "prestart hook /nonexistent/hook-binary: exec: ENOENT (No such file or directory)");
}

BOOST_AUTO_TEST_CASE(not_executable) {
  TmpDir d;
  std::ofstream(d / "hook") << "#!/bin/sh\nexit 0\n";
  auto err = run_error({{d / "hook", {}, {}, {}}});
  BOOST_TEST(err == "prestart hook " + (d / "hook") + ": exec: EACCES (Permission denied)");
}

BOOST_AUTO_TEST_CASE(timeout_kills_the_hook) {
  auto t0 = std::chrono::steady_clock::now();
  auto err = run_error({{"/bin/sleep", {"sleep", "10"}, {}, 1}});
  double took = seconds_since(t0);
  BOOST_TEST(err == "prestart hook /bin/sleep: timed out after 1 s");
  BOOST_TEST(took >= 0.9);
  BOOST_TEST(took < 3.0);
}

BOOST_AUTO_TEST_CASE(timeout_while_state_does_not_fit_the_pipe) {
  // The hook never reads stdin and the state is larger than a pipe: the write must not block
  // past the timeout.
  std::string big = "{\"pad\":\"" + std::string(1 << 20, 'x') + "\"}";
  auto t0 = std::chrono::steady_clock::now();
  auto r = hooks::run({{"/bin/sleep", {"sleep", "10"}, {}, 1}}, "prestart", big);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what() == "prestart hook /bin/sleep: timed out after 1 s");
  BOOST_TEST(seconds_since(t0) < 3.0);
}

BOOST_AUTO_TEST_CASE(hook_that_ignores_stdin) {
  // /bin/true exits without reading a large state: EPIPE is not an error, SIGPIPE does not kill us.
  std::string big = "{\"pad\":\"" + std::string(1 << 20, 'x') + "\"}";
  auto r = hooks::run({{"/bin/true", {}, {}, {}}}, "poststart", big);
  BOOST_TEST(r.has_value());
}

BOOST_AUTO_TEST_CASE(hook_leaving_a_daemon_behind) {
  // A background child keeps the stderr pipe open; the hook itself is done and so are we.
  // (Its stdout goes to /dev/null so that it does not hold the test runner's output pipe.)
  auto t0 = std::chrono::steady_clock::now();
  BOOST_TEST(run_error({sh_hook("sleep 5 >/dev/null & exit 0")}) == "");
  BOOST_TEST(seconds_since(t0) < 3.0);
}

BOOST_AUTO_TEST_CASE(hooks_run_in_order_and_stop_at_first_failure) {
  TmpDir d;
  std::string log = d / "log";
  auto err = run_error({sh_hook("echo one >> " + log), sh_hook("echo two >> " + log),
                        sh_hook("echo three >> " + log + "; exit 4"), sh_hook("echo four >> " + log)},
                       "createContainer");
  BOOST_TEST(err == "createContainer hook /bin/sh: exited with status 4");
  BOOST_TEST(slurp(log) == "one\ntwo\nthree\n");
}

BOOST_AUTO_TEST_CASE(args_and_env_exactly) {
  TmpDir d;
  std::string script = "cat /proc/$$/cmdline > " + (d / "cmdline") + "; cat /proc/$$/environ > " + (d / "environ");
  oci::Hook h{"/bin/sh", {"my-hook", "-c", script, "arg0", "a b", ""}, {"A=1", "B=two words"}, {}};
  BOOST_TEST(run_error({h}) == "");
  using namespace std::string_literals;
  BOOST_TEST(slurp(d / "cmdline") == "my-hook\0-c\0"s + script + "\0arg0\0a b\0\0"s);
  BOOST_TEST(slurp(d / "environ") == "A=1\0B=two words\0"s);
}

BOOST_AUTO_TEST_CASE(no_env_means_empty_env) {
  TmpDir d;
  oci::Hook h{"/bin/sh", {"sh", "-c", "cat /proc/$$/environ > " + (d / "environ")}, {}, {}};
  BOOST_TEST(run_error({h}) == "");
  BOOST_TEST(fs::exists(d / "environ"));
  BOOST_TEST(slurp(d / "environ") == "");
}

BOOST_AUTO_TEST_CASE(no_args_means_path_as_argv0) {
  TmpDir d;
  std::string hook = d / "hook";
  std::ofstream(hook) << "#!/bin/sh\necho \"$0\" > " << (d / "out") << "\n";
  fs::permissions(hook, fs::perms::owner_all);
  BOOST_TEST(run_error({{hook, {}, {}, {}}}) == "");
  BOOST_TEST(slurp(d / "out") == hook + "\n");
}

BOOST_AUTO_TEST_CASE(fds_above_stderr_are_closed) {
  TmpDir d;
  int leak = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  BOOST_REQUIRE(leak > 2);
  std::string fd = std::to_string(leak);
  auto err = run_error({sh_hook("if [ -e /proc/$$/fd/" + fd + " ]; then echo open; else echo closed; fi > " +
                                (d / "out"))});
  close(leak);
  BOOST_TEST(err == "");
  BOOST_TEST(slurp(d / "out") == "closed\n");
}

BOOST_AUTO_TEST_CASE(stdout_goes_to_stderr_not_stdout) {
  // Hook stdout must not reach the runtime's stdout (a client may parse it): point our stdout
  // at a file and check nothing lands there.
  TmpDir d;
  int saved = dup(1);
  int f = open((d / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  BOOST_REQUIRE(f >= 0);
  dup2(f, 1);
  close(f);
  auto err = run_error({sh_hook("echo hello from hook")});
  dup2(saved, 1);
  close(saved);
  BOOST_TEST(err == "");
  BOOST_TEST(slurp(d / "stdout") == "");
}
