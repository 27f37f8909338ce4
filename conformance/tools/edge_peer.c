/* edge_peer: the workloads and the wire tap of the edges suite (conformance/suites/edges.sh).
 * Built static so it runs inside busybox containers.
 *
 *   edge_peer serve unix PATH LOG | serve tcp PORT LOG
 *       a service: for each connection, read until EOF, append exactly what arrived to LOG,
 *       answer "reply:" + what arrived; LOG.ready appears once it listens. The UNIX socket is made connectable by others (0666):
 *       the edge proxy runs under its own uid.
 *   edge_peer call unix PATH MSG | call tcp PORT MSG
 *       a client: send MSG, half-close, print what comes back. Exit 1 (errno on stderr) if the
 *       connection fails.
 *   edge_peer tap LISTEN TARGET LOG
 *       a man in the middle on UNIX sockets: relay LISTEN <-> TARGET, appending every byte
 *       both ways to LOG (the capture of the wire).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "edge_peer: %s: %s\n", what, strerror(errno));
  exit(1);
}

static int unix_listen(const char *path) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  unlink(path);
  if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) die(path);
  if (chmod(path, 0666) < 0) die("chmod");
  if (listen(s, 16) < 0) die("listen");
  return s;
}

static int unix_connect(const char *path) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) die(path);
  return s;
}

static struct sockaddr_in local(const char *port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port))};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

static int tcp_listen(const char *port) {
  struct sockaddr_in a = local(port);
  int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) die("bind");
  if (listen(s, 16) < 0) die("listen");
  return s;
}

static int tcp_connect(const char *port) {
  struct sockaddr_in a = local(port);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
  return s;
}

static int write_all(int fd, const char *b, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

__attribute__((noreturn)) static void serve(int ls, const char *log) {
  char ready[4096];
  snprintf(ready, sizeof ready, "%s.ready", log);
  int r = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (r >= 0) {
    write_all(r, "1", 1);
    close(r);
  }
  for (;;) {
    int c = accept(ls, NULL, NULL);
    if (c < 0) continue;
    char buf[65536];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf && (n = read(c, buf + got, sizeof buf - got)) > 0) got += (size_t)n;
    int l = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (l >= 0) {
      write_all(l, buf, got);
      close(l);
    }
    write_all(c, "reply:", 6);
    write_all(c, buf, got);
    close(c);
  }
}

static int call(int s, const char *msg) {
  if (write_all(s, msg, strlen(msg)) < 0) die("write");
  shutdown(s, SHUT_WR);
  char buf[65536];
  ssize_t n;
  size_t total = 0;
  while ((n = read(s, buf, sizeof buf)) > 0) {
    write_all(1, buf, (size_t)n);
    total += (size_t)n;
  }
  if (n < 0) die("read");
  return total > 0 ? 0 : 2;
}

static void tap(const char *listen_path, const char *target, const char *log) {
  int ls = unix_listen(listen_path);
  int l = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (l < 0) die(log);
  for (;;) {
    int a = accept(ls, NULL, NULL);
    if (a < 0) continue;
    int b = unix_connect(target);
    struct pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    int open_a = 1, open_b = 1;
    while (open_a || open_b) {
      p[0].fd = open_a ? a : -1;
      p[1].fd = open_b ? b : -1;
      if (poll(p, 2, -1) < 0) break;
      for (int i = 0; i < 2; ++i) {
        if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[65536];
        ssize_t n = read(p[i].fd, buf, sizeof buf);
        int other = i == 0 ? b : a;
        if (n <= 0) {
          shutdown(other, SHUT_WR);
          if (i == 0) open_a = 0; else open_b = 0;
          continue;
        }
        write_all(l, buf, (size_t)n);
        write_all(other, buf, (size_t)n);
      }
    }
    close(a);
    close(b);
  }
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc == 5 && !strcmp(argv[1], "serve"))
    serve(!strcmp(argv[2], "unix") ? unix_listen(argv[3]) : tcp_listen(argv[3]), argv[4]);
  if (argc == 5 && !strcmp(argv[1], "call"))
    return call(!strcmp(argv[2], "unix") ? unix_connect(argv[3]) : tcp_connect(argv[3]), argv[4]);
  if (argc == 5 && !strcmp(argv[1], "tap")) tap(argv[2], argv[3], argv[4]);
  fprintf(stderr, "usage: edge_peer serve|call unix PATH|tcp PORT LOG|MSG; edge_peer tap LISTEN TARGET LOG\n");
  return 2;
}
