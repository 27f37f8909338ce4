// measure: run one command (or N parallel sequences of commands) and print what it cost.
//
//   measure [--join CGDIR] [--acct CGDIR] [--out FILE] [--err FILE] -- CMD [ARGS...]
//   measure [--join CGDIR] [--acct CGDIR] --jobs FILE
//
// One line on stdout, space-separated:
//   rc wall_ns user_us sys_us maxrss_kb cg_ns cg_user_ns cg_sys_ns failed_jobs
//
//   rc          exit status of CMD (128+signal if killed); with --jobs, 0 unless a job failed
//   wall_ns     CLOCK_MONOTONIC from just before fork to just after wait4
//   user_us,    ru_utime/ru_stime of wait4: the command and every descendant it waited for
//   sys_us      (with --jobs, summed over the jobs)
//   maxrss_kb   ru_maxrss of wait4: the largest RSS of the command or a waited-for descendant
//   cg_*        delta of cpuacct.usage / usage_user / usage_sys of --acct (cgroup v1 cpuacct,
//               hierarchical; on cgroup v2 cpu.stat usage/user/system_usec): CPU of everything in that cgroup and below, which includes what
//               the command does not wait for (a container's init after `create`). -1 if no --acct.
//
// --join CGDIR: the child writes itself into CGDIR/cgroup.procs before exec, so everything it
// forks is charged to CGDIR (put CGDIR under --acct).
// --jobs FILE: one job per line; a job's commands are separated by " ;; ", words by single
//   spaces (no quoting: the bench writes simple words only). All jobs start at once, each in its own worker process that
//   runs its commands one after the other and stops at the first failure.
// stdin of the command is /dev/null; stdout/stderr go to --out/--err (default /dev/null).
//
// Built by bench/run.sh with `cc -O2`: a fork+exec+wait4 costs ~0.2 ms here, the same for every
// runtime, and is inside wall_ns (the runtime's own exec and dynamic loading are part of its cost).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *join_dir, *acct_dir, *out_file = "/dev/null", *err_file = "/dev/null";

static void die(const char *what) {
  fprintf(stderr, "measure: %s: %s\n", what, strerror(errno));
  exit(125);
}

