// Landlock on the real kernel, no mocks: each case builds a ruleset, enforces it in a forked
// child (a domain, once entered, cannot be left) and checks what the child may still do.
// Best-effort negotiation is checked by passing a lower ABI than the kernel's.
#define BOOST_TEST_MODULE landlock
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "runtime/linux/landlock.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;
using sh::test::ChildResult;
using sh::test::expect_ok;
using sh::test::in_child;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t EXECUTE = 1ull << 0, WRITE_FILE = 1ull << 1, READ_FILE = 1ull << 2, READ_DIR = 1ull << 3,
                   REMOVE_FILE = 1ull << 5, MAKE_REG = 1ull << 8, MAKE_SOCK = 1ull << 9, REFER = 1ull << 13,
                   TRUNCATE = 1ull << 14, IOCTL_DEV = 1ull << 15;
constexpr uint64_t BIND_TCP = 1, CONNECT_TCP = 2;
constexpr uint64_t SCOPE_ABSTRACT = 1, SCOPE_SIGNAL = 2;

// Every case needs the real thing; this machine has ABI 7 (DESIGN.md §7).
bool have(int abi) { return landlock::abi_version() >= abi; }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = "/tmp/sh-landlock-XXXXXX";
    BOOST_REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// Build (as the runtime does, before anything is restricted), then no_new_privs and enforce.
std::string enforce(const oci::LandlockConfig& c) {
  auto fd = landlock::build_ruleset(c, nullptr);
  if (!fd) return "build: " + fd.error().what() + "\n";
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return "no_new_privs failed\n";
  auto r = landlock::restrict_self(fd->get());
  if (!r) return "restrict: " + r.error().what() + "\n";
  return "";
}

// "" when `rc` failed with errno `want` (or succeeded, for want == 0); else a line saying what.
std::string expect_errno(const std::string& what, int rc, int want) {
  int e = rc < 0 ? errno : 0;
  if (e == want) return "";
  return what + ": want " + (want ? strerrorname_np(want) : "success") + ", got " +
         (e ? strerrorname_np(e) : "success") + "\n";
}

int open_rc(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  return fd < 0 ? -1 : 0;
}

// Fork and execve argv; the exit status (127 + errno report when execve itself fails).
std::string run_status(const std::string& exe, std::vector<std::string> args, int want_exit) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    char* envp[] = {nullptr};
    ::execve(exe.c_str(), argv.data(), envp);
    _exit(100 + (errno & 0x1f));
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st) && WEXITSTATUS(st) == want_exit) return "";
  return exe + ": want exit " + std::to_string(want_exit) + ", got status " + std::to_string(st) +
         (WIFEXITED(st) && WEXITSTATUS(st) >= 100 ? " (execve errno " + std::to_string(WEXITSTATUS(st) - 100) + ")"
                                                   : "") +
         "\n";
}

oci::LandlockConfig fs_config(uint64_t handled, std::vector<oci::LandlockPathRule> rules) {
  oci::LandlockConfig c;
  c.handled_fs = handled;
  c.path_beneath = std::move(rules);
  return c;
}

int listener(uint16_t* port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  BOOST_REQUIRE(::listen(s, 8) == 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return s;
}

int tcp(bool connect_not_bind, uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  int rc = connect_not_bind ? ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a)
                            : ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int e = errno;
  ::close(s);
  errno = e;
  return rc;
}

sockaddr_un abstract_addr(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
  *len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

int abstract_listener(const std::string& name) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t len;
  auto a = abstract_addr(name, &len);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), len) < 0 || ::listen(s, 4) < 0) return -1;
  return s;
}

int abstract_connect(const std::string& name) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t len;
  auto a = abstract_addr(name, &len);
  int rc = ::connect(s, reinterpret_cast<sockaddr*>(&a), len);
  int e = errno;
  ::close(s);
  errno = e;
  return rc;
}

}  // namespace

BOOST_AUTO_TEST_CASE(abi_is_known_and_cached) {
  int abi = landlock::abi_version();
  BOOST_TEST_MESSAGE("Landlock ABI " << abi);
  BOOST_TEST(abi >= 1);  // this machine: 7
  BOOST_TEST(landlock::abi_version() == abi);
}

