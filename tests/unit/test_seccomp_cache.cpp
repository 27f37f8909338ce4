#define BOOST_TEST_MODULE seccomp_cache
#include <boost/test/unit_test.hpp>

#include "tests/unit/temp_dir.hpp"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "base/file.hpp"
#include "base/sha256.hpp"
#include "runtime/linux/seccomp_cache.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;
namespace fs = std::filesystem;

namespace {

oci::SeccompSyscall rule(std::vector<std::string> names, std::string action, std::optional<uint32_t> ret = {},
                         std::vector<oci::SeccompArg> args = {}) {
  return oci::SeccompSyscall{std::move(names), std::move(action), ret, std::move(args)};
}

// An allowlist in the shape of harsh's: default ERRNO, a list of allowed calls.
oci::Seccomp allowlist() {
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ERRNO";
  s.architectures = {"SCMP_ARCH_X86_64"};
  s.syscalls = {rule({"read", "write", "openat", "close", "fstat", "mmap", "munmap", "brk", "exit_group",
                      "rt_sigreturn", "getpid", "no_such_syscall_here"},
                     "SCMP_ACT_ALLOW")};
  return s;
}

// Argument conditions, errnoRet, two architectures.
oci::Seccomp with_args() {
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ALLOW";
  s.architectures = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86"};
  s.syscalls = {rule({"mkdir", "mkdirat"}, "SCMP_ACT_ERRNO", 38),
                rule({"kill"}, "SCMP_ACT_ERRNO", 1, {oci::SeccompArg{1, SIGUSR1, 0, "SCMP_CMP_EQ"}}),
                rule({"personality"}, "SCMP_ACT_ERRNO", 13,
                     {oci::SeccompArg{0, 0, 0, "SCMP_CMP_EQ"}, oci::SeccompArg{0, 8, 0, "SCMP_CMP_EQ"}}),
                rule({"clone"}, "SCMP_ACT_ERRNO", 1, {oci::SeccompArg{0, 0x7e020000, 0, "SCMP_CMP_MASKED_EQ"}})};
  return s;
}

// Flags that change the load: LOG and SPEC_ALLOW.
oci::Seccomp with_flags() {
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ALLOW";
  s.flags = {"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"};
  s.syscalls = {rule({"getppid"}, "SCMP_ACT_ERRNO", 38), rule({"acct"}, "SCMP_ACT_KILL_PROCESS")};
  return s;
}

struct TempRoot : sh::test::TempDir {
  TempRoot() : TempDir("seccomp-cache-test") {}
  fs::path entry(const oci::Seccomp& s) const { return path / ".cache/seccomp" / (seccomp::cache_key(s) + ".bpf"); }
};

std::string prog_bytes(const std::vector<sock_filter>& p) {
  return {reinterpret_cast<const char*>(p.data()), p.size() * sizeof(sock_filter)};
}

std::string fresh_export(const oci::Seccomp& s) {
  auto f = seccomp::Filter::compile(s);
  BOOST_REQUIRE(f);
  auto p = f->export_bpf();
  BOOST_REQUIRE(p);
  return prog_bytes(*p);
}

std::string cached_bytes(const oci::Seccomp& s, const std::string& root) {
  auto f = seccomp::compile_cached(s, root);
  BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().what()));
  BOOST_REQUIRE(f->program());
  return prog_bytes(*f->program());
}

// An entry as the cache writes it (format in seccomp_cache.cpp), for any program: a forgery
// with a correct digest, which only the ownership and mode checks can keep out.
std::string forge(const oci::Seccomp& s, const std::string& prog, unsigned flags = 0) {
  std::string fw(8, '\0');
  for (int i = 0; i < 4; ++i) fw[size_t(i)] = char((flags >> (8 * i)) & 0xff);
  return sha256_hex(seccomp::cache_key(s) + fw + prog) + fw + prog;
}

// One instruction: allow everything.
std::string allow_all() {
  sock_filter ret{BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW};
  return prog_bytes({ret});
}

