// The sealed re-exec (sealed_exe.hpp, CVE-2019-5736) at the ELF entry point, before the C library
// starts. A static glibc spends ~0.5 ms starting here (mostly CPUID, which traps to the hypervisor
// in a VM: bench/results/profile.md), and create, run and exec used to pay that twice: once to
// reach main() and decide to re-execute, once more after. This entry point decides from argv
// alone, makes the same read-only overlay of the binary's directory as sealed_exe.cpp and
// executes the binary from it, so the first start costs only these system calls.
//
// It only ever takes the fast path or gives up: on anything unexpected (no overlayfs, a binary
// that moved, more environment than fits) it returns, and the C library starts as usual, where
// sealed_exe::reexec() does the whole job with its fallbacks and error messages.
//
// Rules for this file, because it runs before relocation and TLS: no C library calls (they are
// IFUNCs not yet resolved), no stack protector (it reads the canary through %fs), no compiler-
// generated memcpy/memset (-ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns), no
// pointers in initialised data (they would need relocating). CMakeLists.txt sets the flags.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/mount.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

// Entered from the kernel with %rsp at argc; %rdx (rtld_fini) is 0 for a process the kernel
// started. Call the check on an aligned stack, then hand the untouched stack to glibc's _start.
__asm__(
    ".text\n"
    ".globl sharness_sealed_entry\n"
    ".type sharness_sealed_entry,@function\n"
    "sharness_sealed_entry:\n"
    "  mov %rsp, %rbx\n"
    "  mov %rsp, %rdi\n"
    "  and $-16, %rsp\n"
    "  call sharness_sealed_early\n"
    "  mov %rbx, %rsp\n"
    "  xor %edx, %edx\n"
    "  jmp _start\n"
    ".size sharness_sealed_entry, .-sharness_sealed_entry\n");

#define GUARD "_SHARNESS_SEALED_REEXEC="  // sealed_exe.cpp's kGuard, with its '='
#define MAX_ENV 1024  // more falls back to the normal start (8 KiB of stack is plenty)
#define PATH_LEN 4096

static long sys6(long n, long a, long b, long c, long d, long e, long f) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
#define SYS(n, a, b, c, d, e) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