BOOST_AUTO_TEST_CASE(read_only_under_one_directory) {
  BOOST_REQUIRE(have(1));
  TempDir a, b;
  write_file(a / "f", "a");
  write_file(b / "g", "b");
  auto c = fs_config(READ_FILE | WRITE_FILE | READ_DIR, {{READ_FILE | READ_DIR, {a.path.string()}}});
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("read A/f", open_rc(a / "f", O_RDONLY), 0);
    r += expect_errno("list A", open_rc(a.path.string(), O_RDONLY | O_DIRECTORY), 0);
    r += expect_errno("read B/g", open_rc(b / "g", O_RDONLY), EACCES);
    r += expect_errno("list B", open_rc(b.path.string(), O_RDONLY | O_DIRECTORY), EACCES);
    r += expect_errno("write A/f", open_rc(a / "f", O_WRONLY), EACCES);
    r += expect_errno("write B/g", open_rc(b / "g", O_RDWR), EACCES);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(refer_reparenting_needs_the_right) {
  BOOST_REQUIRE(have(2));
  TempDir a, b;
  write_file(a / "f", "a");
  write_file(a / "h", "a");
  const uint64_t handled = READ_FILE | READ_DIR | REMOVE_FILE | MAKE_REG | REFER;
  // Both directories may create and remove files, neither may reparent: EXDEV (the kernel's
  // answer when only the refer right is missing).
  const std::vector<std::string> both = {a.path.string(), b.path.string()};
  auto no_refer = fs_config(handled, {{READ_FILE | READ_DIR | REMOVE_FILE | MAKE_REG, both}});
  expect_ok(in_child([&] {
    std::string r = enforce(no_refer);
    r += expect_errno("rename A/f -> B/f", ::rename((a / "f").c_str(), (b / "f").c_str()), EXDEV);
    r += expect_errno("rename A/f -> A/f2 (same directory)", ::rename((a / "f").c_str(), (a / "f2").c_str()), 0);
    return r;
  }));
  // With refer on both (same rights on each side), the same move works.
  auto with_refer = fs_config(handled, {{handled, both}});
  expect_ok(in_child([&] {
    std::string r = enforce(with_refer);
    r += expect_errno("rename A/h -> B/h", ::rename((a / "h").c_str(), (b / "h").c_str()), 0);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(truncate_of_a_read_only_file_fails) {
  BOOST_REQUIRE(have(3));
  TempDir a;
  write_file(a / "f", "keep me");
  auto c = fs_config(READ_FILE | WRITE_FILE | TRUNCATE, {{READ_FILE, {a.path.string()}}});
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("truncate(A/f)", ::truncate((a / "f").c_str(), 0), EACCES);
    // O_RDONLY|O_TRUNC truncates without any write right: truncate holds it.
    r += expect_errno("open(A/f, O_RDONLY|O_TRUNC)", open_rc(a / "f", O_RDONLY | O_TRUNC), EACCES);
    return r;
  }));
  BOOST_TEST(fs::file_size(a / "f") == 7u);
}

BOOST_AUTO_TEST_CASE(execute_only_the_allowed_copy) {
  BOOST_REQUIRE(have(1));
  TempDir a, b;
  fs::copy_file("/bin/busybox", a / "busybox");
  fs::copy_file("/bin/busybox", b / "busybox");
  ::chmod((a / "busybox").c_str(), 0755);
  ::chmod((b / "busybox").c_str(), 0755);
  // A rule on the file itself: a file rule keeps only file rights, so read_dir is masked off.
  auto c = fs_config(EXECUTE | READ_DIR, {{EXECUTE | READ_DIR, {a / "busybox"}}});
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += run_status(a / "busybox", {"busybox", "true"}, 0);
    r += run_status(b / "busybox", {"busybox", "true"}, 100 + EACCES);
    r += run_status("/bin/busybox", {"busybox", "true"}, 100 + EACCES);
    return r;
  }));
  // With read_file handled too, execve needs it as well: the kernel opens the program for
  // reading and for execution.
  auto exec_no_read = fs_config(EXECUTE | READ_FILE, {{EXECUTE, {a / "busybox"}}});
  auto exec_and_read = fs_config(EXECUTE | READ_FILE, {{EXECUTE | READ_FILE, {a / "busybox"}}});
  expect_ok(in_child([&] {
    std::string r = enforce(exec_no_read);
    r += run_status(a / "busybox", {"busybox", "true"}, 100 + EACCES);
    return r;
  }));
  expect_ok(in_child([&] {
    std::string r = enforce(exec_and_read);
    r += run_status(a / "busybox", {"busybox", "true"}, 0);
    return r;
  }));
  // Only directory rights on a file: nothing applies to it, the rule is left out (the
  // kernel would refuse an empty one with ENOMSG).
  auto dir_rights_on_a_file = fs_config(EXECUTE | READ_DIR, {{READ_DIR, {a / "busybox"}}});
  BOOST_TEST(landlock::build_ruleset(dir_rights_on_a_file, nullptr).has_value());
}

