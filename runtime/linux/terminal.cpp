#include "runtime/linux/terminal.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>

#include "runtime/linux/fd_passing.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace sh::terminal {

namespace {

// Bind the pty peer onto /dev/console without following any path the image controls
// (CVE-2025-52565): /dev is opened with no symlinks on the way, /dev/console is opened or
// created O_NOFOLLOW (an image's symlink there is replaced, never followed), it must be a
// regular file or a device node on /dev's own file system, and the mount goes from the
// peer's fd to the target's fd (open_tree + move_mount): no name is looked up twice.
Result<void> bind_console(int peer) {
  Fd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("open /");
  Fd dev = TRY(rootfs::open_in_root(root.get(), "/dev", O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS));
  struct stat dst, st;
  if (::fstat(dev.get(), &dst) < 0) return sys_error("stat /dev");
  Fd target(::openat(dev.get(), "console", O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!target && errno != ENOENT) return sys_error("open /dev/console");
  if (target) {
    if (::fstat(target.get(), &st) < 0) return sys_error("stat /dev/console");
    if (S_ISLNK(st.st_mode)) {
      if (::unlinkat(dev.get(), "console", 0) < 0) return sys_error("remove the image's /dev/console symlink");
      target.reset();
    }
  }
  if (!target) {
    target = Fd(::openat(dev.get(), "console", O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!target) return sys_error("create /dev/console");
  }
  if (::fstat(target.get(), &st) < 0) return sys_error("stat /dev/console");
  if (!(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) || st.st_dev != dst.st_dev)
    return fail("/dev/console: not a file or device node on /dev's file system");
  Fd tree = TRY(rootfs::detail::clone_tree(peer, "", false));
  TRYVC("bind the pty onto /dev/console", rootfs::detail::attach(tree.get(), target.get()));
  return {};
}

}  // namespace

Result<Fd> connect_console_socket(const std::string& path) { return fd_passing::connect_unix(path, "console socket"); }

Result<void> setup_console(int console_sock, const std::optional<oci::ConsoleSize>& size, bool bind_dev_console) {
  Fd master(::open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW));
  if (!master) return sys_error("open /dev/pts/ptmx");
  // The ptmx must be the one of a real devpts (inode 2), not something the image planted.
  struct statfs sfs;
  struct stat st;
  if (::fstatfs(master.get(), &sfs) < 0 || ::fstat(master.get(), &st) < 0) return sys_error("stat /dev/pts/ptmx");
  if (sfs.f_type != DEVPTS_SUPER_MAGIC || st.st_ino != 2)
    return fail("open /dev/pts/ptmx: not the ptmx of a devpts filesystem");
  if (::unlockpt(master.get()) < 0) return sys_error("unlockpt");
  // TIOCGPTPEER opens the peer through the master: no path lookup to race (CVE-2025-52565).
  Fd peer(::ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!peer) return sys_error("open pty peer (TIOCGPTPEER)");
  if (size && size->height && size->width) {
    struct winsize ws{};
    ws.ws_row = (unsigned short)size->height;
    ws.ws_col = (unsigned short)size->width;
    if (::ioctl(master.get(), TIOCSWINSZ, &ws) < 0) return sys_error("set console size");
  }
  char name[64] = "/dev/console";
  (void)!::ptsname_r(master.get(), name, sizeof name);
  TRYVC("send console to socket", fd_passing::send_fd(console_sock, master.get(), name));
  master.reset();
  if (bind_dev_console) TRYV(bind_console(peer.get()));
  if (::setsid() < 0) return sys_error("setsid");
  if (::ioctl(peer.get(), TIOCSCTTY, 0) < 0) return sys_error("set controlling terminal");
  for (int fd = 0; fd < 3; ++fd)
    if (::dup3(peer.get(), fd, 0) < 0) return sys_error("dup pty to fd " + std::to_string(fd));
  return {};
}

}  // namespace sh::terminal
