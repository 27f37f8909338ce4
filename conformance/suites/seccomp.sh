#!/usr/bin/env bash
# Seccomp: SCMP_ACT_ERRNO with errnoRet (default EPERM, custom ENOSYS), Seccomp: 2 in status,
# SCMP_ACT_KILL kills by SIGSYS, argument conditions, a default-allow profile, and the filter with
# noNewPrivileges false.
. "$(dirname "$0")/../lib.sh"

ARCHES='["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"]'

# seccomp BUNDLE SYSCALLS_JSON [DEFAULT_ACTION]: install a profile.
seccomp() {
  cfg "$1" ".linux.seccomp = {\"defaultAction\": \"${3:-SCMP_ACT_ALLOW}\", \"architectures\": $ARCHES,
                              \"syscalls\": $2}"
}

case_errno_eperm() {
  local b
  b=$(new_bundle b sh -c 'mkdir /tmp/d && echo made || echo refused; : > /tmp/f && echo touched')
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]'
  run_in "$b"
  assert_rc 0
  assert_eq $'refused\ntouched' "$OUT" "mkdir under an ERRNO(1) rule, file creation allowed"
  assert_contains "$ERR" "Operation not permitted" "mkdir's error"
}

case_errno_default_is_eperm() {
  local b
  b=$(new_bundle b sh -c 'mkdir /tmp/d && echo made || echo refused')
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]'
  run_in "$b"
  assert_rc 0
  assert_eq refused "$OUT" "mkdir under an ERRNO rule without errnoRet"
  assert_contains "$ERR" "Operation not permitted" "default errno is EPERM"
}

case_errno_custom() {
  local b
  b=$(new_bundle b sh -c 'mkdir /tmp/d && echo made || echo refused')
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]'
  run_in "$b"
  assert_rc 0
  assert_eq refused "$OUT" "mkdir under an ERRNO(38) rule"
  assert_contains "$ERR" "Function not implemented" "errno 38 (ENOSYS)"
}

case_status_seccomp_2() {
  local b
  b=$(new_bundle b grep -E '^Seccomp' /proc/self/status)
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]'
  run_in "$b"
  assert_rc 0
  assert_line "$OUT" '^Seccomp:[[:space:]]+2$' "Seccomp mode with a profile"
  assert_match "$OUT" 'Seccomp_filters:[[:space:]]+[1-9]' "filters installed"
  # control: no profile, no filter
  cfg "$b" 'del(.linux.seccomp)'
  run_in "$b"
  assert_line "$OUT" '^Seccomp:[[:space:]]+0$' "Seccomp mode without a profile"
}

case_default_allow() {
  # a default-allow profile with no rules leaves everything working
  local b
  b=$(new_bundle b sh -c 'mkdir /tmp/d && rmdir /tmp/d && echo fine; grep ^Seccomp: /proc/self/status')
  seccomp "$b" '[]'
  run_in "$b"
  assert_rc 0
  assert_match "$OUT" '^fine' "mkdir and rmdir under a default-allow profile"
}

case_errno_eacces_among_allow() {
  # an ERRNO(13) rule next to an explicit ALLOW rule: mkdir gets EACCES, the rest runs
  local b
  b=$(new_bundle b sh -c 'mkdir /tmp/d && echo made || echo refused; echo alive')
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13},
                 {"names": ["getcwd"], "action": "SCMP_ACT_ALLOW"}]' SCMP_ACT_ALLOW
  run_in "$b"
  assert_eq $'refused\nalive' "$OUT" "mkdir refused, the shell goes on"
  assert_contains "$ERR" "Permission denied" "errno 13 (EACCES)"
}

kill_action() {
  local b
  # busybox sh forks for the mkdir applet: the child dies, the shell reports its status
  b=$(new_bundle b sh -c 'mkdir /tmp/d; echo "mkdir exit $?"; [ -d /tmp/d ] && echo created || echo absent')
  seccomp "$b" "[{\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"$1\"}]"
  run_in "$b"
  assert_rc 0
  assert_eq $'mkdir exit 159\nabsent' "$OUT" "a process making a $1 syscall (128 + SIGSYS)"
}
case_kill_action() { kill_action SCMP_ACT_KILL; }
case_kill_process_action() { kill_action SCMP_ACT_KILL_PROCESS; }

