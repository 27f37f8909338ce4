/* syscalls.c: try syscalls that hostile code would, and print what the kernel answered.
 *
 * Built by conformance/suites/policy.sh at test time (`cc -static`, so it runs in a busybox
 * rootfs) and run inside a container. Each syscall is made by number with syscall(2), with
 * harmless arguments, in a forked child, so a seccomp KILL action ends only that child:
 *
 *   NAME ok RET          the call succeeded (RET is its return value)
 *   NAME errno N NAME    it failed with errno N (e.g. "errno 1 EPERM")
 *   NAME signal N        the child was killed by signal N (31 = SIGSYS: seccomp KILL)
 *
 * `getpid` comes first as a control: it must be "ok" under any policy that runs a process.
 * Arguments: the syscall names to try (default: all of them, in the table's order).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_userfaultfd
#define SYS_userfaultfd 323
#endif

struct call {
  const char *name;
  long nr;
  long a[6];
};

/* Harmless arguments: even where the call is allowed (and the caller is root on the host), it
 * changes nothing that outlives the child: mount targets that do not exist (ENOENT when allowed),
 * namespaces of the child only, invalid types and NULL structs (EINVAL, ENODEV, EFAULT). */
static const struct call calls[] = {
    {"getpid", SYS_getpid, {0}},
    {"ptrace", SYS_ptrace, {0 /* PTRACE_TRACEME */}},
    {"mount", SYS_mount, {(long)"none", (long)"/nonexistent-sharness-target", (long)"tmpfs", 0, 0}},
    {"umount2", SYS_umount2, {(long)"/nonexistent-sharness-target", 0}},
    {"unshare", SYS_unshare, {CLONE_NEWNS}},
    {"unshare-user", SYS_unshare, {CLONE_NEWUSER}},
    {"setns", SYS_setns, {-1, 0}},
    {"bpf", SYS_bpf, {0 /* BPF_MAP_CREATE */, 0, 0}},
    {"keyctl", SYS_keyctl, {0 /* KEYCTL_GET_KEYRING_ID */, -3 /* KEY_SPEC_SESSION_KEYRING */, 0}},
    {"add_key", SYS_add_key, {(long)"sharness-no-such-type", (long)"d", 0, 0, -3}},
    {"io_uring_setup", SYS_io_uring_setup, {1, 0 /* params NULL: EFAULT if allowed */}},
    {"userfaultfd", SYS_userfaultfd, {0}},
    {"setuid", SYS_setuid, {0}},
    {"socket", SYS_socket, {2 /* AF_INET */, 1 /* SOCK_STREAM */, 0}},
    {"clone3", SYS_clone3, {0, 0}},
    {"init_module", SYS_init_module, {0, 0, 0}},
    {"perf_event_open", SYS_perf_event_open, {0, 0, -1, -1, 0}},
    {"process_vm_readv", SYS_process_vm_readv, {1, 0, 0, 0, 0, 0}},
};

static int try_one(const struct call *c) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    printf("%s fork-failed %d %s\n", c->name, errno, strerror(errno));
    return 1;
  }
  if (pid == 0) {
    errno = 0;
    long r = syscall(c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
    if (r < 0) {
      int e = errno;
      printf("%s errno %d %s\n", c->name, e, strerrorname_np(e) ? strerrorname_np(e) : "?");
    } else {
      printf("%s ok %ld\n", c->name, r);
    }
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFSIGNALED(status)) printf("%s signal %d\n", c->name, WTERMSIG(status));
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  size_t n = sizeof calls / sizeof calls[0];
  if (argc < 2) {
    for (size_t i = 0; i < n; i++) try_one(&calls[i]);
    return 0;
  }
  for (int a = 1; a < argc; a++) {
    size_t i;
    for (i = 0; i < n && strcmp(calls[i].name, argv[a]) != 0; i++) {
    }
    if (i == n) {
      printf("%s unknown\n", argv[a]);
      continue;
    }
    try_one(&calls[i]);
  }
  return 0;
}
