// without-memfd-secret CMD [ARG...]: run CMD as on a kernel without memfd_secret(2). A seccomp
// filter (libseccomp) answers ENOSYS to memfd_secret and allows everything else; it is
// inherited across fork, clone and execve, so the runtime, its hooks and the KMS they start
// all meet it. The KMS's weaker-memory tests (conformance/suites/kms.sh) run under it.
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: without-memfd-secret CMD [ARG...]\n");
    return 2;
  }
  int nr = seccomp_syscall_resolve_name("memfd_secret");
  if (nr == __NR_SCMP_ERROR) {
    std::fprintf(stderr, "without-memfd-secret: libseccomp does not know memfd_secret\n");
    return 2;
  }
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) {
    std::fprintf(stderr, "without-memfd-secret: seccomp_init failed\n");
    return 2;
  }
  // Root loads a filter without no_new_privs, so setuid programs under it keep working.
  if (int rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc != 0) {
    std::fprintf(stderr, "without-memfd-secret: seccomp_rule_add: %s\n", std::strerror(-rc));
    return 2;
  }
  if (int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0); rc != 0) {
    std::fprintf(stderr, "without-memfd-secret: seccomp_attr_set: %s\n", std::strerror(-rc));
    return 2;
  }
  if (int rc = seccomp_load(f); rc != 0) {
    std::fprintf(stderr, "without-memfd-secret: seccomp_load: %s\n", std::strerror(-rc));
    return 2;
  }
  seccomp_release(f);
  ::execvp(argv[1], argv + 1);
  std::fprintf(stderr, "without-memfd-secret: exec %s: %s\n", argv[1], std::strerror(errno));
  return 127;
}