// What docs/landlock.md claims, measured: the kernel opens a program and its ELF interpreter
// (PT_INTERP) for execution, so both need execute; ld.so maps shared libraries with
// mmap(PROT_EXEC) of files it opened for reading, which needs only read_file.
BOOST_AUTO_TEST_CASE(interpreter_needs_execute_libraries_need_read) {
  BOOST_REQUIRE(have(1));
  const std::string prog = fs::canonical("/usr/bin/true").string();
  const std::string interp = fs::canonical("/lib64/ld-linux-x86-64.so.2").string();
  const uint64_t handled = EXECUTE | READ_FILE | READ_DIR;
  // Everything readable; execute on the program only.
  auto prog_only = fs_config(handled, {{READ_FILE | READ_DIR, {"/"}}, {EXECUTE, {prog}}});
  expect_ok(in_child([&] {
    std::string r = enforce(prog_only);
    r += run_status(prog, {"true"}, 100 + EACCES);  // the interpreter is refused: execve fails
    return r;
  }));
  // Execute on the program and its interpreter, libc only readable: runs.
  auto with_interp = fs_config(handled, {{READ_FILE | READ_DIR, {"/"}}, {EXECUTE, {prog, interp}}});
  expect_ok(in_child([&] {
    std::string r = enforce(with_interp);
    r += run_status(prog, {"true"}, 0);
    return r;
  }));
  // mmap(PROT_EXEC) of a readable file is not an execute access.
  TempDir a;
  write_file(a / "blob", std::string(4096, '\xc3'));
  auto read_only = fs_config(handled, {{READ_FILE | READ_DIR, {a.path.string()}}});
  expect_ok(in_child([&] {
    std::string r = enforce(read_only);
    int fd = ::open((a / "blob").c_str(), O_RDONLY | O_CLOEXEC);
    void* m = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) r += std::string("mmap PROT_EXEC of a readable file: ") + strerrorname_np(errno) + "\n";
    return r;
  }));
}

// An allowed interpreter runs any script it can read: execute on the script is only checked
// when the script itself is execve'd.
BOOST_AUTO_TEST_CASE(allowed_interpreter_runs_any_readable_script) {
  BOOST_REQUIRE(have(1));
  TempDir a;
  write_file(a / "s.sh", "exit 7\n", 0755);
  const std::string sh = fs::canonical("/bin/busybox").string();  // static: no ELF interpreter
  auto c = fs_config(EXECUTE | READ_FILE | READ_DIR, {{READ_FILE | READ_DIR, {"/"}}, {EXECUTE, {sh}}});
  write_file(a / "t.sh", "#!" + sh + " sh\nexit 9\n", 0755);
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += run_status(sh, {"sh", a / "s.sh"}, 7);          // interpreter reads the script: runs
    r += run_status(a / "t.sh", {"t.sh"}, 100 + EACCES);  // the script as a program: refused
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(tcp_connect_and_bind_by_port) {
  BOOST_REQUIRE(have(4));
  uint16_t allowed = 0, other = 0, spare = 0;
  int l1 = listener(&allowed), l2 = listener(&other), l3 = listener(&spare);
  ::close(l3);  // a port nobody listens on, for the allowed bind
  oci::LandlockConfig c;
  c.handled_net = BIND_TCP | CONNECT_TCP;
  c.net_port = {{CONNECT_TCP, {allowed}}, {BIND_TCP, {spare}}};
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("connect to the allowed port", tcp(true, allowed), 0);
    r += expect_errno("connect to another listener", tcp(true, other), EACCES);
    // Landlock is asked before the port is looked at: EACCES, not EADDRINUSE.
    r += expect_errno("bind an unlisted port", tcp(false, other), EACCES);
    r += expect_errno("bind the listed port", tcp(false, spare), 0);
    r += expect_errno("connect to the bind-only port", tcp(true, spare), EACCES);
    return r;
  }));
  ::close(l1);
  ::close(l2);
}

