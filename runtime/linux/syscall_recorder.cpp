#include "runtime/linux/syscall_recorder.hpp"

#include <elf.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <optional>
#include <thread>

#include "base/file.hpp"
#include "base/lexical_path.hpp"
#include "oci/landlock.hpp"
#include "runtime/linux/safe_path.hpp"
#include "spec-mapping/seccomp_map.hpp"

namespace sh::recorder {
namespace {

uint64_t fs(std::string_view name) { return oci::find_landlock_right(oci::LandlockKind::fs, name)->bit; }

std::optional<std::string> read_link(const std::string& path) {
  char buf[PATH_MAX + 1];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, size_t(n));
}

bool under_proc(const std::string& p) { return p == "/proc" || p.starts_with("/proc/"); }

// The right that makes an entry of this type (mknod, link, rename's destination).
uint64_t make_right(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR: return fs("make_dir");
    case S_IFCHR: return fs("make_char");
    case S_IFBLK: return fs("make_block");
    case S_IFIFO: return fs("make_fifo");
    case S_IFSOCK: return fs("make_sock");
    case S_IFLNK: return fs("make_sym");
    default: return fs("make_reg");
  }
}
uint64_t remove_right(mode_t mode) { return S_ISDIR(mode) ? fs("remove_dir") : fs("remove_file"); }

// The ioctl commands Landlock allows on any device without ioctl_dev (security/landlock/fs.c,
// is_masked_device_ioctl): they need no rule.
bool ioctl_always_allowed(uint64_t cmd) {
  switch (unsigned(cmd)) {
    case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC: case FIOQSIZE:
    case FIFREEZE: case FITHAW: case FS_IOC_FIEMAP: case FIGETBSZ:
#ifdef FS_IOC_GETFSUUID
    case FS_IOC_GETFSUUID:
#endif
#ifdef FS_IOC_GETFSSYSFSPATH
    case FS_IOC_GETFSSYSFSPATH:
#endif
      return true;
    default: return false;
  }
}

