/* landlock_probe.c: the attempts of conformance/suites/landlock.sh that busybox has no applet for.
 *
 * Built by the suite with `cc -static` (it runs in a busybox rootfs, and on the host through
 * nsenter for the listeners). Each command prints one line, "WHAT ok" or "WHAT errno N NAME",
 * and exits 0 when the attempt succeeded, 1 when the kernel refused it, 2 on bad usage:
 *
 *   ran                        print "ran" (the program itself could be executed)
 *   connect PORT               TCP connect to 127.0.0.1:PORT
 *   bind PORT                  TCP bind to 127.0.0.1:PORT
 *   tcp-listen PORT            listen on 127.0.0.1:PORT and accept until killed (host side)
 *   abstract NAME              connect to the abstract UNIX socket "@NAME"
 *   abstract-listen NAME       listen on "@NAME" and accept until killed (host side)
 *   rename FROM TO             rename(2), no copy fallback (busybox mv copies on EXDEV)
 *   memfd                      memfd_create(MFD_EXEC), then memfd_create(0), copy of this
 *                              program into it, fexecve: "memfd-exec ok" only if the copy ran
 *   lo-up                      bring lo up in the current network namespace (host side)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static const char *errname(int e) {
  switch (e) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EXDEV: return "EXDEV";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENOENT: return "ENOENT";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    default: return "other";
  }
}

static int report(const char *what, int rc) {
  if (rc >= 0) {
    printf("%s ok\n", what);
    fflush(stdout);
    return 0;
  }
  int e = errno;
  printf("%s errno %d %s\n", what, e, errname(e));
  fflush(stdout);
  return 1;
}

static struct sockaddr_in loopback(const char *port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)atoi(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

static socklen_t abstract(const char *name, struct sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  size_t n = strlen(name);
  if (n > sizeof a->sun_path - 2) n = sizeof a->sun_path - 2;
  memcpy(a->sun_path + 1, name, n);  /* sun_path[0] == 0: abstract */
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void accept_forever(int s) {
  if (listen(s, 16) < 0) { perror("listen"); exit(1); }
  printf("listening\n");
  fflush(stdout);
  for (;;) {
    int c = accept(s, NULL, NULL);
    if (c >= 0) close(c);
  }
}

static int do_memfd(void) {
  int x = memfd_create("probe-exec", MFD_EXEC);
  report("memfd_create-exec", x);
  int fd = memfd_create("probe", 0);
  if (report("memfd_create", fd)) return 1;
  int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (self < 0) return report("open-self", -1);
  char buf[65536];
  ssize_t n;
  while ((n = read(self, buf, sizeof buf)) > 0)
    if (write(fd, buf, (size_t)n) != n) return report("write-memfd", -1);
  close(self);
  fchmod(fd, 0755); /* refused on a memfd sealed against exec: the fexecve below says so */
  char *argv[] = {"probe", "memfd-child", NULL};
  char *envp[] = {NULL};
  fexecve(fd, argv, envp);
  return report("memfd-exec", -1);
}

static int lo_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq r;
  memset(&r, 0, sizeof r);
  strcpy(r.ifr_name, "lo");
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &r) < 0) return report("lo-up", -1);
  r.ifr_flags |= IFF_UP;
  return report("lo-up", ioctl(s, SIOCSIFFLAGS, &r));
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const char *cmd = argv[1];
  if (!strcmp(cmd, "ran")) { printf("ran\n"); return 0; }
  if (!strcmp(cmd, "memfd-child")) { printf("memfd-exec ok (the copy ran)\n"); return 0; }
  if (!strcmp(cmd, "memfd")) return do_memfd();
  if (!strcmp(cmd, "lo-up")) return lo_up();
  if (argc < 3) return 2;
  if (!strcmp(cmd, "connect") || !strcmp(cmd, "bind") || !strcmp(cmd, "tcp-listen")) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return report("socket", -1);
    struct sockaddr_in a = loopback(argv[2]);
    char what[64];
    snprintf(what, sizeof what, "%s %s", cmd, argv[2]);
    if (!strcmp(cmd, "connect")) return report(what, connect(s, (struct sockaddr *)&a, sizeof a));
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(s, (struct sockaddr *)&a, sizeof a);
    if (!strcmp(cmd, "bind")) return report(what, rc);
    if (rc < 0) return report(what, rc);
    accept_forever(s);
  }
  if (!strcmp(cmd, "abstract") || !strcmp(cmd, "abstract-listen")) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return report("socket", -1);
    struct sockaddr_un a;
    socklen_t len = abstract(argv[2], &a);
    if (!strcmp(cmd, "abstract")) return report("abstract", connect(s, (struct sockaddr *)&a, len));
    if (bind(s, (struct sockaddr *)&a, len) < 0) return report("abstract-listen", -1);
    accept_forever(s);
  }
  if (!strcmp(cmd, "rename") && argc >= 4) return report("rename", rename(argv[2], argv[3]));
  return 2;
}