BOOST_AUTO_TEST_CASE(scope_signal) {
  BOOST_REQUIRE(have(6));
  pid_t outside = fork();
  BOOST_REQUIRE(outside >= 0);
  if (outside == 0) {
    for (;;) pause();
  }
  oci::LandlockConfig c;
  c.scoped = SCOPE_SIGNAL;
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("signal a process outside the domain", ::kill(outside, SIGTERM), EPERM);
    r += expect_errno("probe it with signal 0", ::kill(outside, 0), EPERM);
    pid_t inside = fork();
    if (inside == 0) {
      for (;;) pause();
    }
    r += expect_errno("kill our own child", ::kill(inside, SIGKILL), 0);
    int st = 0;
    waitpid(inside, &st, 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) r += "own child was not killed\n";
    return r;
  }));
  // The outside process survived the attempt.
  BOOST_TEST(::kill(outside, 0) == 0);
  ::kill(outside, SIGKILL);
  waitpid(outside, nullptr, 0);
}

BOOST_AUTO_TEST_CASE(scope_abstract_unix_socket) {
  BOOST_REQUIRE(have(6));
  const std::string outer = "sharness-landlock-test-" + std::to_string(getpid());
  int l = abstract_listener(outer);
  BOOST_REQUIRE(l >= 0);
  // Control: a domain without the scope still reaches it.
  expect_ok(in_child([&] {
    std::string r = enforce(fs_config(READ_FILE, {}));
    r += expect_errno("connect without the scope", abstract_connect(outer), 0);
    return r;
  }));
  oci::LandlockConfig c;
  c.scoped = SCOPE_ABSTRACT;
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("connect to a socket made outside", abstract_connect(outer), EPERM);
    int inner = abstract_listener(outer + "-inner");
    if (inner < 0) r += "listen inside the domain failed\n";
    r += expect_errno("connect to a socket made inside", abstract_connect(outer + "-inner"), 0);
    return r;
  }));
  ::close(l);
}

BOOST_AUTO_TEST_CASE(restrict_self_without_no_new_privs_says_so) {
  BOOST_REQUIRE(have(1));
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return;
  }
  auto c = fs_config(READ_FILE, {});
  expect_ok(in_child([&] {
    auto fd = landlock::build_ruleset(c, nullptr);
    if (!fd) return fd.error().what();
    // No no_new_privs, and no CAP_SYS_ADMIN once we are not root.
    if (::setresgid(65534, 65534, 65534) < 0 || ::setresuid(65534, 65534, 65534) < 0) return std::string("setuid\n");
    auto r = landlock::restrict_self(fd->get());
    if (r) return std::string("restrict_self succeeded without no_new_privs\n");
    if (r.error().err != EPERM || r.error().what().find("no_new_privs") == std::string::npos)
      return "unexpected error: " + r.error().what() + "\n";
    return std::string();
  }));
  // As root (CAP_SYS_ADMIN), no_new_privs is not needed: the runtime may enforce before the drop.
  expect_ok(in_child([&] {
    auto fd = landlock::build_ruleset(c, nullptr);
    if (!fd) return fd.error().what();
    auto r = landlock::restrict_self(fd->get());
    return r ? std::string() : r.error().what();
  }));
  BOOST_TEST(bool(landlock::restrict_self(-1)));  // nothing to enforce: a no-op
}

BOOST_AUTO_TEST_CASE(rules_are_opened_before_the_uid_change) {
  BOOST_REQUIRE(have(1));
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return;
  }
  TempDir a;
  ::chmod(a.path.c_str(), 0700);  // root's only
  write_file(a / "f", "secret", 0600);
  auto c = fs_config(READ_FILE | READ_DIR, {{READ_FILE | READ_DIR, {a.path.string()}}});
  expect_ok(in_child([&] {
    auto fd = landlock::build_ruleset(c, nullptr);  // as root, as in plan_launch
    if (!fd) return fd.error().what();
    if (::setresgid(65534, 65534, 65534) < 0 || ::setresuid(65534, 65534, 65534) < 0) return std::string("setuid\n");
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return std::string("nnp\n");
    auto r = landlock::restrict_self(fd->get());
    if (!r) return r.error().what();
    // Landlock allows it, DAC still refuses it: the layers stack.
    return expect_errno("read as nobody", open_rc(a / "f", O_RDONLY), EACCES);
  }));
}