void put_file(const fs::path& p, const std::string& data, mode_t mode = 0600) {
  fs::remove(p);
  BOOST_REQUIRE(write_file(p, data, O_WRONLY | O_CREAT | O_TRUNC, mode));
  BOOST_REQUIRE(chmod(p.c_str(), mode) == 0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(cached_program_is_libseccomps_export_byte_for_byte) {
  for (auto s : {allowlist(), with_args(), with_flags()}) {
    TempRoot root;
    std::string want = fresh_export(s);
    BOOST_TEST(cached_bytes(s, root.path) == want);  // cold: compiled, exported, stored
    BOOST_REQUIRE(fs::exists(root.entry(s)));
    auto file = read_file(root.entry(s));
    BOOST_REQUIRE(file);
    BOOST_TEST(file->size() % sizeof(sock_filter) == 0);
    BOOST_TEST(file->substr(72) == want);            // the stored bytes
    BOOST_TEST(cached_bytes(s, root.path) == want);  // warm: read back
    struct stat st;
    BOOST_REQUIRE(stat(root.entry(s).c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0600u);
    BOOST_REQUIRE(stat((root.path / ".cache/seccomp").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0700u);
  }
}

BOOST_AUTO_TEST_CASE(load_flags_follow_the_profile) {
  TempRoot root;
  auto plain = seccomp::compile_cached(allowlist(), root.path);
  BOOST_REQUIRE(plain);
  BOOST_TEST(plain->load_flags() == 0u);
  for (int pass = 0; pass < 2; ++pass) {  // cold, then warm: the flags come back from the entry
    auto f = seccomp::compile_cached(with_flags(), root.path);
    BOOST_REQUIRE(f);
    BOOST_TEST(f->load_flags() == unsigned(SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW));
  }
}

BOOST_AUTO_TEST_CASE(key_covers_every_input) {
  auto base = with_args();
  std::string k = seccomp::cache_key(base);
  BOOST_TEST(seccomp::cache_key(with_args()) == k);
  std::vector<std::function<void(oci::Seccomp&)>> changes = {
      [](auto& s) { s.default_action = "SCMP_ACT_ERRNO"; },
      [](auto& s) { s.default_errno_ret = 1; },
      [](auto& s) { std::swap(s.architectures[0], s.architectures[1]); },
      [](auto& s) { s.architectures.pop_back(); },
      [](auto& s) { s.flags.push_back("SECCOMP_FILTER_FLAG_LOG"); },
      [](auto& s) { s.syscalls[0].names.pop_back(); },
      [](auto& s) { s.syscalls[0].action = "SCMP_ACT_TRAP"; },
      [](auto& s) { s.syscalls[0].errno_ret = 39; },
      [](auto& s) { s.syscalls[1].args[0].value = SIGUSR2; },
      [](auto& s) { s.syscalls[1].args[0].index = 0; },
      [](auto& s) { s.syscalls[1].args[0].op = "SCMP_CMP_NE"; },
      [](auto& s) { s.syscalls[3].args[0].value_two = 1; },
      [](auto& s) { std::swap(s.syscalls[0], s.syscalls[1]); },
      // Names moved between rules must not serialize alike.
      [](auto& s) { s.syscalls[0].names = {"mkdir"}; s.syscalls[1].names.insert(s.syscalls[1].names.begin(), "mkdirat"); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    auto s = base;
    changes[i](s);
    BOOST_TEST(seccomp::cache_key(s) != k, "change " << i);
  }
}

BOOST_AUTO_TEST_CASE(forged_entry_is_used_only_when_owned_and_private) {
  // The control: a forged entry with the right digest in a private file is what gets loaded
  // (so the refusals below are the checks at work, not a test that cannot fail).
  auto s = with_args();
  std::string want = fresh_export(s);
  TempRoot root;
  (void)cached_bytes(s, root.path);
  put_file(root.entry(s), forge(s, allow_all()));
  BOOST_TEST(cached_bytes(s, root.path) == allow_all());

  put_file(root.entry(s), forge(s, allow_all()), 0666);  // world-writable
  BOOST_TEST(cached_bytes(s, root.path) == want);
  put_file(root.entry(s), forge(s, allow_all()), 0620);  // group-writable
  BOOST_TEST(cached_bytes(s, root.path) == want);
  put_file(root.entry(s), forge(s, allow_all()));
  BOOST_REQUIRE(chown(root.entry(s).c_str(), 65534, 65534) == 0);  // not ours
  BOOST_TEST(cached_bytes(s, root.path) == want);
  // Each refusal rewrote the entry with the real program.
  auto file = read_file(root.entry(s));
  BOOST_REQUIRE(file);
  BOOST_TEST(file->substr(72) == want);
}

BOOST_AUTO_TEST_CASE(garbage_symlinks_and_odd_sizes_are_ignored) {
  auto s = with_args();
  std::string want = fresh_export(s);
  TempRoot root;
  (void)cached_bytes(s, root.path);
  auto e = root.entry(s);
  auto check = [&](const char* what) {
    BOOST_TEST(cached_bytes(s, root.path) == want, what);
    struct stat st;
    BOOST_REQUIRE(lstat(e.c_str(), &st) == 0);
    BOOST_TEST(S_ISREG(st.st_mode), what << ": rewritten as a regular file");
  };
  put_file(e, std::string(72, 'x') + allow_all());  // right size, no digest
  check("garbage");
  put_file(e, forge(s, allow_all()).substr(0, 71));  // not a multiple of 8
  check("truncated header");
  put_file(e, "");
  check("empty");
  put_file(e, forge(s, std::string(size_t(BPF_MAXINSNS + 1) * 8, '\0')));
  check("too long");
  put_file(e, forge(s, allow_all(), 0x80));  // a flag we never set
  check("odd flags");
  // A symlink to a perfectly good (forged) entry elsewhere.
  fs::path other = root.path / "elsewhere.bpf";
  put_file(other, forge(s, allow_all()));
  fs::remove(e);
  fs::create_symlink(other, e);
  check("symlink");
  fs::remove(e);
  fs::create_directory(e);
  BOOST_TEST(cached_bytes(s, root.path) == want, "a directory");
}

BOOST_AUTO_TEST_CASE(an_unsafe_cache_directory_is_not_used) {
  auto s = with_args();
  std::string want = fresh_export(s);
  TempRoot root;
  (void)cached_bytes(s, root.path);
  fs::path dir = root.path / ".cache/seccomp";
  put_file(root.entry(s), forge(s, allow_all()));
  BOOST_REQUIRE(chmod(dir.c_str(), 0777) == 0);
  BOOST_TEST(cached_bytes(s, root.path) == want, "world-writable dir");
  BOOST_REQUIRE(chmod(dir.c_str(), 0700) == 0);
  BOOST_REQUIRE(chown(dir.c_str(), 65534, 65534) == 0);
  BOOST_TEST(cached_bytes(s, root.path) == want, "dir not ours");
  BOOST_REQUIRE(chown(dir.c_str(), 0, 0) == 0);
  BOOST_TEST(cached_bytes(s, root.path) == allow_all(), "control: the same dir, ours again");
  // The cache dir a symlink to a dir holding a forged entry.
  fs::path elsewhere = root.path / "elsewhere";
  fs::rename(dir, elsewhere);
  fs::create_directory_symlink(elsewhere, dir);
  BOOST_TEST(cached_bytes(s, root.path) == want, "symlinked dir");
  BOOST_REQUIRE(chmod((root.path / ".cache").c_str(), 0757) == 0);
  BOOST_TEST(cached_bytes(s, root.path) == want, ".cache world-writable");
}

BOOST_AUTO_TEST_CASE(notify_filters_and_no_root_go_through_libseccomp) {
  TempRoot root;
  auto s = with_args();
  s.listener_path = "/run/agent.sock";
  s.syscalls.push_back(rule({"mknodat"}, "SCMP_ACT_NOTIFY"));
  BOOST_TEST(!seccomp::cacheable(s));
  auto f = seccomp::compile_cached(s, root.path);
  BOOST_REQUIRE(f);
  BOOST_TEST(!f->program());
  BOOST_TEST(f->notify());
  BOOST_TEST(!fs::exists(root.entry(s)));
  auto off = seccomp::compile_cached(with_args(), "");
  BOOST_REQUIRE(off);
  BOOST_TEST(!off->program());
  BOOST_TEST(!fs::exists(root.path / ".cache"));
}

BOOST_AUTO_TEST_CASE(compile_errors_stay_errors) {
  TempRoot root;
  auto s = with_args();
  s.syscalls[0].action = "SCMP_ACT_BOGUS";
  auto f = seccomp::compile_cached(s, root.path);
  BOOST_REQUIRE(!f);
  BOOST_TEST(f.error().what().find("linux.seccomp.syscalls[0].action") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_warm_entry_still_denies) {
  TempRoot root;
  auto s = with_args();
  (void)cached_bytes(s, root.path);
  auto r = test::in_child([&]() -> std::string {
    auto f = seccomp::compile_cached(s, root.path);  // warm: from the file
    if (!f || !f->program()) return "not from the cache";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return "PR_SET_NO_NEW_PRIVS failed";
    if (auto l = f->load(); !l) return l.error().what();
    std::string out;
    errno = 0;
    if (syscall(SYS_mkdirat, AT_FDCWD, "/nonexistent-dir/x", 0700) != -1 || errno != ENOSYS)
      out += "mkdirat not ENOSYS (errno " + std::to_string(errno) + "); ";
    if (syscall(SYS_kill, getpid(), 0) != 0) out += "kill(pid, 0) denied; ";
    errno = 0;
    if (syscall(SYS_kill, getpid(), SIGUSR1) != -1 || errno != EPERM) out += "kill SIGUSR1 not EPERM; ";
    auto text = read_file("/proc/self/status");
    if (!text || text->find("Seccomp:\t2") == std::string::npos) out += "not in seccomp mode 2; ";
    return out;
  });
  test::expect_ok(r);
}

// A client that varies its profile (here its errnoRet) makes a new entry each time: the
// directory keeps at most kCacheBounds.max_entries, the newest, and every filter still
// compiles and loads as before.
BOOST_AUTO_TEST_CASE(a_client_varying_its_profile_cannot_fill_the_cache) {
  TempRoot t;
  const size_t n = seccomp::kCacheBounds.max_entries + 20;
  oci::Seccomp last;
  for (size_t i = 0; i < n; ++i) {
    oci::Seccomp s;
    s.default_action = "SCMP_ACT_ALLOW";
    s.syscalls = {rule({"getppid"}, "SCMP_ACT_ERRNO", uint32_t(1 + i))};
    auto f = seccomp::compile_cached(s, t.path.string());
    BOOST_REQUIRE(f);
    last = s;
  }
  size_t count = 0;
  for (auto& e : fs::directory_iterator(t.path / ".cache/seccomp")) count += e.is_regular_file();
  BOOST_TEST(count == seccomp::kCacheBounds.max_entries);
  BOOST_TEST(fs::exists(t.entry(last)));  // the newest is kept
}

// prune_private: oldest first, by entry count and by bytes; a writer's stale temp file goes.
BOOST_AUTO_TEST_CASE(prune_keeps_the_newest_within_both_bounds) {
  TempRoot t;
  fs::create_directories(t.path / "c");
  auto put = [&](const std::string& name, size_t size, time_t mtime) {
    auto p = t.path / "c" / name;
    BOOST_REQUIRE(write_file(p.string(), std::string(size, 'x'), O_WRONLY | O_CREAT | O_TRUNC, 0600));
    struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
    BOOST_REQUIRE(::utimensat(AT_FDCWD, p.c_str(), ts, 0) == 0);
  };
  time_t now = ::time(nullptr);
  for (int i = 0; i < 10; ++i) put("e" + std::to_string(i), 100, now - 100 + i);  // e0 oldest
  put(".e3.4242.tmp", 100, now - 3600);                                             // a dead writer's
  put(".e4.4243.tmp", 100, now);                                                    // a live writer's
  Fd dir(::open((t.path / "c").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  BOOST_REQUIRE(dir);
  prune_private(dir.get(), CacheBounds{8, 1u << 20});  // by count: 11 files left, the 8 newest kept
  BOOST_TEST(!fs::exists(t.path / "c/.e3.4242.tmp"));
  BOOST_TEST(!fs::exists(t.path / "c/e0"));
  BOOST_TEST(!fs::exists(t.path / "c/e2"));
  BOOST_TEST(fs::exists(t.path / "c/e3"));
  BOOST_TEST(fs::exists(t.path / "c/.e4.4243.tmp"));
  prune_private(dir.get(), CacheBounds{100, 450});  // by bytes: 4 files of 100
  size_t count = 0;
  for (auto& e : fs::directory_iterator(t.path / "c")) count += e.is_regular_file();
  BOOST_TEST(count == 4u);
  BOOST_TEST(fs::exists(t.path / "c/e9"));
  BOOST_TEST(fs::exists(t.path / "c/.e4.4243.tmp"));  // the newest of all
  BOOST_TEST(fs::exists(t.path / "c/e7"));
  BOOST_TEST(!fs::exists(t.path / "c/e6"));
}
