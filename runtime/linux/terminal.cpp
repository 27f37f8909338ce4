#include "runtime/linux/terminal.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>

#include "runtime/lifecycle/sync.hpp"

namespace sh::terminal {

Result<Fd> connect_console_socket(const std::string& path) {
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("console socket");
  struct sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return fail("console socket " + path + ": path too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
    return sys_error("connect console socket " + path);
  return s;
}

Result<void> setup_console(int console_sock, const std::optional<oci::ConsoleSize>& size) {
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
  TRYVC("send console to socket", sync::send_fd(console_sock, master.get(), name));
  master.reset();
  if (::setsid() < 0) return sys_error("setsid");
  if (::ioctl(peer.get(), TIOCSCTTY, 0) < 0) return sys_error("set controlling terminal");
  for (int fd = 0; fd < 3; ++fd)
    if (::dup3(peer.get(), fd, 0) < 0) return sys_error("dup pty to fd " + std::to_string(fd));
  return {};
}

}  // namespace sh::terminal