BOOST_AUTO_TEST_CASE(missing_paths_best_effort_or_error) {
  BOOST_REQUIRE(have(1));
  TempDir a;
  auto c = fs_config(READ_FILE | READ_DIR, {{READ_FILE | READ_DIR, {a.path.string(), a / "nope"}}});
  landlock::Negotiated n;
  auto fd = landlock::build_ruleset(c, &n);
  BOOST_REQUIRE(fd.has_value());
  BOOST_TEST(n.skipped_paths == (std::vector<std::string>{a / "nope"}));
  BOOST_TEST(landlock::describe(n).find("allow rules for missing paths skipped: " + (a / "nope")) != std::string::npos);
  c.disable_best_effort = true;
  auto err = landlock::build_ruleset(c, &n);
  BOOST_REQUIRE(!err);
  BOOST_TEST(err.error().err == ENOENT);
  BOOST_TEST(err.error().what().find("landlock: rules.pathBeneath[0]: path \"" + (a / "nope") + "\"") == 0u);
  // Other failures are errors even with best effort: a path through a file.
  write_file(a / "file", "x");
  c.disable_best_effort = false;
  c.path_beneath[0].paths = {a / "file/below"};
  err = landlock::build_ruleset(c, &n);
  BOOST_REQUIRE(!err);
  BOOST_TEST(err.error().err == ENOTDIR);
}

// A policy's block (canonical_paths) follows no symlink: an error without best effort, a
// skipped allow (tighter) with it; a config's block follows the same symlink.
BOOST_AUTO_TEST_CASE(canonical_paths_follow_no_symlink) {
  BOOST_REQUIRE(have(1));
  TempDir a;
  fs::create_directory(a / "dir");
  fs::create_directory_symlink(a / "dir", a / "link");
  auto c = fs_config(READ_FILE | READ_DIR, {{READ_FILE | READ_DIR, {a / "link"}}});
  landlock::Negotiated n;
  BOOST_REQUIRE(landlock::build_ruleset(c, &n).has_value());  // a config's block: followed
  BOOST_TEST(n.skipped_paths.empty());
  c.canonical_paths = true;
  BOOST_REQUIRE(landlock::build_ruleset(c, &n).has_value());
  BOOST_TEST(n.skipped_paths == (std::vector<std::string>{a / "link"}));
  c.disable_best_effort = true;
  auto err = landlock::build_ruleset(c, &n);
  BOOST_REQUIRE(!err);
  BOOST_TEST(err.error().err == ELOOP);
  BOOST_TEST(err.error().what().find("must not pass through a symlink") != std::string::npos, err.error().what());
  c.path_beneath[0].paths = {a / "dir"};  // the canonical path is fine
  BOOST_TEST(landlock::build_ruleset(c, &n).has_value());
}

BOOST_AUTO_TEST_CASE(negotiation_drops_what_an_older_abi_lacks) {
  oci::LandlockConfig c;
  c.handled_fs = READ_FILE | WRITE_FILE | REFER | TRUNCATE | IOCTL_DEV;
  c.handled_net = BIND_TCP | CONNECT_TCP;
  c.scoped = SCOPE_SIGNAL;
  auto n = landlock::negotiate(c, 3);
  BOOST_REQUIRE(n.has_value());
  BOOST_TEST(n->abi == 3);
  BOOST_TEST(n->fs_handled == (READ_FILE | WRITE_FILE | REFER | TRUNCATE));
  BOOST_TEST(n->net_handled == 0u);
  BOOST_TEST(n->scoped == 0u);
  BOOST_TEST(n->dropped == (std::vector<std::string>{"ioctl_dev", "bind_tcp", "connect_tcp", "signal"}));
  BOOST_TEST(landlock::describe(*n) ==
             "landlock ABI 3: fs [write_file read_file refer truncate], net [], scoped []; NOT enforced (kernel "
             "lacks): ioctl_dev (ABI 5), bind_tcp (ABI 4), connect_tcp (ABI 4), signal (ABI 6)");
  n = landlock::negotiate(c, 1);
  BOOST_TEST(n->fs_handled == (READ_FILE | WRITE_FILE));
  n = landlock::negotiate(c, 7);
  BOOST_TEST(n->dropped.empty());
  BOOST_TEST(n->fs_handled == c.handled_fs);
  n = landlock::negotiate(c, 0);  // no Landlock at all
  BOOST_TEST(n->enforces_nothing());
  BOOST_TEST(n->dropped.size() == 8u);
  BOOST_TEST(landlock::describe(*n).find("landlock ABI 0: nothing enforced; NOT enforced") == 0u);
}

