/* keyring.c: the session keyring a process has, and the join-by-name that runc's "_ses.<id>"
 * keyrings rely on. Built by conformance/suites/process.sh with `cc -static` (lib.sh's
 * static_tool), run inside a container and on the host. Raw keyctl(2), no libkeyutils.
 *
 *   keyring show          print "SERIAL DESCRIPTION" of the session keyring
 *   keyring plant NAME    make a keyring NAME that anyone of this uid may search and join,
 *                         linked into the user keyring (so it outlives this process); print its serial
 *   keyring join NAME     join the session keyring NAME (as a runtime naming it would), then show
 *   keyring revoke SERIAL revoke it (the suite's clean-up)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int show(void) {
  long id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
  if (id < 0) return perror("keyctl get session keyring"), 1;
  char d[512];
  long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, id, d, sizeof d - 1);
  if (n < 0) return perror("keyctl describe"), 1;
  d[n < (long)sizeof d ? n : (long)sizeof d - 1] = 0;
  const char* name = strrchr(d, ';');  /* type;uid;gid;perm;description */
  printf("%ld %s\n", id, name ? name + 1 : d);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && !strcmp(argv[1], "show")) return show();
  if (argc == 3 && !strcmp(argv[1], "plant")) {
    long id = syscall(SYS_add_key, "keyring", argv[2], NULL, 0, KEY_SPEC_USER_KEYRING);
    if (id < 0) return perror("add_key keyring"), 1;
    /* possessor and user: view, read, write, search, link, setattr (0x3f each) */
    if (syscall(SYS_keyctl, KEYCTL_SETPERM, id, 0x3f3f0000) < 0) return perror("keyctl setperm"), 1;
    printf("%ld\n", id);
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "join")) {
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, argv[2]) < 0) return perror("keyctl join"), 1;
    return show();
  }
  if (argc == 3 && !strcmp(argv[1], "revoke"))
    return syscall(SYS_keyctl, KEYCTL_REVOKE, atol(argv[2])) < 0 ? (perror("keyctl revoke"), 1) : 0;
  fprintf(stderr, "usage: keyring show | plant NAME | join NAME | revoke SERIAL\n");
  return 2;
}
