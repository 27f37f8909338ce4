#include "runtime/linux/apparmor.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "base/file.hpp"

namespace sh::apparmor {
namespace {

constexpr ino_t kProcRootIno = 1;

// A procfs of our own: a new instance where we may mount one, else a clone of the
// container's /proc mount without what is mounted over it. Either way checked to be the
// root of a procfs.
Result<Fd> private_procfs() {
  Fd mnt;
  if (Fd fs(::fsopen("proc", FSOPEN_CLOEXEC)); fs) {
    if (::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) == 0)
      mnt = Fd(::fsmount(fs.get(), FSMOUNT_CLOEXEC, MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
  }
  if (!mnt) {
    // A user namespace may not mount a procfs over which /proc has masked files: clone it.
    mnt = Fd(::open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW));
    if (!mnt) return sys_error("apparmor: neither a new procfs nor a clone of /proc");
  }
  struct statfs sfs;
  struct stat st;
  if (::fstatfs(mnt.get(), &sfs) < 0 || ::fstat(mnt.get(), &st) < 0) return sys_error("apparmor: stat procfs");
  if (sfs.f_type != PROC_SUPER_MAGIC || st.st_ino != kProcRootIno) return fail("apparmor: /proc is not the root of a procfs");
  return mnt;
}

// Beneath the procfs root only, no magic link, no mount crossed.
Result<Fd> open_beneath(int proc, const std::string& rel, int flags) {
  struct open_how how{};
  how.flags = uint64_t(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  Fd f(int(::syscall(SYS_openat2, proc, rel.c_str(), &how, sizeof how)));
  if (!f) return sys_error("apparmor: open /proc/" + rel);
  struct statfs sfs;
  if (::fstatfs(f.get(), &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) return fail("apparmor: /proc/" + rel + " is not on procfs");
  return f;
}

}  // namespace

bool looks_like_label(std::string_view current) {
  if (current.ends_with('\n')) current.remove_suffix(1);
  if (current == "unconfined") return true;
  auto open = current.rfind(" (");
  return open != std::string_view::npos && open > 0 && current.ends_with(')') && current.size() > open + 3;
}

Result<std::string> exec_attr_text(std::string_view profile) {
  if (profile.empty()) return fail("process.apparmorProfile: empty profile name");
  for (unsigned char c : profile)
    if (c < 0x20 || c == 0x7f) return fail("process.apparmorProfile: a control character in the profile name");
  return "exec " + std::string(profile);
}

std::string exec_attr_path(bool per_lsm_dir) {
  return per_lsm_dir ? "thread-self/attr/apparmor/exec" : "thread-self/attr/exec";
}

namespace {

bool has_per_lsm_dir(int proc) {
  return static_cast<bool>(open_beneath(proc, "thread-self/attr/apparmor", O_PATH | O_DIRECTORY));
}

std::string current_path(bool per_lsm) {
  return per_lsm ? "thread-self/attr/apparmor/current" : "thread-self/attr/current";
}

}  // namespace

bool kernel_answers(int proc) {
  bool per_lsm = has_per_lsm_dir(proc);
  auto f = open_beneath(proc, current_path(per_lsm), O_RDONLY);
  if (!f) return false;
  auto label = read_fd(f->get(), "/proc/" + current_path(per_lsm), 4096);
  return label && (per_lsm || looks_like_label(*label));
}

bool kernel_answers() {
  Fd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  return proc && kernel_answers(proc.get());
}

Result<Fd> open_exec_attr() {
  Fd proc = TRY(private_procfs());
  if (!kernel_answers(proc.get()))
    return fail("process.apparmorProfile: AppArmor is not enabled on this host (the kernel does not answer "
                "/proc/thread-self/attr for it): refused, not ignored");
  return open_beneath(proc.get(), exec_attr_path(has_per_lsm_dir(proc.get())), O_WRONLY);
}

Result<void> change_onexec(int fd, std::string_view profile) {
  std::string text = TRY(exec_attr_text(profile));
  ssize_t n = ::write(fd, text.data(), text.size());
  if (n < 0) return sys_error("process.apparmorProfile: apply profile \"" + std::string(profile) + "\"");
  if (size_t(n) != text.size()) return fail("process.apparmorProfile: short write applying \"" + std::string(profile) + "\"");
  return {};
}

Result<void> check_loaded(std::string_view profile) {
  TRYV(exec_attr_text(profile));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) return sys_error("apparmor: pipe");
  Fd rd(fds[0]), wr(fds[1]);
  pid_t child = ::fork();
  if (child < 0) return sys_error("apparmor: fork the profile check");
  if (child == 0) {
    rd.reset();
    // The attribute of this thread only (the kernel refuses writes to another task's). Where
    // it cannot be opened here (no AppArmor; unprivileged, no procfs of our own) the launch's
    // own open says why, at create too: nothing to add.
    auto attr = open_exec_attr();
    if (!attr) ::_exit(3);
    auto r = change_onexec(attr->get(), profile);
    int code = 0;
    if (!r) {
      std::string msg = r.error().what();
      code = r.error().err == ENOENT ? 2 : 1;
      (void)!::write(wr.get(), msg.data(), std::min<size_t>(msg.size(), 4000));
    }
    ::_exit(code);
  }
  wr.reset();
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(rd.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    msg.append(buf, size_t(n));
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return sys_error("apparmor: wait for the profile check");
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)) return {};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
    return std::unexpected(Error{ENOENT, "process.apparmorProfile: profile \"" + std::string(profile) +
                                             "\" is not loaded in the kernel (load it with apparmor_parser -r, "
                                             "or name a loaded one: /sys/kernel/security/apparmor/profiles)"});
  return fail(msg.empty() ? "apparmor: the profile check for \"" + std::string(profile) + "\" failed" : msg);
}

}  // namespace sh::apparmor