BOOST_AUTO_TEST_CASE(disable_best_effort_turns_a_missing_right_into_an_error) {
  oci::LandlockConfig c;
  c.handled_fs = READ_FILE | IOCTL_DEV;
  c.scoped = SCOPE_SIGNAL;
  c.disable_best_effort = true;
  auto n = landlock::negotiate(c, 3);
  BOOST_REQUIRE(!n);
  BOOST_TEST(n.error().what() == "landlock: right \"ioctl_dev\" needs ABI 5, kernel has 3");
  c.handled_fs = READ_FILE;
  n = landlock::negotiate(c, 5);
  BOOST_REQUIRE(!n);
  BOOST_TEST(n.error().what() == "landlock: scope \"signal\" needs ABI 6, kernel has 5");
  n = landlock::negotiate(c, 0);
  BOOST_REQUIRE(!n);
  BOOST_TEST(n.error().what().find("the kernel has no Landlock") != std::string::npos);
  BOOST_TEST(landlock::negotiate(c, 6).has_value());
}

// Negotiated down, the ruleset the real kernel gets is one an older kernel would take, and
// what was dropped is really not enforced.
BOOST_AUTO_TEST_CASE(best_effort_ruleset_on_the_real_kernel) {
  BOOST_REQUIRE(have(4));
  TempDir a;
  write_file(a / "f", "x");
  oci::LandlockConfig c;
  c.handled_fs = READ_FILE | TRUNCATE;
  c.handled_net = CONNECT_TCP;
  c.path_beneath = {{READ_FILE | TRUNCATE, {a / "f"}}};
  c.net_port = {{CONNECT_TCP, {1}}};
  landlock::Negotiated n;
  auto fd = landlock::build_ruleset(c, &n, 2);  // as if on a 5.19 kernel
  BOOST_REQUIRE(fd.has_value());
  BOOST_TEST(n.dropped == (std::vector<std::string>{"truncate", "connect_tcp"}));
  uint16_t port = 0;
  int l = listener(&port);
  expect_ok(in_child([&] {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return std::string("nnp\n");
    auto r = landlock::restrict_self(fd->get());
    if (!r) return r.error().what();
    std::string out;
    out += expect_errno("read A/f", open_rc(a / "f", O_RDONLY), 0);
    out += expect_errno("connect (not handled at ABI 2)", tcp(true, port), 0);
    return out;
  }));
  ::close(l);
  // Nothing left at all: no ruleset, and enforcing it is a no-op.
  oci::LandlockConfig scopes_only;
  scopes_only.scoped = SCOPE_SIGNAL;
  fd = landlock::build_ruleset(scopes_only, &n, 5);
  BOOST_REQUIRE(fd.has_value());
  BOOST_TEST(!*fd);
  BOOST_TEST(n.enforces_nothing());
  BOOST_TEST(n.dropped == (std::vector<std::string>{"signal"}));
}

BOOST_AUTO_TEST_CASE(describe_what_is_enforced) {
  landlock::Negotiated n;
  n.abi = 7;
  n.fs_handled = EXECUTE | READ_FILE;
  n.net_handled = CONNECT_TCP;
  n.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT;
  BOOST_TEST(landlock::describe(n) ==
             "landlock ABI 7: fs [execute read_file], net [connect_tcp], scoped [abstract_unix_socket signal]");
}

