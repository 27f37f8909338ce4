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

# --- seccomp notify (listenerPath): the fd and the container process state reach a listener
# (conformance/tools/seccomp_listener.c), which answers mkdir with EXDEV (18).

LISTENER_PID=""
stop_listener() {
  [ -n "$LISTENER_PID" ] || return 0
  kill "$LISTENER_PID" 2>/dev/null || true
  wait "$LISTENER_PID" 2>/dev/null || true
  LISTENER_PID=""
}

# start_listener: the listener on $CASEDIR/l.sock, writing into $CASEDIR/l/.
start_listener() {
  local tool
  tool=$(static_tool seccomp_listener.c)
  mkdir -p "$CASEDIR/l"
  "$tool" "$CASEDIR/l.sock" "$CASEDIR/l" 18 >"$CASEDIR/l.log" 2>&1 &
  LISTENER_PID=$!
  trap stop_listener EXIT
  wait_file "$CASEDIR/l/ready.0"
}

# notify BUNDLE: mkdir notifies the listener on $CASEDIR/l.sock.
notify() {
  cfg "$1" ".linux.seccomp = {\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": $ARCHES,
                              \"listenerPath\": \$sock, \"listenerMetadata\": \"conformance-meta\",
                              \"syscalls\": [{\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" \
    --arg sock "$CASEDIR/l.sock"
}

case_notify_listener() {
  local b id st
  start_listener
  b=$(new_bundle b mkdir /tmp/d)  # init itself makes the call: its pid is the state's
  # Control: without the notify rule mkdir succeeds.
  run_in "$b"
  assert_rc 0 "mkdir without a listener rule"
  [ -d "$b/rootfs/tmp/d" ] || fail "control: /tmp/d was not made"
  rmdir "$b/rootfs/tmp/d"
  notify "$b"
  id=$(newid n)
  run_in "$b" "$id"
  assert_ne 0 "$RC" "mkdir answered by the listener"
  assert_contains "$ERR" "cross-device" "the listener's errno (EXDEV) seen inside"
  [ ! -e "$b/rootfs/tmp/d" ] || fail "/tmp/d was made: the listener did not answer"
  # The state, exactly in the runtime-spec's format, and one fd with it.
  st=$CASEDIR/l/state.1.json
  [ -s "$st" ] || fail "the listener got no state"
  assert_eq 1 "$(<"$CASEDIR/l/fds.1")" "fds passed with the state"
  assert_eq '["seccompFd"]' "$(jq -c .fds "$st")" "fds"
  assert_eq conformance-meta "$(jq -r .metadata "$st")" "metadata"
  assert_eq "$id" "$(jq -r .state.id "$st")" "state.id"
  assert_match "$(jq -r .ociVersion "$st")" '^1\.' "ociVersion"
  assert_match "$(jq -r .pid "$st")" '^[1-9][0-9]*$' "pid"
  assert_eq "$(jq -r .pid "$st")" "$(jq -r .state.pid "$st")" "init's pid is the state's pid"
  assert_eq "$(cd "$b" && pwd -P)" "$(cd "$(jq -r .state.bundle "$st")" && pwd -P)" "state.bundle"
  # The notification came from that process (its pid, as the listener sees it), for mkdir (83).
  assert_line "$(<"$CASEDIR/l/notifications")" "^$(jq -r .pid "$st") 83$" "the notification's pid and syscall"
  # features says so (Docker and CRI-O read it).
  assert_contains "$(rt features | jq -c .linux.seccomp.actions)" '"SCMP_ACT_NOTIFY"' "features lists the action"
}

case_notify_exec() {
  local b id st
  start_listener
  b=$(new_bundle b sleep 30)
  notify "$b"
  id=$(newid n)
  start_detached "$b" "$id"
  wait_status "$id" running
  assert_fail rt exec "$id" mkdir /tmp/e
  assert_contains "$CMD_OUT" "cross-device" "the listener's errno (EXDEV) seen by the exec'd mkdir"
  st=$CASEDIR/l/state.2.json
  [ -s "$st" ] || fail "the exec'd process's fd did not reach the listener"
  assert_eq '["seccompFd"]' "$(jq -c .fds "$st")" "fds"
  assert_eq running "$(jq -r .state.status "$st")" "state.status at exec"
  assert_eq "$(pid_of "$id")" "$(jq -r .state.pid "$st")" "state.pid is init's"
  assert_ne "$(jq -r .state.pid "$st")" "$(jq -r .pid "$st")" "pid is the exec'd process's"
  # Control: a command without mkdir runs.
  assert_ok rt exec "$id" true
}

case_notify_unreachable() {
  local b out
  b=$(new_bundle b sh -c 'echo ran')
  notify "$b"
  # Nothing listens: the process must not run with notifications nobody can answer.
  run_in "$b"
  assert_ne 0 "$RC" "run with an unreachable listenerPath"
  assert_not_contains "$OUT" ran "the program"
  assert_contains "$ERR" "l.sock" "the error names the listener path"
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

# The compiled-filter cache (ours only): <root>/.cache/seccomp/<key>.bpf.

# cache_bundle: a bundle whose profile is this case's alone (an extra rule names the case), so
# its cache entry is the one file a first run adds; sets B and ENTRY.
cache_bundle() {
  [ "$OURS" = 1 ] || skip "the seccomp cache is sharness-runtime's"
  local before
  new_bundle b sh -c 'grep -E "^Seccomp_filters:" /proc/self/status; mkdir /tmp/d && echo made || echo refused' >/dev/null
  seccomp "$B" "[{\"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": $((1000 + CASENUM))},
                 {\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]"
  before=$(ls "$STATE/.cache/seccomp" 2>/dev/null)
  run_in "$B"
  assert_rc 0
  assert_contains "$OUT" refused "cold cache: the rule applies"
  ENTRY=$(comm -13 <(echo "$before") <(ls "$STATE/.cache/seccomp") | grep '\.bpf$')
  [ "$(echo "$ENTRY" | grep -c .)" = 1 ] || { echo "expected one new cache entry, got: $ENTRY" >&2; return 1; }
  ENTRY=$STATE/.cache/seccomp/$ENTRY
}

