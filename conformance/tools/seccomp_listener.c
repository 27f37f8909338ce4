// A seccomp notify listener for the conformance suites (runtime-spec config-linux.md
// "listenerPath"): seccomp_listener SOCKET DIR ERRNO
//
// Listens on the UNIX socket SOCKET. Each connection carries one message: the container process
// state (JSON) with the notify fd as SCM_RIGHTS. The JSON is written to DIR/state.N.json, the
// number of fds the message carried to DIR/fds.N. Every notification on a received fd is answered
// with -ERRNO (the syscall fails with ERRNO, seen from inside the container) and logged to
// DIR/notifications as "pid nr". Runs until SIGTERM. Static, for any runtime.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_FDS 16

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void write_file(const char* dir, const char* name, int n, const char* data, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d%s", dir, name, n, strcmp(name, "state") == 0 ? ".json" : "");
  FILE* f = fopen(path, "w");
  if (!f) die(path);
  fwrite(data, 1, len, f);
  fclose(f);
}

// One connection: the state and the fd (-1 when the message carried none).
static int receive(int conn, const char* dir, int n) {
  char data[65536];
  struct iovec iov = {data, sizeof data - 1};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * 4)];
  } ctrl;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl.buf;
  msg.msg_controllen = sizeof ctrl.buf;
  ssize_t got = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  if (got < 0) die("recvmsg");
  int fd = -1, nfds = 0;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      memcpy(&fd, CMSG_DATA(c), sizeof(int));
    }
  write_file(dir, "state", n, data, (size_t)got);
  char count[16];
  int len = snprintf(count, sizeof count, "%d\n", nfds);
  write_file(dir, "fds", n, count, (size_t)len);
  return fd;
}

// Answer one notification with -err; log who asked for what.
static int answer(int fd, int err, FILE* log) {
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  memset(&req, 0, sizeof req);
  if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) return errno == ENOENT || errno == EINTR ? 0 : -1;
  memset(&resp, 0, sizeof resp);
  resp.id = req.id;
  resp.error = -err;
  fprintf(log, "%u %d\n", req.pid, req.data.nr);
  fflush(log);
  // ENOENT: the process left the syscall (killed) before our answer.
  if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT) return -1;
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s SOCKET DIR ERRNO\n", argv[0]);
    return 2;
  }
  const char* dir = argv[2];
  int err = atoi(argv[3]);
  char logpath[4096];
  snprintf(logpath, sizeof logpath, "%s/notifications", dir);
  FILE* log = fopen(logpath, "a");
  if (!log) die(logpath);

  int srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (srv < 0) die("socket");
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(argv[1]) >= sizeof addr.sun_path) die("socket path too long");
  strcpy(addr.sun_path, argv[1]);
  if (bind(srv, (struct sockaddr*)&addr, sizeof addr) < 0) die("bind");
  if (listen(srv, 8) < 0) die("listen");
  // Ready: the suite waits for this file before it starts a container.
  write_file(dir, "ready", 0, "ready\n", 6);

  struct pollfd p[MAX_FDS + 1];
  int n = 1, conns = 0;
  p[0].fd = srv;
  p[0].events = POLLIN;
  for (;;) {
    if (poll(p, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    for (int i = n - 1; i >= 1; --i) {
      if (p[i].revents & POLLIN) {
        if (answer(p[i].fd, err, log) < 0) die("answer notification");
      } else if (p[i].revents & (POLLHUP | POLLERR)) {  // every process of the filter is gone
        close(p[i].fd);
        p[i] = p[--n];
      }
    }
    if (p[0].revents & POLLIN) {
      int conn = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
      if (conn < 0) die("accept");
      int fd = receive(conn, dir, ++conns);
      close(conn);
      if (fd >= 0 && n <= MAX_FDS) {
        p[n].fd = fd;
        p[n].events = POLLIN;
        p[n].revents = 0;
        ++n;
      }
    }
  }
}