BOOST_AUTO_TEST_CASE(features_lists) {
  auto per = landlock::rights_per_abi();
  BOOST_REQUIRE(per.size() == 7u);
  BOOST_TEST(per[0].fs.size() == 13u);
  BOOST_TEST(per[1].fs == (std::vector<std::string>{"refer"}));
  BOOST_TEST(per[2].fs == (std::vector<std::string>{"truncate"}));
  BOOST_TEST(per[3].net == (std::vector<std::string>{"bind_tcp", "connect_tcp"}));
  BOOST_TEST(per[4].fs == (std::vector<std::string>{"ioctl_dev"}));
  BOOST_TEST(per[5].scoped == (std::vector<std::string>{"abstract_unix_socket", "signal"}));
  BOOST_TEST((per[6].fs.empty() && per[6].net.empty() && per[6].scoped.empty()));
  auto s = landlock::supported(3);
  BOOST_TEST(s.fs.size() == 15u);
  BOOST_TEST(s.net.empty());
  BOOST_TEST(landlock::supported().abi == landlock::abi_version());
  if (have(6)) BOOST_TEST(landlock::supported().scoped.size() == 2u);
}

// The execute right is checked on execve, not on code: ld.so run as a program maps any file
// it can read and runs it. docs/landlock.md says so; noexec mounts close that path.
BOOST_AUTO_TEST_CASE(execute_bounds_execve_not_code) {
  BOOST_REQUIRE(have(1));
  TempDir a;
  fs::copy_file("/usr/bin/true", a / "true");
  ::chmod((a / "true").c_str(), 0755);
  const std::string interp = fs::canonical("/lib64/ld-linux-x86-64.so.2").string();
  auto c = fs_config(EXECUTE | READ_FILE | READ_DIR, {{READ_FILE | READ_DIR, {"/"}}, {EXECUTE, {interp}}});
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += run_status(a / "true", {"true"}, 100 + EACCES);  // execve of the copy: refused
    r += run_status(interp, {"ld.so", a / "true"}, 0);    // the same file through ld.so: runs
    return r;
  }));
}

// What the network and filesystem rights do not cover on this kernel (ABI 7), measured so
// that docs/landlock.md stays true. A failure here means a kernel closed a gap: update the doc.
BOOST_AUTO_TEST_CASE(measured_limits) {
  BOOST_REQUIRE(have(4));
  TempDir a;
  write_file(a / "f", "x");
  uint16_t port = 0;
  int l = listener(&port);
  const std::string unix_path = a / "sock";
  int u = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un ua{};
  ua.sun_family = AF_UNIX;
  std::strcpy(ua.sun_path, unix_path.c_str());
  BOOST_REQUIRE(::bind(u, reinterpret_cast<sockaddr*>(&ua), sizeof ua) == 0);
  BOOST_REQUIRE(::listen(u, 4) == 0);
  oci::LandlockConfig c;
  c.handled_net = BIND_TCP | CONNECT_TCP;
  c.handled_fs = READ_FILE | WRITE_FILE | READ_DIR | MAKE_SOCK;  // no rule: all denied
  expect_ok(in_child([&] {
    std::string r = enforce(c);
    r += expect_errno("TCP connect (control)", tcp(true, port), EACCES);
    // listen() on an unbound socket binds an ephemeral port without asking bind_tcp.
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    r += expect_errno("listen without bind", ::listen(s, 1), 0);
    ::close(s);
    // UDP is not covered by the TCP rights.
    int d = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(port);
    r += expect_errno("UDP connect", ::connect(d, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
    ::close(d);
    // MPTCP sockets are not TCP sockets to Landlock (when the host enables MPTCP).
    int m = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (m >= 0) {
      r += expect_errno("MPTCP connect", ::connect(m, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
      ::close(m);
    }
    // Connecting to a pathname UNIX socket is no file open: the fs rights do not see it.
    int us = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    r += expect_errno("pathname UNIX connect", ::connect(us, reinterpret_cast<sockaddr*>(&ua), sizeof ua), 0);
    ::close(us);
    // Metadata and cwd are outside the fs rights.
    struct stat st;
    r += expect_errno("stat", ::stat((a / "sock").c_str(), &st), 0);
    r += expect_errno("chdir", ::chdir(a.path.c_str()), 0);
    r += expect_errno("open for reading (control)", open_rc(a / "f", O_RDONLY), EACCES);
    return r;
  }));
  ::close(l);
  ::close(u);
}