case_cache_warm() {
  cache_bundle || return 1
  assert_eq 600 "$(stat -c %a "$ENTRY")" "entry mode"
  assert_eq 700 "$(stat -c %a "$STATE/.cache/seccomp")" "cache dir mode"
  local mtime
  mtime=$(stat -c %Y.%i "$ENTRY")
  run_in "$B"
  assert_rc 0
  assert_contains "$OUT" refused "warm cache: the rule applies"
  assert_line "$OUT" '^Seccomp_filters:[[:space:]]+1$' "one filter installed"
  assert_eq "$mtime" "$(stat -c %Y.%i "$ENTRY")" "the entry was read, not rewritten"
  # exec goes through the same cache
  local id
  id=$(newid w)
  create_in "$B" "$id"
  rt exec "$id" sh -c 'mkdir /tmp/e && echo made || echo refused' >"$CASEDIR/exec.out" 2>&1
  assert_contains "$(<"$CASEDIR/exec.out")" refused "exec under the warm cache"
  rt delete -f "$id"
}

# tamper_case HOW: spoil the entry, run again: the rule still applies and the entry is rewritten.
tamper_case() {
  cache_bundle || return 1
  case $1 in
    garbage)
      # a header and a one-instruction allow-all program: loaded, it would let mkdir through
      { head -c 72 /dev/urandom; printf '\x06\x00\x00\x00\x00\x00\xff\x7f'; } >"$ENTRY" ;;
    symlink)
      cp "$ENTRY" "$CASEDIR/elsewhere.bpf"
      ln -sf "$CASEDIR/elsewhere.bpf" "$ENTRY" ;;
    world-writable) chmod 666 "$ENTRY" ;;
    not-ours) chown 65534:65534 "$ENTRY" ;;
  esac
  run_in "$B"
  assert_rc 0
  assert_contains "$OUT" refused "the rule applies with a $1 entry"
  assert_line "$OUT" '^Seccomp_filters:[[:space:]]+1$' "one filter installed"
  [ -f "$ENTRY" ] && [ ! -L "$ENTRY" ] || { echo "entry not rewritten as a file" >&2; return 1; }
  assert_eq "600 0" "$(stat -c '%a %u' "$ENTRY")" "the entry rewritten"
}

case_cache_garbage() { tamper_case garbage; }
case_cache_symlink() { tamper_case symlink; }
case_cache_world_writable() { tamper_case world-writable; }
case_cache_not_ours() { tamper_case not-ours; }

case_cache_dir_symlink() {
  cache_bundle || return 1
  # the whole cache dir swapped for a symlink: ignored, nothing written through it
  mv "$STATE/.cache/seccomp" "$CASEDIR/moved"
  ln -s "$CASEDIR/moved" "$STATE/.cache/seccomp"
  rm -f "$CASEDIR/moved"/*.bpf
  run_in "$B"
  rm -f "$STATE/.cache/seccomp"
  mv "$CASEDIR/moved" "$STATE/.cache/seccomp"
  assert_rc 0
  assert_contains "$OUT" refused "the rule applies with a symlinked cache dir"
  assert_eq "" "$(ls "$STATE/.cache/seccomp")" "nothing written through the symlink"
}

case_cache_off() {
  [ "$OURS" = 1 ] || skip "the seccomp cache is sharness-runtime's"
  local b rc=$CASEDIR/runtime.json
  echo '{"seccompCache": false}' >"$rc"
  RT_EXTRA=("${RT_EXTRA[@]}" --config "$rc")
  b=$(new_bundle b sh -c 'mkdir /tmp/d && echo made || echo refused')
  seccomp "$b" "[{\"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": $((1000 + CASENUM))},
                 {\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]"
  local before
  before=$(ls "$STATE/.cache/seccomp" 2>/dev/null)
  run_in "$b"
  assert_rc 0
  assert_eq refused "$OUT" "the rule applies without the cache"
  assert_eq "$before" "$(ls "$STATE/.cache/seccomp" 2>/dev/null)" "no entry written"
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
tcase "cache: a warm entry is read and the rule applies (run, exec)" case_cache_warm
tcase "cache: a garbage entry is not used" case_cache_garbage
tcase "cache: a symlinked entry is not used" case_cache_symlink
tcase "cache: a world-writable entry is not used" case_cache_world_writable
tcase "cache: an entry not owned by root is not used" case_cache_not_ours
tcase "cache: a symlinked cache dir is not used" case_cache_dir_symlink
tcase "cache: seccompCache false in the runtime config" case_cache_off
tcase "notify: listenerPath gets the fd and the state, the listener answers" case_notify_listener
tcase "notify: an exec'd process's fd reaches the listener" case_notify_exec
tcase "notify: an unreachable listenerPath fails the run" case_notify_unreachable
finish
