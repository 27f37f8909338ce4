// See sealed_exe.hpp. The overlay needs two lower layers (no upper layer makes it read-only): the
// binary's directory and an empty tmpfs. Both are named to fsconfig as /proc/self/fd/N of fds we
// hold, so no path is looked up twice; neither mount is ever attached to any namespace, and both
// vanish when the last process executing the binary exits.
#include "runtime/linux/sealed_exe.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/fd.hpp"

extern char** environ;

namespace sh::sealed_exe {
namespace {

// Set across the re-exec only, to the binary's path on disk: a copy that still does not look sealed
// fails instead of looping, and binary_path() still knows where the runtime is installed.
constexpr const char* kGuard = "_SHARNESS_SEALED_REEXEC";
std::string g_disk_path;  // from kGuard, once re-executed

Result<std::string> self_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return sys_error("readlink /proc/self/exe");
  return std::string(buf, size_t(n));
}

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

Result<Fd> detached_mount(const char* fstype, const std::string& lower1, const std::string& lower2) {
  Fd fs(::fsopen(fstype, FSOPEN_CLOEXEC));
  if (!fs) return sys_error(std::string("fsopen ") + fstype);
  if (!lower1.empty()) {
    std::string lower = lower1 + ":" + lower2;
    if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "lowerdir", lower.c_str(), 0) < 0)
      return sys_error("fsconfig overlay lowerdir=" + lower);
  } else if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "size", "4k", 0) < 0) {
    return sys_error("fsconfig tmpfs size");
  }
  if (::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) < 0)
    return sys_error(std::string("create ") + fstype + " superblock");
  Fd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID));
  if (!mnt) return sys_error(std::string("fsmount ") + fstype);
  return mnt;
}

// The running binary as seen through a read-only overlay of its own directory.
Result<Fd> overlay_copy(const struct stat& self) {
  std::string path = TRY(self_path());
  size_t slash = path.rfind('/');
  if (path[0] != '/' || slash == std::string::npos || path.ends_with(" (deleted)"))
    return fail("the runtime binary has no usable path: " + path);
  std::string dir = slash == 0 ? "/" : path.substr(0, slash), base = path.substr(slash + 1);
  Fd dirfd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dirfd) return sys_error("open " + dir);
  Fd empty = TRY(detached_mount("tmpfs", "", ""));
  Fd ovl = TRY(detached_mount("overlay", fd_path(dirfd.get()), fd_path(empty.get())));
  Fd exe(::openat(ovl.get(), base.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!exe) return sys_error("open " + base + " on the read-only overlay of " + dir);
  struct stat st;
  if (::fstat(exe.get(), &st) < 0) return sys_error("fstat the overlay copy of " + path);
  // The name was looked up again: make sure it is still the file we are running.
  if (st.st_size != self.st_size || st.st_mtim.tv_sec != self.st_mtim.tv_sec ||
      st.st_mtim.tv_nsec != self.st_mtim.tv_nsec)
    return fail(path + " changed while the runtime was starting");
  return exe;
}

// A sealed in-memory copy: costs a copy of the binary, works without overlayfs.
Result<Fd> memfd_copy(const struct stat& self) {
  Fd src(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  if (!src) return sys_error("open /proc/self/exe");
  Fd mem(::memfd_create("sharness-runtime", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!mem) return sys_error("memfd_create for a sealed copy of the runtime");
  off_t left = self.st_size;
  while (left > 0) {
    ssize_t n = ::sendfile(mem.get(), src.get(), nullptr, size_t(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("copy the runtime binary into a memfd");
    left -= n;
  }
  if (::fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
    return sys_error("seal the runtime's memfd copy");
  return mem;
}

}  // namespace

bool is_sealed() {
  Fd exe(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  if (!exe) return false;
  int seals = ::fcntl(exe.get(), F_GET_SEALS);
  if (seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SEAL)) return true;
  struct statvfs vfs;
  return ::fstatvfs(exe.get(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

Result<void> reexec(char** argv) {
  if (is_sealed()) {
    if (const char* p = std::getenv(kGuard)) g_disk_path = p;
    ::unsetenv(kGuard);
    return {};
  }
  if (std::getenv(kGuard)) return fail("re-executed the runtime from a sealed copy, but it is still writable");
  struct stat self;
  if (::stat("/proc/self/exe", &self) < 0) return sys_error("stat /proc/self/exe");
  auto exe = overlay_copy(self);
  if (!exe) {
    auto mem = memfd_copy(self);
    if (!mem)
      return fail("no sealed copy of the runtime binary (CVE-2019-5736 protection): " + exe.error().what() +
                  "; " + mem.error().what());
    exe = std::move(mem);
  }
  std::string disk = TRY(self_path());
  ::setenv(kGuard, disk.c_str(), 1);
  ::execveat(exe->get(), "", argv, environ, AT_EMPTY_PATH);
  int e = errno;
  ::unsetenv(kGuard);
  return sys_error("re-execute the runtime from its sealed copy", e);
}

Result<std::string> binary_path() {
  if (!g_disk_path.empty()) return g_disk_path;
  return self_path();
}

Result<std::string> sibling(const char* name) {
  std::string self = TRY(binary_path());
  std::string path = self.substr(0, self.rfind('/') + 1) + name;
  if (::access(path.c_str(), X_OK) < 0) return sys_error(std::string(name) + " " + path + " (installed next to " + self + ")");
  return path;
}

Result<void> exec_sibling(const char* name, const std::vector<std::string>& args) {
  std::string path = TRY(sibling(name));
  std::vector<char*> argv{path.data()};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execve(path.c_str(), argv.data(), environ);
  return sys_error("exec " + path);
}

}  // namespace sh::sealed_exe