static int equal(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

static int starts_with(const char* s, const char* prefix) {
  while (*prefix && *s == *prefix) ++s, ++prefix;
  return !*prefix;
}

// Appends s to buf at *at, keeping room for the terminator; 0 if it does not fit.
static int append(char* buf, size_t size, size_t* at, const char* s, size_t n) {
  if (*at + n >= size) return 0;
  for (size_t i = 0; i < n; ++i) buf[*at + i] = s[i];
  *at += n;
  buf[*at] = 0;
  return 1;
}

static int append_fd_path(char* buf, size_t size, size_t* at, long fd) {
  char digits[24];
  size_t n = 0;
  do digits[sizeof digits - 1 - n++] = (char)('0' + fd % 10);
  while ((fd /= 10) && n < sizeof digits);
  return append(buf, size, at, "/proc/self/fd/", 14) && append(buf, size, at, digits + sizeof digits - n, n);
}

// A read-only detached mount: a new empty tmpfs (lowerdir 0), or an overlay of lowerdir.
static long detached_mount(const char* fstype, const char* lowerdir) {
  long fs = SYS(SYS_fsopen, fstype, FSOPEN_CLOEXEC, 0, 0, 0);
  if (fs < 0) return -1;
  long mnt = -1;
  if ((lowerdir ? SYS(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", lowerdir, 0)
                : SYS(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "4k", 0)) == 0 &&
      SYS(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0) == 0)
    mnt = SYS(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID, 0, 0);
  SYS(SYS_close, fs, 0, 0, 0, 0);
  return mnt < 0 ? -1 : mnt;
}

// Only commands that put a process into a container re-execute (runtime/main.cpp). Any word
// of argv counts: a global flag's value that happens to be "run" costs a re-exec, nothing more.
static int wants_sealed(int argc, char** argv, char** envp) {
  int wanted = 0;
  for (int i = 1; i < argc && !wanted; ++i)
    wanted = equal(argv[i], "create") || equal(argv[i], "run") || equal(argv[i], "exec");
  for (char** e = envp; wanted && *e; ++e)
    if (starts_with(*e, GUARD)) wanted = 0;  // already re-executed: main() checks the result
  return wanted;
}

// 1 if /proc/self/exe (open as fd) cannot be written: sealed_exe::is_sealed().
static int is_sealed(long fd) {
  long seals = SYS(SYS_fcntl, fd, F_GET_SEALS, 0, 0, 0);
  if (seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SEAL)) return 1;
  struct statfs sfs;
  return SYS(SYS_fstatfs, fd, &sfs, 0, 0, 0) == 0 && (sfs.f_flags & ST_RDONLY);
}

__attribute__((used, visibility("hidden"))) void sharness_sealed_early(long* sp) {
  int argc = (int)sp[0];
  char** argv = (char**)(sp + 1);
  char** envp = argv + argc + 1;
  if (!wants_sealed(argc, argv, envp)) return;

  long self = SYS(SYS_openat, AT_FDCWD, "/proc/self/exe", O_RDONLY | O_CLOEXEC, 0, 0);
  if (self < 0) return;
  struct stat st;
  int sealed = is_sealed(self), ok = SYS(SYS_fstat, self, &st, 0, 0, 0) == 0;
  SYS(SYS_close, self, 0, 0, 0, 0);
  if (sealed || !ok) return;

  // The guard variable carries the binary's path on disk (sealed_exe::binary_path()).
  char guard[PATH_LEN + sizeof GUARD];
  size_t at = 0;
  append(guard, sizeof guard, &at, GUARD, sizeof GUARD - 1);
  char* path = guard + at;
  long n = SYS(SYS_readlink, "/proc/self/exe", path, PATH_LEN - 1, 0, 0);
  if (n <= 0 || path[0] != '/') return;
  path[n] = 0;
  static const char deleted[] = " (deleted)";
  if ((size_t)n >= sizeof deleted - 1 && equal(path + n - (sizeof deleted - 1), deleted)) return;
  long slash = n - 1;
  while (path[slash] != '/') --slash;
  char dir[PATH_LEN];
  for (long i = 0; i < slash; ++i) dir[i] = path[i];
  dir[slash] = 0;
  if (slash == 0) dir[0] = '/', dir[1] = 0;  // a binary in /
  const char* base = path + slash + 1;

  long dirfd = SYS(SYS_openat, AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0);
  long empty = dirfd < 0 ? -1 : detached_mount("tmpfs", 0), ovl = -1, exe = -1;
  char lower[64];
  size_t l = 0;
  if (empty >= 0 && append_fd_path(lower, sizeof lower, &l, dirfd) && append(lower, sizeof lower, &l, ":", 1) &&
      append_fd_path(lower, sizeof lower, &l, empty))
    ovl = detached_mount("overlay", lower);
  if (ovl >= 0) exe = SYS(SYS_openat, ovl, base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0, 0);
  struct stat copy;
  // The name was looked up again: go on only if it is still the file we are running.
  if (exe >= 0 && SYS(SYS_fstat, exe, &copy, 0, 0, 0) == 0 && copy.st_size == st.st_size &&
      copy.st_mtim.tv_sec == st.st_mtim.tv_sec && copy.st_mtim.tv_nsec == st.st_mtim.tv_nsec) {
    char* env[MAX_ENV + 2];
    size_t e = 0;
    while (envp[e] && e < MAX_ENV) env[e] = envp[e], ++e;
    if (!envp[e]) {
      env[e] = guard;
      env[e + 1] = 0;
      SYS(SYS_execveat, exe, "", argv, env, AT_EMPTY_PATH);
    }
  }
  long opened[] = {exe, ovl, empty, dirfd};
  for (size_t i = 0; i < sizeof opened / sizeof opened[0]; ++i)
    if (opened[i] >= 0) SYS(SYS_close, opened[i], 0, 0, 0, 0);
}
