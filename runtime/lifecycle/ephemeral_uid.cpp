#include "runtime/lifecycle/ephemeral_uid.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <string_view>

#include "base/file.hpp"

namespace sh::lifecycle {
namespace {

std::string claims_dir(const std::string& root) { return root + "/.uids"; }

// Every uid and gid named in an account database (passwd: field 3; group: field 3).
void ids_in(const char* path, std::set<uint32_t>& out) {
  auto text = read_file(path, 64u << 20);
  if (!text) return;
  for (std::string_view rest = *text; !rest.empty();) {
    size_t nl = rest.find('\n');
    std::string line(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    char* end = nullptr;
    unsigned long v = std::strtoul(line.c_str() + b + 1, &end, 10);
    if (end && *end == ':') out.insert(uint32_t(v));
  }
}

}  // namespace

namespace {

// The probe shares our memory and runs on a stack of its own (clone with CLONE_VM|CLONE_VFORK:
// we are suspended until it exits), so no page table is copied. Only raw system calls in it.
//
// It asks the kernel's per-user process count (RLIMIT_NPROC's) through execve's own check, so
// that no second process is made: set*uid() to a user already at its limit sets
// PF_NPROC_EXCEEDED, and execve() then fails EAGAIN at its very start while the user is still
// over the limit (fs/exec.c, before the file is even looked up). With a soft limit of 0 at the
// setresuid, the flag is set when any other task has the uid (kernels before 5.17 set it
// always, counting with >=); with the soft limit then raised to 1, the execve recheck fails
// exactly when a task besides the probe itself counts against the uid. Flags execveat refuses
// (EINVAL, checked after that) make sure nothing can ever be executed: EAGAIN is "taken",
// EINVAL "free", anything else cannot tell (taken).
constexpr long kNoSuchExecFlags = 0x40000000;

int probe_as_uid(void* arg) {
  uint32_t uid = *static_cast<uint32_t*>(arg);
  struct rlimit none = {0, 1};
  if (::syscall(SYS_prlimit64, 0, RLIMIT_NPROC, &none, nullptr) < 0) ::syscall(SYS_exit, 2);
  if (::syscall(SYS_setresuid, uid, uid, uid) < 0) ::syscall(SYS_exit, 2);
  struct rlimit one = {1, 1};
  if (::syscall(SYS_prlimit64, 0, RLIMIT_NPROC, &one, nullptr) < 0) ::syscall(SYS_exit, 2);
  char* const nothing[] = {nullptr};
  long r = ::syscall(SYS_execveat, AT_FDCWD, "/", nothing, nothing, kNoSuchExecFlags);
  ::syscall(SYS_exit, r < 0 && errno == EINVAL ? 0 : r < 0 && errno == EAGAIN ? 1 : 2);
  return 0;
}

}  // namespace

// Whether any task on the host has `uid` as its real uid, asked of the kernel's per-user process
// count by one short-lived child (probe_as_uid above) instead of reading the status file of
// every process (17-33 us each here: bench/results/profile.md #3).
bool uid_has_processes(uint32_t uid) {
  alignas(16) char stack[16384];
  pid_t pid = ::clone(probe_as_uid, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &uid);
  if (pid < 0) return true;  // cannot tell: treat as taken
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return true;
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

namespace {

// Looked at first and made only when missing: every create after a root's first finds both.
Result<void> ensure_dir(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) < 0) {
    if (errno != ENOENT) return sys_error("stat " + path);
    if (::mkdir(path.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("mkdir " + path);
    if (::lstat(path.c_str(), &st) < 0) return sys_error("stat " + path);
  }
  if (!S_ISDIR(st.st_mode)) return fail(path + ": not a directory");
  return {};
}

Result<std::string> read_claim(const std::string& path) {
  auto text = read_file(path, 4096);
  if (!text) return std::unexpected(std::move(text.error()));
  return *text;
}

// A claim whose container's state directory is gone and whose uid no process owns.
bool stale(const std::string& root, const std::string& claim_path, uint32_t uid) {
  auto holder = read_claim(claim_path);
  if (!holder || holder->empty() || holder->find('/') != std::string::npos) return false;
  if (!(::access((root + "/" + *holder).c_str(), F_OK) < 0 && errno == ENOENT)) return false;
  return !uid_has_processes(uid);
}

// O_CREAT|O_EXCL: exactly one creator wins the uid. Returns false if someone holds it.
Result<bool> claim(const std::string& path, const std::string& id) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    return sys_error("create " + path);
  }
  Fd owner(fd);
  auto w = write_all(fd, id, path);
  if (!w) {
    ::unlink(path.c_str());
    return std::unexpected(std::move(w.error()));
  }
  return true;
}

// Take over a stale claim. Under an exclusive flock of the claims directory, so that two
// creates that both saw it stale cannot both unlink and re-create it: the second one, once
// it has the lock, finds the first one's live claim.
Result<bool> take_over(const std::string& root, const std::string& path, uint32_t uid, const std::string& id) {
  Fd dir = TRY(open_file(claims_dir(root), O_RDONLY | O_DIRECTORY));
  while (::flock(dir.get(), LOCK_EX) < 0)
    if (errno != EINTR) return sys_error("lock " + claims_dir(root));
  if (!stale(root, path, uid)) return false;
  if (::unlink(path.c_str()) < 0 && errno != ENOENT) return sys_error("remove stale claim " + path);
  return claim(path, id);
}

}  // namespace

std::string ephemeral_uid_claim_path(const std::string& state_root, uint32_t uid) {
  return claims_dir(state_root) + "/" + std::to_string(uid);
}

Result<uint32_t> allocate_ephemeral_uid(const std::string& state_root, uint32_t first, uint32_t count,
                                        const std::string& container_id) {
  if (count == 0 || uint64_t(first) + count > 4294967295ull)  // (uid_t)-1 is "no change" to setuid
    return fail("ephemeral uid range " + std::to_string(first) + "+" + std::to_string(count) + " is invalid");
  if (container_id.empty() || container_id.find('/') != std::string::npos)
    return fail("ephemeral uid: bad container id \"" + container_id + "\"");
  TRYV(ensure_dir(state_root));
  TRYV(ensure_dir(claims_dir(state_root)));

  std::set<uint32_t> accounts;
  ids_in("/etc/passwd", accounts);
  ids_in("/etc/group", accounts);  // the gid defaults to the uid: it must be free too

  // Start at a random offset so that concurrent creates rarely race for the same claim.
  uint32_t start = 0;
  if (getrandom(&start, sizeof start, GRND_NONBLOCK) != sizeof start) start = uint32_t(getpid());
  start %= count;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t uid = first + (start + i) % count;
    if (accounts.contains(uid)) continue;
    std::string path = ephemeral_uid_claim_path(state_root, uid);
    if (TRY(claim(path, container_id))) {
      // The claim file is the authority among our containers; a process of anything else
      // (another --root, a leftover) still makes the uid unusable.
      if (!uid_has_processes(uid)) return uid;
      ::unlink(path.c_str());
      continue;
    }
    if (stale(state_root, path, uid) && TRY(take_over(state_root, path, uid, container_id))) return uid;
  }
  return std::unexpected(Error{EAGAIN, "no free ephemeral uid in " + std::to_string(first) + ".." +
                                           std::to_string(uint64_t(first) + count - 1)});
}

Result<void> release_ephemeral_uid(const std::string& state_root, uint32_t uid, const std::string& container_id) {
  std::string path = ephemeral_uid_claim_path(state_root, uid);
  auto holder = read_claim(path);
  if (!holder) {
    if (holder.error().err == ENOENT) return {};
    return std::unexpected(std::move(holder.error()));
  }
  if (*holder != container_id) return {};  // someone else's claim: not ours to remove
  if (::unlink(path.c_str()) < 0 && errno != ENOENT) return sys_error("remove " + path);
  return {};
}

}  // namespace sh::lifecycle
