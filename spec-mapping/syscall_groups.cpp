#include "spec-mapping/syscall_groups.hpp"

#include <algorithm>
#include <map>

namespace sh::policy {
namespace {

// A group lists syscalls and other groups ("@..."); nesting is expanded on use.
using Table = std::map<std::string_view, std::vector<std::string_view>, std::less<>>;

const Table& table() {
  static const Table t = {
      // What every process needs to start, run and exit (and what glibc calls before main).
      {"@default",
       {"arch_prctl", "brk", "clock_getres", "clock_gettime", "clock_nanosleep", "execve", "exit", "exit_group",
        "futex", "get_robust_list", "getegid", "geteuid", "getgid", "getgroups", "getpgid", "getpgrp", "getpid",
        "getppid", "getrandom", "getresgid", "getresuid", "getrlimit", "getsid", "gettid", "gettimeofday", "getuid",
        "membarrier", "mmap", "mprotect", "munmap", "nanosleep", "pause", "prlimit64", "restart_syscall", "rseq",
        "rt_sigreturn", "sched_getaffinity", "sched_yield", "set_robust_list", "set_tid_address", "time"}},
      // Reading, writing, seeking, duplicating and closing file descriptors.
      {"@basic-io",
       {"close", "close_range", "dup", "dup2", "dup3", "lseek", "pread64", "preadv", "preadv2", "pwrite64", "pwritev",
        "pwritev2", "read", "readv", "write", "writev"}},
      // Opening, creating, renaming, removing files and directories, their properties, links.
      {"@file-system",
       {"access", "chdir", "chmod", "close", "creat", "faccessat", "faccessat2", "fallocate", "fchdir", "fchmod",
        "fchmodat", "fcntl", "fgetxattr", "flistxattr", "fremovexattr", "fsetxattr", "fstat", "fstatfs", "ftruncate",
        "futimesat", "getcwd", "getdents", "getdents64", "getxattr", "inotify_add_watch", "inotify_init",
        "inotify_init1", "inotify_rm_watch", "lgetxattr", "link", "linkat", "listxattr", "llistxattr",
        "lremovexattr", "lsetxattr", "lstat", "mkdir", "mkdirat", "mknod", "mknodat", "mmap", "munmap",
        "newfstatat", "open", "openat", "openat2", "readlink", "readlinkat", "removexattr", "rename", "renameat",
        "renameat2", "rmdir", "setxattr", "stat", "statfs", "statx", "symlink", "symlinkat", "truncate", "umask",
        "unlink", "unlinkat", "utime", "utimensat", "utimes"}},
      // Event loops: poll, select, epoll, eventfd.
      {"@io-event",
       {"epoll_create", "epoll_create1", "epoll_ctl", "epoll_pwait", "epoll_pwait2", "epoll_wait", "eventfd",
        "eventfd2", "poll", "ppoll", "pselect6", "select"}},
      // Pipes, SysV IPC, POSIX message queues, memfd. (process_vm_* are in @debug: they read
      // another process's memory.)
      {"@ipc",
       {"memfd_create", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedsend", "mq_unlink",
        "msgctl", "msgget", "msgrcv", "msgsnd", "pipe", "pipe2", "semctl", "semget", "semop", "semtimedop", "shmat",
        "shmctl", "shmdt", "shmget"}},
      // Sockets, including AF_UNIX.
      {"@network-io",
       {"accept", "accept4", "bind", "connect", "getpeername", "getsockname", "getsockopt", "listen", "recvfrom",
        "recvmmsg", "recvmsg", "sendmmsg", "sendmsg", "sendto", "setsockopt", "shutdown", "socket", "socketpair"}},
      // Creating, running, signalling and reaping processes. Unlike systemd's, no unshare/setns:
      // the policy mapping also restricts clone to flags without CLONE_NEW* bits, and makes
      // clone3 (whose flags seccomp cannot see) return ENOSYS.
      {"@process",
       {"clone", "clone3", "execve", "execveat", "fork", "getrusage", "kill", "pidfd_open", "pidfd_send_signal",
        "prctl", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "tgkill", "times", "tkill", "vfork", "wait4", "waitid"}},
      // Signal handling and masks.
      {"@signal",
       {"rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigsuspend", "rt_sigtimedwait", "sigaltstack",
        "signalfd", "signalfd4"}},
      // Timers and alarms.
      {"@timer",
       {"alarm", "getitimer", "setitimer", "timer_create", "timer_delete", "timer_getoverrun", "timer_gettime",
        "timer_settime", "timerfd_create", "timerfd_gettime", "timerfd_settime", "times"}},
      // Flushing data to storage.
      {"@sync", {"fdatasync", "fsync", "msync", "sync", "sync_file_range", "syncfs"}},
      // File ownership.
      {"@chown", {"chown", "fchown", "fchownat", "lchown"}},
      // Changing credentials.
      {"@setuid",
       {"setfsgid", "setfsuid", "setgid", "setgroups", "setregid", "setresgid", "setresuid", "setreuid", "setuid"}},
      // Resource limits, scheduling and memory placement.
      {"@resources",
       {"ioprio_set", "mbind", "migrate_pages", "move_pages", "sched_setaffinity", "sched_setattr",
        "sched_setparam", "sched_setscheduler", "set_mempolicy", "setpriority", "setrlimit"}},
      // Locking memory in RAM (bounded by RLIMIT_MEMLOCK).
      {"@memlock", {"mlock", "mlock2", "mlockall", "munlock", "munlockall"}},
      // Asynchronous I/O, io_uring included (DESIGN.md §2 denies io_uring: harsh leaves this out).
      {"@aio",
       {"io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "io_setup", "io_submit", "io_uring_enter",
        "io_uring_register", "io_uring_setup"}},
      // The groups below are for reading and reviewing policies: allowing them is rarely right.
      {"@clock", {"adjtimex", "clock_adjtime", "clock_settime", "settimeofday"}},
      {"@debug", {"lookup_dcookie", "perf_event_open", "pidfd_getfd", "process_vm_readv", "process_vm_writev",
                  "ptrace"}},
      {"@keyring", {"add_key", "keyctl", "request_key"}},
      {"@module", {"delete_module", "finit_module", "init_module"}},
      {"@mount",
       {"chroot", "fsconfig", "fsmount", "fsopen", "fspick", "mount", "mount_setattr", "move_mount", "open_tree",
        "pivot_root", "umount2"}},
      {"@raw-io", {"ioperm", "iopl"}},
      {"@reboot", {"kexec_file_load", "kexec_load", "reboot"}},
      {"@swap", {"swapoff", "swapon"}},
      // A subset of systemd's @system-service: what an ordinary service needs, without @aio
      // (io_uring), @keyring, @debug, @mount or namespace calls.
      {"@system-service",
       {"@basic-io", "@chown", "@default", "@file-system", "@io-event", "@ipc", "@memlock", "@network-io",
        "@process", "@resources", "@setuid", "@signal", "@sync", "@timer", "capget", "capset", "copy_file_range",
        "fadvise64", "flock", "get_mempolicy", "getcpu", "getpriority", "ioctl", "ioprio_get", "madvise",
        "mincore", "mremap", "readahead", "sched_get_priority_max", "sched_get_priority_min", "sched_getattr",
        "sched_getparam", "sched_getscheduler", "sched_rr_get_interval", "sendfile", "setpgid", "setsid",
        "splice", "sysinfo", "tee", "uname", "vmsplice"}},
  };
  return t;
}

Result<void> expand_into(std::string_view group, std::set<std::string>& out, int depth) {
  auto it = table().find(group);
  if (it == table().end()) return fail("unknown syscall group \"" + std::string(group) + "\"");
  if (depth > 8) return fail("syscall group \"" + std::string(group) + "\" nests too deep");
  for (auto m : it->second) {
    if (m.starts_with('@'))
      TRYV(expand_into(m, out, depth + 1));
    else
      out.emplace(m);
  }
  return {};
}

}  // namespace

std::vector<std::string> group_names() {
  std::vector<std::string> out;
  for (const auto& [name, _] : table()) out.emplace_back(name);
  return out;
}

bool is_group(std::string_view name) { return table().contains(name); }

Result<std::set<std::string>> expand_group(std::string_view name) {
  std::set<std::string> out;
  TRYV(expand_into(name, out, 0));
  return out;
}

Result<std::set<std::string>> expand(const std::vector<std::string>& names_and_groups) {
  std::set<std::string> out;
  for (const auto& n : names_and_groups) {
    if (n.starts_with('@'))
      TRYV(expand_into(n, out, 0));
    else
      out.insert(n);
  }
  return out;
}

}  // namespace sh::policy