case_arg_condition() {
  # kill(2) with sig == SIGUSR1 (10) is refused, other signals pass
  local b
  b=$(new_bundle b sh -c 'trap "echo got-usr1" USR1; trap "echo got-usr2" USR2
    kill -USR1 $$ && echo usr1-sent || echo usr1-refused
    kill -USR2 $$ && echo usr2-sent || echo usr2-refused')
  seccomp "$b" '[{"names": ["kill"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
                  "args": [{"index": 1, "value": 10, "op": "SCMP_CMP_EQ"}]}]'
  run_in "$b"
  assert_rc 0
  assert_contains "$OUT" usr1-refused "kill -USR1 under the argument rule"
  assert_not_contains "$OUT" got-usr1 "USR1 delivered"
  assert_contains "$OUT" usr2-sent "kill -USR2 (argument does not match)"
  assert_contains "$OUT" got-usr2 "USR2 delivered"
}

case_arg_condition_masked() {
  # SCMP_CMP_MASKED_EQ: refuse kill(2) when (sig & 16) == 16: SIGWINCH (28) refused, SIGUSR2 (12) passes
  local b
  b=$(new_bundle b sh -c 'trap "echo got-winch" WINCH; trap "echo got-usr2" USR2
    kill -WINCH $$ && echo winch-sent || echo winch-refused
    kill -USR2 $$ && echo usr2-sent || echo usr2-refused')
  seccomp "$b" '[{"names": ["kill"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
                  "args": [{"index": 1, "value": 16, "valueTwo": 16, "op": "SCMP_CMP_MASKED_EQ"}]}]'
  run_in "$b"
  assert_rc 0
  assert_contains "$OUT" winch-refused "kill -WINCH (28 & 16 == 16)"
  assert_not_contains "$OUT" got-winch "WINCH delivered"
  assert_contains "$OUT" usr2-sent "kill -USR2 (12 & 16 == 0)"
}

case_without_no_new_privs() {
  # with noNewPrivileges false the filter still goes on (loaded while the runtime is privileged)
  local b
  b=$(new_bundle b sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; mkdir /tmp/d || echo refused')
  cfg "$b" '.process.noNewPrivileges = false'
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]'
  run_in "$b"
  assert_rc 0
  assert_match "$OUT" 'NoNewPrivs:[[:space:]]+0' "no_new_privs"
  assert_match "$OUT" 'Seccomp:[[:space:]]+2' "seccomp mode"
  assert_contains "$OUT" refused "the rule applies"
}

case_inherited_by_children() {
  local b
  b=$(new_bundle b sh -c 'sh -c "grep ^Seccomp: /proc/self/status; mkdir /tmp/d || echo child-refused"')
  seccomp "$b" '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]'
  run_in "$b"
  assert_match "$OUT" 'Seccomp:[[:space:]]+2' "child's seccomp mode"
  assert_contains "$OUT" child-refused "the rule in a child"
}

tcase "SCMP_ACT_ERRNO errnoRet 1: mkdir gets EPERM" case_errno_eperm
tcase "SCMP_ACT_ERRNO without errnoRet: EPERM" case_errno_default_is_eperm
tcase "SCMP_ACT_ERRNO errnoRet 38: Function not implemented" case_errno_custom
tcase "Seccomp: 2 in /proc/self/status (0 without a profile)" case_status_seccomp_2
tcase "default-allow profile without rules" case_default_allow
tcase "SCMP_ACT_ERRNO errnoRet 13 next to an ALLOW rule: Permission denied" case_errno_eacces_among_allow
tcase "SCMP_ACT_KILL kills with SIGSYS" case_kill_action
tcase "SCMP_ACT_KILL_PROCESS kills with SIGSYS" case_kill_process_action
tcase "argument condition (kill sig == SIGUSR1)" case_arg_condition
tcase "argument condition SCMP_CMP_MASKED_EQ (kill sig & 16)" case_arg_condition_masked
tcase "filter applied with noNewPrivileges false" case_without_no_new_privs
tcase "filter inherited by children" case_inherited_by_children
finish
