// cgroup_bpf_query DIR: how many eBPF programs are attached to the cgroup2 directory DIR for
// device access (BPF_CGROUP_DEVICE), as BPF_PROG_QUERY answers (root). Prints the number and
// exits 0, or prints the error and exits 1. Static, so it runs on any guest or host.
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CGROUP2_DIR\n", argv[0]);
    return 2;
  }
  int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  __u32 ids[64];
  union bpf_attr a;
  memset(&a, 0, sizeof a);
  a.query.target_fd = (__u32)fd;
  a.query.attach_type = BPF_CGROUP_DEVICE;
  a.query.prog_ids = (__u64)(unsigned long)ids;
  a.query.prog_cnt = 64;
  if (syscall(SYS_bpf, BPF_PROG_QUERY, &a, sizeof a) < 0) {
    fprintf(stderr, "BPF_PROG_QUERY %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  printf("%u\n", a.query.prog_cnt);
  return 0;
}