// A write there fails with EROFS before Landlock is asked: no right is needed for it.
bool on_readonly_mount(int root, const std::string& path) {
  auto f = rootfs::open_in_root(root, path, O_PATH);
  struct statvfs sv;
  return f && ::fstatvfs(f->get(), &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

void merge(policy::Trace& into, const policy::Trace& d) {
  into.syscalls.insert(d.syscalls.begin(), d.syscalls.end());
  for (auto& [p, r] : d.files) into.files[p] |= r;
  for (auto& [p, r] : d.dirs) into.dirs[p] |= r;
  into.created.insert(d.created.begin(), d.created.end());
  into.execs.insert(d.execs.begin(), d.execs.end());
  into.bind.insert(d.bind.begin(), d.bind.end());
  into.connect.insert(d.connect.begin(), d.connect.end());
  into.forked = into.forked || d.forked;
}

}  // namespace

// One blocked task: its memory and its view of the filesystem, opened when first needed.
struct Recorder::Task {
  pid_t tid;
  policy::Trace& out;  // this notification's records, merged once the notification is still valid
  Fd mem_, root_;

  std::string proc(const std::string& rel) const { return "/proc/" + std::to_string(tid) + "/" + rel; }
  Result<int> root() {
    if (!root_) root_ = Fd(::open(proc("root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root_) return sys_error("open " + proc("root"));
    return root_.get();
  }
  Result<std::string> bytes_at(uint64_t addr, size_t n) {
    if (!mem_) mem_ = Fd(::open(proc("mem").c_str(), O_RDONLY | O_CLOEXEC));
    if (!mem_) return sys_error("open " + proc("mem"));
    std::string buf(n, '\0');
    ssize_t got = ::pread(mem_.get(), buf.data(), n, off_t(addr));
    if (got < 0) return sys_error("read " + proc("mem"));
    buf.resize(size_t(got));
    return buf;
  }
  // A NUL-terminated string, read a page at most at a time (the next page may be unmapped).
  Result<std::string> string_at(uint64_t addr) {
    std::string s;
    while (s.size() <= PATH_MAX) {
      size_t chunk = 4096 - (addr % 4096);
      std::string part = TRY(bytes_at(addr, chunk));
      if (part.empty()) return fail("read a path at " + std::to_string(addr) + " of task " + std::to_string(tid));
      size_t nul = part.find('\0');
      if (nul != std::string::npos) return s + part.substr(0, nul);
      s += part;
      addr += part.size();
    }
    return fail("a path longer than PATH_MAX in task " + std::to_string(tid));
  }
  // What the task sees at /proc/self/<rel> (cwd, fd/N), as a path inside its root; "" for what
  // is no path there (a pipe, a socket, a deleted file).
  std::string link(const std::string& rel) const {
    auto l = read_link(proc(rel));
    if (!l || l->empty() || (*l)[0] != '/' || l->ends_with(" (deleted)")) return {};
    return *l;
  }
  // The path a (dirfd, path) pair names, made absolute lexically.
  Result<std::string> absolute(int dirfd, const std::string& path) {
    if (!path.empty() && path[0] == '/') return clean_path(path);
    std::string base = dirfd == AT_FDCWD ? link("cwd") : link("fd/" + std::to_string(dirfd));
    if (base.empty()) return std::string();
    return clean_path(base + "/" + path);
  }
};

Result<seccomp::Filter> recording_filter() {
  struct Ctx {
    scmp_filter_ctx c;
    ~Ctx() { seccomp_release(c); }
  } ctx{seccomp_init(SCMP_ACT_NOTIFY)};
  if (!ctx.c) return fail("seccomp: recording filter: seccomp_init failed");
  auto check = [](int rc, const char* what) -> Result<void> {
    if (rc < 0) return sys_error(std::string("seccomp: recording filter: ") + what, -rc);
    return {};
  };
  TRYV(check(seccomp_attr_set(ctx.c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "bad-architecture action"));
  TRYV(check(seccomp_rule_add(ctx.c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), "clone3"));
  TRYV(check(seccomp_rule_add(ctx.c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, policy::kCloneNewMask, policy::kCloneNewMask)),
             "clone"));
  seccomp::Filter f;
  // Exported and loaded raw: the listener comes back from seccomp(2) itself.
  int memfd = ::memfd_create("sharness-recording-filter", MFD_CLOEXEC);
  if (memfd < 0) return sys_error("seccomp: recording filter: memfd");
  Fd mem(memfd);
  TRYV(check(seccomp_export_bpf(ctx.c, mem.get()), "export"));
  struct stat st;
  if (::fstat(mem.get(), &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(sock_filter))
    return fail("seccomp: recording filter: export gave no program");
  std::vector<sock_filter> prog(size_t(st.st_size) / sizeof(sock_filter));
  if (::pread(mem.get(), prog.data(), size_t(st.st_size), 0) != st.st_size) return sys_error("seccomp: recording filter: read back");
  return seccomp::Filter::from_program(std::move(prog), SECCOMP_FILTER_FLAG_NEW_LISTENER);
}

Result<int> next_fd() {
  int fd = ::fcntl(0, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return sys_error("find a free fd for the recording listener");
  ::close(fd);
  return fd;
}

Result<Fd> take_listener(int pidfd, int number, std::chrono::milliseconds within) {
  auto until = std::chrono::steady_clock::now() + within;
  for (;;) {
    long fd = ::syscall(SYS_pidfd_getfd, pidfd, number, 0);
    if (fd >= 0) {
      Fd got{int(fd)};
      auto what = read_link(rootfs::fd_path(got.get()));
      if (what && *what == "anon_inode:seccomp notify") return got;
      return fail("policy learn: fd " + std::to_string(number) + " of init is " + (what ? *what : "unreadable") +
                  ", not its recording listener");
    }
    if (errno != EBADF) return sys_error("policy learn: take init's recording listener (pidfd_getfd)");
    if (std::chrono::steady_clock::now() > until)
      return fail("policy learn: init announced its recording listener as fd " + std::to_string(number) +
                  " and did not load it");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Recorder::Recorder(Fd listener, pid_t init)
    : listener_(std::move(listener)), stop_(::eventfd(0, EFD_CLOEXEC)), init_(init) {}

void Recorder::stop() {
  uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof one);
}

const std::string& Recorder::name_of(int nr) {
  auto it = names_.find(nr);
  if (it != names_.end()) return it->second;
  char* n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  std::string name = n ? n : "syscall " + std::to_string(nr);
  std::free(n);
  return names_.emplace(nr, std::move(name)).first->second;
}

Result<void> Recorder::serve() {
  struct seccomp_notif_sizes sizes {};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) return sys_error("seccomp: notification sizes");
  std::vector<char> nbuf(std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  std::vector<char> rbuf(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
  std::optional<Error> first;
  for (;;) {
    struct pollfd p[2] = {{listener_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return sys_error("policy learn: poll the recording listener");
    }
    if (p[0].revents & POLLIN) {
      std::memset(nbuf.data(), 0, nbuf.size());
      auto* n = reinterpret_cast<seccomp_notif*>(nbuf.data());
      if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, n) < 0) {
        if (errno == EINTR || errno == ENOENT) continue;  // ENOENT: the task died while it waited
        return sys_error("policy learn: receive a notification");
      }
      if (auto r = handle(*n); !r && !first) first = std::move(r.error());
      std::memset(rbuf.data(), 0, rbuf.size());
      auto* resp = reinterpret_cast<seccomp_notif_resp*>(rbuf.data());
      resp->id = n->id;
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
        return sys_error("policy learn: answer a notification");
      continue;
    }
    if (p[1].revents & POLLIN) break;
    if (p[0].revents & (POLLHUP | POLLERR)) break;  // no task has the filter any more
  }
  if (first) return std::unexpected(std::move(*first));
  return {};
}

Result<void> Recorder::handle(const seccomp_notif& n) {
  const int nr = n.data.nr;
  if (!started_) {
    if (pid_t(n.pid) != init_ || nr != SYS_execve) return {};
    started_ = true;
  }
  policy::Trace d;
  d.syscalls.insert(name_of(nr));
  Task t{pid_t(n.pid), d, {}, {}};
  uint64_t a[6];
  for (int i = 0; i < 6; ++i) a[i] = n.data.args[i];
  Result<void> r;
  switch (nr) {
#ifdef SYS_open
    case SYS_open: r = record_open(t, AT_FDCWD, a[0], a[1]); break;
    case SYS_creat: r = record_open(t, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC); break;
#endif
    case SYS_openat: r = record_open(t, int(a[0]), a[1], a[2]); break;
    case SYS_openat2: {
      auto how = t.bytes_at(a[2], sizeof(uint64_t));
      if (!how) { r = std::unexpected(how.error()); break; }
      uint64_t flags = 0;
      std::memcpy(&flags, how->data(), std::min(how->size(), sizeof flags));
      r = record_open(t, int(a[0]), a[1], flags);
      break;
    }
    case SYS_execve: r = record_exec(t, AT_FDCWD, a[0], 0); break;
    case SYS_execveat: r = record_exec(t, int(a[0]), a[1], int(a[4])); break;
    case SYS_ftruncate: r = record_fd(t, int(a[0]), fs("truncate"), 0); break;
    case SYS_ioctl: r = record_fd(t, int(a[0]), fs("ioctl_dev"), a[1]); break;
    case SYS_bind: r = record_port(t, int(a[0]), a[1], a[2], true); break;
    case SYS_connect: r = record_port(t, int(a[0]), a[1], a[2], false); break;
    case SYS_clone: d.forked = !(a[0] & CLONE_THREAD); break;
#ifdef SYS_fork
    case SYS_fork: case SYS_vfork: d.forked = true; break;
#endif
    default: r = record_entry(t, nr, a);
  }
  // Read from the task that made the call, and only then trusted: the id is still pending.
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &n.id) < 0) return {};
  if (!r) return fail(std::move(r.error()).context("policy learn: " + name_of(nr) + " by pid " + std::to_string(n.pid)));
  merge(trace_, d);
  return {};
}

Result<void> Recorder::record_open(Task& t, int dirfd, uint64_t path_addr, uint64_t flags) {
  if (flags & O_PATH) return {};  // no access: Landlock checks none
  std::string path = TRY(t.absolute(dirfd, TRY(t.string_at(path_addr))));
  if (path.empty()) return {};
  const int acc = int(flags & O_ACCMODE);
  uint64_t want = 0;
  if (acc != O_WRONLY) want |= fs("read_file");
  if (acc != O_RDONLY) want |= fs("write_file");
  if (under_proc(path)) {  // one rule for /proc (fold_files); its self links name our own pid here
    if (flags & O_DIRECTORY) t.out.dirs[path] |= fs("read_dir");
    else t.out.files[path] |= want;
    return {};
  }
  const int root = TRY(t.root());
  auto c = TRY(rootfs::canonical_in_root(root, path, !(flags & O_NOFOLLOW)));
  if ((flags & O_TMPFILE) == O_TMPFILE) {
    if (c.exists && !on_readonly_mount(root, c.path)) t.out.dirs[c.path] |= fs("make_reg");
    return {};
  }
  if (c.exists) {
    if ((flags & O_CREAT) && (flags & O_EXCL)) return {};  // EEXIST
    if (S_ISDIR(c.st.st_mode)) {
      if (acc == O_RDONLY) t.out.dirs[c.path] |= fs("read_dir");
      return {};
    }
    if (S_ISLNK(c.st.st_mode)) return {};  // O_NOFOLLOW on a symlink: ELOOP
    if ((flags & O_TRUNC) && acc != O_RDONLY) want |= fs("truncate");
    if ((want & (fs("write_file") | fs("truncate"))) && on_readonly_mount(root, c.path)) return {};  // EROFS
    t.out.files[c.path] |= want;
    return {};
  }
  if (!(flags & O_CREAT)) return {};  // ENOENT comes before Landlock
  const std::string dir = parent_path(c.path);
  if (on_readonly_mount(root, dir)) return {};
  t.out.dirs[dir] |= fs("make_reg");
  t.out.files[c.path] |= want;
  t.out.created.insert(c.path);
  return {};
}

Result<void> Recorder::record_interpreter(Task& t, const std::string& path, int depth) {
  if (depth > 4) return {};  // the kernel's own limit on nested interpreters is 4 (BINPRM_MAX_RECURSION)
  const int root = TRY(t.root());
  Fd f = TRY(rootfs::open_in_root(root, path, O_RDONLY | O_NOFOLLOW));
  char head[256] = {};
  ssize_t n = ::pread(f.get(), head, sizeof head - 1, 0);
  if (n < 0) return sys_error("read " + path);
  std::string interp;
  if (n > 2 && head[0] == '#' && head[1] == '!') {
    std::string_view line(head + 2, size_t(n) - 2);
    line = line.substr(0, line.find('\n'));
    size_t s = line.find_first_not_of(" \t");
    if (s == std::string_view::npos) return {};
    line = line.substr(s);
    interp = std::string(line.substr(0, line.find_first_of(" \t")));
  } else if (size_t(n) >= sizeof(Elf64_Ehdr) && std::memcmp(head, ELFMAG, SELFMAG) == 0 && head[EI_CLASS] == ELFCLASS64) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, head, sizeof eh);
    for (unsigned i = 0; i < eh.e_phnum && interp.empty(); ++i) {
      Elf64_Phdr ph;
      if (::pread(f.get(), &ph, sizeof ph, off_t(eh.e_phoff + uint64_t(i) * eh.e_phentsize)) != sizeof ph) break;
      if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > PATH_MAX) continue;
      std::string s(ph.p_filesz, '\0');
      if (::pread(f.get(), s.data(), s.size(), off_t(ph.p_offset)) != ssize_t(s.size())) break;
      interp = s.substr(0, s.find('\0'));
    }
  }
  if (interp.empty()) return {};
  auto c = TRY(rootfs::canonical_in_root(root, interp, true));
  if (!c.exists || !S_ISREG(c.st.st_mode)) return {};  // the exec fails: nothing to pin
  t.out.execs.insert(c.path);
  return record_interpreter(t, c.path, depth + 1);
}

Result<void> Recorder::record_exec(Task& t, int dirfd, uint64_t path_addr, int flags) {
  std::string written = TRY(t.string_at(path_addr));
  std::string path = written.empty() && (flags & AT_EMPTY_PATH) ? t.link("fd/" + std::to_string(dirfd))
                                                                 : TRY(t.absolute(dirfd, written));
  if (path.empty()) return {};
  auto c = TRY(rootfs::canonical_in_root(TRY(t.root()), path, !(flags & AT_SYMLINK_NOFOLLOW)));
  if (!c.exists || !S_ISREG(c.st.st_mode)) return {};  // ENOENT, EACCES: nothing ran
  t.out.execs.insert(c.path);
  return record_interpreter(t, c.path, 0);
}

// ftruncate and ioctl: the right belongs to the file the fd was opened on, when the container
// opened it (stdio handed in from outside is not Landlock's: it was opened before the domain).
Result<void> Recorder::record_fd(Task& t, int fd, uint64_t right, uint64_t ioctl_cmd) {
  if (right == fs("ioctl_dev") && ioctl_always_allowed(ioctl_cmd)) return {};
  struct stat st;
  if (::stat(t.proc("fd/" + std::to_string(fd)).c_str(), &st) < 0) return {};  // EBADF
  if (right == fs("ioctl_dev") ? !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) : !S_ISREG(st.st_mode)) return {};
  std::string path = t.link("fd/" + std::to_string(fd));
  if (path.empty() || under_proc(path)) return {};
  auto c = TRY(rootfs::canonical_in_root(TRY(t.root()), path, false));
  if (!c.exists || c.st.st_dev != st.st_dev || c.st.st_ino != st.st_ino) return {};
  t.out.files[c.path] |= right;
  return {};
}

Result<void> Recorder::record_port(Task& t, int fd, uint64_t addr, uint64_t len, bool bind) {
  if (len < sizeof(sa_family_t)) return {};
  std::string sa = TRY(t.bytes_at(addr, std::min<uint64_t>(len, sizeof(sockaddr_in6))));
  sa_family_t family = 0;
  std::memcpy(&family, sa.data(), std::min(sa.size(), sizeof family));
  uint16_t port = 0;
  if (family == AF_INET && sa.size() >= sizeof(sockaddr_in)) port = ntohs(reinterpret_cast<const sockaddr_in*>(sa.data())->sin_port);
  else if (family == AF_INET6 && sa.size() >= sizeof(sockaddr_in6)) port = ntohs(reinterpret_cast<const sockaddr_in6*>(sa.data())->sin6_port);
  else return {};
  // Landlock's port rules are TCP's: the socket's protocol decides (a UDP connect for DNS needs none).
  std::string status = TRY(read_file(t.proc("status"), 1 << 16));
  size_t at = status.find("\nTgid:");
  if (at == std::string::npos) return fail("no Tgid in " + t.proc("status"));
  pid_t tgid = pid_t(std::strtol(status.c_str() + at + 6, nullptr, 10));
  Fd pidfd(int(::syscall(SYS_pidfd_open, tgid, 0)));
  if (!pidfd) return sys_error("pidfd_open " + std::to_string(tgid));
  Fd sock(int(::syscall(SYS_pidfd_getfd, pidfd.get(), fd, 0)));
  if (!sock) return errno == EBADF ? Result<void>{} : sys_error("pidfd_getfd socket " + std::to_string(fd));
  int proto = 0;
  socklen_t sl = sizeof proto;
  if (::getsockopt(sock.get(), SOL_SOCKET, SO_PROTOCOL, &proto, &sl) < 0) return {};  // not a socket: ENOTSOCK
  if (proto != IPPROTO_TCP) return {};
  (bind ? t.out.bind : t.out.connect).insert(port);
  return {};
}

// The calls that make, remove or rename an entry: the rights are the parent directory's.
Result<void> Recorder::record_entry(Task& t, int nr, const uint64_t* a) {
  int olddir = AT_FDCWD, newdir = AT_FDCWD;
  uint64_t oldp = 0, newp = 0;
  enum { none, mkdir_, mknod_, unlink_, rmdir_, symlink_, link_, rename_, truncate_ } op = none;
  mode_t mode = 0;
  unsigned flags = 0;
  switch (nr) {
#ifdef SYS_mkdir
    case SYS_mkdir: op = mkdir_, newp = a[0]; break;
    case SYS_mknod: op = mknod_, newp = a[0], mode = mode_t(a[1]); break;
    case SYS_unlink: op = unlink_, oldp = a[0]; break;
    case SYS_rmdir: op = rmdir_, oldp = a[0]; break;
    case SYS_symlink: op = symlink_, newp = a[1]; break;
    case SYS_link: op = link_, oldp = a[0], newp = a[1]; break;
    case SYS_rename: op = rename_, oldp = a[0], newp = a[1]; break;
#endif
    case SYS_mkdirat: op = mkdir_, newdir = int(a[0]), newp = a[1]; break;
    case SYS_mknodat: op = mknod_, newdir = int(a[0]), newp = a[1], mode = mode_t(a[2]); break;
    case SYS_unlinkat: op = (a[2] & AT_REMOVEDIR) ? rmdir_ : unlink_, olddir = int(a[0]), oldp = a[1]; break;
    case SYS_symlinkat: op = symlink_, newdir = int(a[1]), newp = a[2]; break;
    case SYS_linkat: op = link_, olddir = int(a[0]), oldp = a[1], newdir = int(a[2]), newp = a[3], flags = unsigned(a[4]); break;
    case SYS_renameat: op = rename_, olddir = int(a[0]), oldp = a[1], newdir = int(a[2]), newp = a[3]; break;
    case SYS_renameat2: op = rename_, olddir = int(a[0]), oldp = a[1], newdir = int(a[2]), newp = a[3], flags = unsigned(a[4]); break;
    case SYS_truncate: op = truncate_, oldp = a[0]; break;
    default: return {};
  }
  const int root = TRY(t.root());
  auto resolve = [&](int dir, uint64_t p, bool follow) -> Result<std::optional<rootfs::Canonical>> {
    std::string path = TRY(t.absolute(dir, TRY(t.string_at(p))));
    if (path.empty() || under_proc(path)) return std::optional<rootfs::Canonical>();
    return std::optional<rootfs::Canonical>(TRY(rootfs::canonical_in_root(root, path, follow)));
  };
  std::optional<rootfs::Canonical> from, to;
  if (oldp) from = TRY(resolve(olddir, oldp, op == truncate_ || (op == link_ && (flags & AT_SYMLINK_FOLLOW))));
  if (newp) to = TRY(resolve(newdir, newp, false));
  if ((oldp && !from) || (newp && !to)) return {};
  if (from && !from->exists) return {};  // ENOENT
  auto grant = [&](const std::string& path, uint64_t right) {
    if (on_readonly_mount(root, path)) return false;
    t.out.dirs[path] |= right;
    return true;
  };
  auto make = [&](const std::string& path, uint64_t right) {
    if (grant(parent_path(path), right)) t.out.created.insert(path);
  };
  switch (op) {
    case mkdir_: if (!to->exists) make(to->path, fs("make_dir")); break;
    case mknod_: if (!to->exists) make(to->path, make_right(mode)); break;
    case symlink_: if (!to->exists) make(to->path, fs("make_sym")); break;
    case unlink_: if (!S_ISDIR(from->st.st_mode)) grant(parent_path(from->path), fs("remove_file")); break;
    case rmdir_: if (S_ISDIR(from->st.st_mode)) grant(parent_path(from->path), fs("remove_dir")); break;
    case truncate_:
      if (S_ISREG(from->st.st_mode) && !on_readonly_mount(root, from->path)) t.out.files[from->path] |= fs("truncate");
      break;
    case link_:
    case rename_: {
      const std::string src = parent_path(from->path), dst = parent_path(to->path);
      if (op == link_ && to->exists) break;  // EEXIST
      make(to->path, make_right(from->st.st_mode));
      if (op == rename_) {
        grant(src, remove_right(from->st.st_mode));
        if (to->exists) grant(dst, remove_right(to->st.st_mode));
        if (to->exists && (flags & RENAME_EXCHANGE)) grant(src, make_right(to->st.st_mode));
      }
      if (src != dst) {  // across directories Landlock asks for refer on both sides
        grant(src, fs("refer"));
        grant(dst, fs("refer"));
      }
      break;
    }
    case none: break;
  }
  return {};
}

}  // namespace sh::recorder