static long long read_ll(const char *dir, const char *name) {
  if (!dir) return -1;
  char p[4096];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "re");
  if (!f) return -1;
  long long v = -1;
  if (fscanf(f, "%lld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

// CPU of a cgroup in ns: v1 cpuacct.usage{,_user,_sys}, else v2 cpu.stat (usage/user/system_usec).
static void read_cpu(const char *dir, long long out[3]) {
  out[0] = read_ll(dir, "cpuacct.usage");
  out[1] = read_ll(dir, "cpuacct.usage_user");
  out[2] = read_ll(dir, "cpuacct.usage_sys");
  if (out[0] >= 0 || !dir) return;
  char p[4096], key[64];
  long long v;
  snprintf(p, sizeof p, "%s/cpu.stat", dir);
  FILE *f = fopen(p, "re");
  if (!f) return;
  while (fscanf(f, "%63s %lld", key, &v) == 2) {
    if (!strcmp(key, "usage_usec")) out[0] = v * 1000;
    else if (!strcmp(key, "user_usec")) out[1] = v * 1000;
    else if (!strcmp(key, "system_usec")) out[2] = v * 1000;
  }
  fclose(f);
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// In the child, before exec: join the cgroup, set up stdio.
static void child_setup(void) {
  if (join_dir) {
    char p[4096];
    snprintf(p, sizeof p, "%s/cgroup.procs", join_dir);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) die(p);
    close(fd);
  }
  int in = open("/dev/null", O_RDONLY);
  int out = open(out_file, O_WRONLY | O_CREAT | O_APPEND, 0644);
  int err = open(err_file, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (in < 0 || out < 0 || err < 0) die("open stdio");
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  if (in > 2) close(in);
  if (out > 2) close(out);
  if (err > 2) close(err);
}

static int status_rc(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

// Run argv, wait for it; return its rc (used by job workers, after child_setup in the worker).
static int run_wait(char **argv) {
  pid_t p = fork();
  if (p < 0) return 125;
  if (p == 0) {
    execvp(argv[0], argv);
    _exit(127);
  }
  int st;
  while (waitpid(p, &st, 0) < 0)
    if (errno != EINTR) return 125;
  return status_rc(st);
}

// A job line: "cmd a b ;; cmd2 c d". Runs each command in turn; 0 if all succeeded.
static int run_job(char *line) {
  for (char *s = line; s;) {
    char *sep = strstr(s, " ;; ");
    if (sep) *sep = 0;
    char *argv[256];
    int na = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " ", &save); tok && na < 255; tok = strtok_r(NULL, " ", &save))
      argv[na++] = tok;
    argv[na] = NULL;
    if (na > 0) {
      int rc = run_wait(argv);
      if (rc != 0) return rc;
    }
    s = sep ? sep + 4 : NULL;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *jobs_file = NULL;
  int i = 1;
  for (; i < argc; ++i) {
    if (!strcmp(argv[i], "--")) { ++i; break; }
    if (i + 1 >= argc) break;
    if (!strcmp(argv[i], "--join")) join_dir = argv[++i];
    else if (!strcmp(argv[i], "--acct")) acct_dir = argv[++i];
    else if (!strcmp(argv[i], "--out")) out_file = argv[++i];
    else if (!strcmp(argv[i], "--err")) err_file = argv[++i];
    else if (!strcmp(argv[i], "--jobs")) jobs_file = argv[++i];
    else { fprintf(stderr, "measure: unknown option %s\n", argv[i]); return 125; }
  }
  if (!jobs_file && i >= argc) {
    fprintf(stderr, "usage: measure [--join CG] [--acct CG] [--out F] [--err F] (-- CMD... | --jobs FILE)\n");
    return 125;
  }

  // Read the jobs before the clock starts.
  char *jobs[4096];
  int nj = 0;
  if (jobs_file) {
    FILE *f = fopen(jobs_file, "re");
    if (!f) die(jobs_file);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0 && nj < 4096) {
      if (line[n - 1] == '\n') line[n - 1] = 0;
      if (line[0]) jobs[nj++] = strdup(line);
    }
    free(line);
    fclose(f);
  }

  long long c0[3], c1[3];
  read_cpu(acct_dir, c0);
  long long t0 = now_ns();

  struct rusage tot = {0};
  long maxrss = 0;
  int rc = 0, failed = 0;
  int nprocs = jobs_file ? nj : 1;
  pid_t pids[4096];
  for (int k = 0; k < nprocs; ++k) {
    pid_t p = fork();
    if (p < 0) die("fork");
    if (p == 0) {
      child_setup();
      if (jobs_file) _exit(run_job(jobs[k]));
      execvp(argv[i], argv + i);
      _exit(127);
    }
    pids[k] = p;
  }
  for (int k = 0; k < nprocs; ++k) {
    int st;
    struct rusage ru;
    while (wait4(pids[k], &st, 0, &ru) < 0)
      if (errno != EINTR) die("wait4");
    int r = status_rc(st);
    if (r != 0) {
      ++failed;
      if (!rc) rc = r;
    }
    timeradd(&tot.ru_utime, &ru.ru_utime, &tot.ru_utime);
    timeradd(&tot.ru_stime, &ru.ru_stime, &tot.ru_stime);
    if (ru.ru_maxrss > maxrss) maxrss = ru.ru_maxrss;
  }

  long long t1 = now_ns();
  read_cpu(acct_dir, c1);
  printf("%d %lld %lld %lld %ld %lld %lld %lld %d\n", rc, t1 - t0,
         (long long)tot.ru_utime.tv_sec * 1000000 + tot.ru_utime.tv_usec,
         (long long)tot.ru_stime.tv_sec * 1000000 + tot.ru_stime.tv_usec, maxrss,
         c0[0] >= 0 && c1[0] >= 0 ? c1[0] - c0[0] : -1, c0[1] >= 0 && c1[1] >= 0 ? c1[1] - c0[1] : -1,
         c0[2] >= 0 && c1[2] >= 0 ? c1[2] - c0[2] : -1, failed);
  return 0;
}
