#!/usr/bin/env bash
# Exec: a process exec'd into a running container is in init's namespaces and cgroup and is
# bound by everything init is bound by (seccomp, capabilities, no_new_privs, rlimits); exit codes
# and signal deaths; --detach --pid-file; --process FILE honoured field by field; --env, --cwd,
# --user, --additional-gids; --cap adds to the effective set but never to inheritable/ambient
# (CVE-2022-27650); --preserve-fds; stdin passes through; refusals (missing binary, stopped,
# paused unless --ignore-paused); a running foreground exec does not hold up pause/resume. Each
# checked from inside the container, most against init's own values read on the host, so an
# exec that runs outside the container's bounds fails.
. "$(dirname "$0")/../lib.sh"

ARCHES='["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"]'
CAP_CHOWN=0

# status_field TEXT NAME: the value of "NAME:\tVALUE" in a /proc/PID/status dump.
status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }
# has_cap HEX BIT: is capability BIT set in the hex mask?
has_cap() { (( (16#$1 >> $2) & 1 )); }

# running BUNDLE_NAME ID [INIT_ARGS...]: a started container whose init runs INIT_ARGS (default
# `sleep 600`). Sets B (the bundle), ID and PID (init's host pid, from the pid file). CFG, if set,
# is a jq filter applied to the config first.
running() {
  local name=$1
  ID=$2
  shift 2
  [ $# -gt 0 ] || set -- sleep 600
  new_bundle "$name" "$@" >/dev/null
  [ -z "${CFG:-}" ] || cfg "$B" "$CFG"
  start_detached "$B" "$ID"
  PID=$(<"$CASEDIR/$ID.pid")
  [ -d "/proc/$PID" ] || fail "init $PID of $ID is not running"
}

# ex ID ARGS...: `exec` (foreground); sets OUT, ERR, RC. stdin is the caller's (default /dev/null).
ex() {
  local n=$(( ${_NEX:-0} + 1 ))
  _NEX=$n
  RC=0
  rt exec "$@" >"$CASEDIR/exec$n.out" 2>"$CASEDIR/exec$n.err" || RC=$?
  OUT=$(<"$CASEDIR/exec$n.out")
  ERR=$(<"$CASEDIR/exec$n.err")
  [ "$RC" = 124 ] && echo "(exec exited 124$(_timeout_note 124))" >&2
  return 0
}

# init_said ID: what the container's init printed (its stdout file).
init_said() { cat "$CASEDIR/$1.out"; }

# wait_init_output ID TEXT: until init's stdout contains TEXT (it prints before it sleeps).
wait_init_output() {
  local i
  for ((i = 0; i < 100; i++)); do
    grep -qF -- "$2" "$CASEDIR/$1.out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "init of $1 did not print '$2'; it printed '$(init_said "$1")', stderr '$(<"$CASEDIR/$1.err")'"
}

case_namespaces() {
  local id ns host init_ns mine t
  CFG='.linux.namespaces += [{"type": "cgroup"}]' running b "$(newid ns)"
  ex "$ID" sh -c 'for n in /proc/self/ns/*; do echo "${n##*/} $(readlink $n)"; done'
  assert_rc 0
  echo "$OUT"
  for ns in /proc/"$PID"/ns/*; do
    t=${ns##*/}
    init_ns=$(readlink "$ns")
    mine=$(sed -n "s/^$t //p" <<<"$OUT")
    assert_eq "$init_ns" "$mine" "$t namespace of the exec'd process vs init's (read on the host)"
  done
  # and init's are the container's own (so the equality above is not the host's namespaces twice)
  for t in pid net ipc uts mnt cgroup; do
    assert_ne "$(host_ns $t)" "$(readlink "/proc/$PID/ns/$t")" "$t namespace of init vs the caller's"
  done
}

case_cgroup() {
  local p2 f
  running b "$(newid cg)"
  # from inside: the exec'd process and init (pid 1 in the container) have the same cgroups
  ex "$ID" sh -c 'cat /proc/self/cgroup; echo ---; cat /proc/1/cgroup'
  assert_rc 0
  assert_eq "${OUT#*---$'\n'}" "${OUT%$'\n'---*}" "/proc/self/cgroup of exec vs /proc/1/cgroup"
  # from the host: a detached exec's /proc/<pid>/cgroup equals init's, which is the container's
  ex --detach --pid-file "$CASEDIR/p2" "$ID" sleep 300
  assert_rc 0
  p2=$(<"$CASEDIR/p2")
  f=$(<"/proc/$p2/cgroup")
  assert_eq "$(<"/proc/$PID/cgroup")" "$f" "/proc/<pid>/cgroup of the exec'd process vs init's, on the host"
  assert_contains "$f" "/$CGPARENT/$ID" "the container's cgroup path"
}

case_seccomp() {
  # a rule in the config (mkdir -> ENOSYS) binds exec as it binds init
  CFG=".linux.seccomp = {\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": $ARCHES,
        \"syscalls\": [{\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38}]}" \
    running b "$(newid sc)" sh -c 'mkdir /tmp/d-init 2>&1 || echo init-refused; exec sleep 600'
  wait_init_output "$ID" init-refused
  assert_contains "$(init_said "$ID")" "Function not implemented" "init's mkdir under the rule"
  ex "$ID" sh -c 'mkdir /tmp/d-exec || echo exec-refused; : >/tmp/f-exec && echo touched; grep ^Seccomp: /proc/self/status'
  assert_rc 0
  assert_contains "$ERR" "Function not implemented" "exec's mkdir under the rule (errno 38)"
  assert_line "$OUT" '^exec-refused$' "mkdir in exec"
  assert_line "$OUT" '^touched$' "file creation (not under the rule) in exec"
  assert_line "$OUT" '^Seccomp:[[:space:]]+2$' "Seccomp mode of the exec'd process"
  [ ! -e "$B/rootfs/tmp/d-exec" ] || fail "the directory was made despite the rule"
}

case_capabilities() {
  local st f
  running b "$(newid caps)" sh -c ': >/tmp/f; chown 1 /tmp/f && echo init-chowned || echo init-refused; exec sleep 600'
  wait_init_output "$ID" init-
  assert_contains "$(init_said "$ID")" init-refused "chown in init without CAP_CHOWN"
  ex "$ID" sh -c 'chown 1 /tmp/f && echo chowned || echo refused; cat /proc/self/status'
  assert_rc 0
  assert_line "$OUT" '^refused$' "chown in exec without CAP_CHOWN"
  st=$(<"/proc/$PID/status")
  for f in CapEff CapBnd CapPrm CapInh CapAmb; do
    assert_eq "$(status_field "$st" $f)" "$(status_field "$OUT" $f)" "$f of exec vs init"
  done
  has_cap "$(status_field "$OUT" CapEff)" $CAP_CHOWN && fail "CAP_CHOWN in the exec'd CapEff"
  return 0
}

case_no_new_privs() {
  # NoNewPrivs follows the config, not a default: false in the config -> 0 in init and in exec,
  # and exec --no-new-privs sets it
  CFG='.process.noNewPrivileges = false' running b "$(newid nnp)"
  assert_match "$(grep NoNewPrivs "/proc/$PID/status")" '[[:space:]]0$' "init's NoNewPrivs (config false)"
  ex "$ID" grep NoNewPrivs /proc/self/status
  assert_rc 0
  assert_match "$OUT" '^NoNewPrivs:[[:space:]]+0$' "exec's NoNewPrivs (config false)"
  ex --no-new-privs "$ID" grep NoNewPrivs /proc/self/status
  assert_match "$OUT" '^NoNewPrivs:[[:space:]]+1$' "exec --no-new-privs"
  CFG='.process.noNewPrivileges = true' running b2 "$(newid nnp2)"
  ex "$ID" grep NoNewPrivs /proc/self/status
  assert_match "$OUT" '^NoNewPrivs:[[:space:]]+1$' "exec's NoNewPrivs (config true)"
}

case_rlimits() {
  # values the runtime itself does not run with, so an exec that forgets them differs
  CFG='.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 123, "hard": 456},
                           {"type": "RLIMIT_CORE", "soft": 0, "hard": 4096},
                           {"type": "RLIMIT_NPROC", "soft": 777, "hard": 888}]' running b "$(newid rl)"
  ex "$ID" cat /proc/self/limits
  assert_rc 0
  assert_eq "$(<"/proc/$PID/limits")" "$OUT" "/proc/self/limits of exec vs /proc/<init>/limits"
  assert_match "$OUT" 'Max open files[[:space:]]+123[[:space:]]+456[[:space:]]' "NOFILE in exec"
  assert_match "$OUT" 'Max processes[[:space:]]+777[[:space:]]+888[[:space:]]' "NPROC in exec"
}

case_exit_codes() {
  running b "$(newid rc)"
  ex "$ID" sh -c 'exit 5'
  assert_rc 5 "exec sh -c 'exit 5'"
  ex "$ID" true
  assert_rc 0 "exec true"
  ex "$ID" sh -c 'kill -KILL $$'
  assert_rc 137 "exec of a process killed by SIGKILL (128+9)"
  ex "$ID" sh -c 'kill -TERM $$'
  assert_rc 143 "exec of a process killed by SIGTERM (128+15)"
  [ "$(status_of "$ID")" = running ] || fail "container not running after the execs: $(status_of "$ID")"
}

case_detach_pid_file() {
  local p2 i
  running b "$(newid det)"
  ex --detach --pid-file "$CASEDIR/exec.pid" "$ID" sleep 300
  assert_rc 0 "exec --detach"
  [ -s "$CASEDIR/exec.pid" ] || fail "no pid file written"
  p2=$(<"$CASEDIR/exec.pid")
  assert_match "$p2" '^[0-9]+$' "pid file content"
  assert_ne "$PID" "$p2" "exec pid vs init pid"
  [ -d "/proc/$p2" ] || fail "process $p2 from the pid file does not exist"
  assert_eq "$(readlink "/proc/$PID/ns/pid")" "$(readlink "/proc/$p2/ns/pid")" "pid namespace of the detached exec vs init's"
  assert_eq "sleep 300" "$(tr '\0' ' ' <"/proc/$p2/cmdline" | sed 's/ $//')" "its command line"
  assert_match "$(sed -n 's/^State:[[:space:]]*//p' "/proc/$p2/status")" '^[RS]' "its state (running, not a zombie)"
  # still alive a moment later (detach did not take it down with the runtime)
  sleep 0.3
  [ -d "/proc/$p2" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$p2/status" || fail "detached exec died"
  # and the container sees it
  ex "$ID" ps
  assert_line "$OUT" 'sleep 300' "ps inside the container"
}

case_process_json() {
  local pj
  running b "$(newid pj)"
  pj=$CASEDIR/process.json
  cat >"$pj" <<'EOF'
{
  "terminal": false,
  "user": { "uid": 1000, "gid": 1001, "additionalGids": [10, 20] },
  "args": [ "sh", "-c", "echo \"foo=$FOO\"; echo \"term=$TERM\"; pwd; id -u; id -g; id -G; ulimit -n; grep -E '^(CapBnd|CapEff|NoNewPrivs)' /proc/self/status" ],
  "env": [ "PATH=/bin", "FOO=from process.json" ],
  "cwd": "/srv",
  "capabilities": {
    "bounding": [ "CAP_KILL" ], "effective": [ "CAP_KILL" ], "permitted": [ "CAP_KILL" ]
  },
  "rlimits": [ { "type": "RLIMIT_NOFILE", "soft": 77, "hard": 77 } ],
  "noNewPrivileges": true
}
EOF
  mkdir -p "$B/rootfs/srv"
  ex --process "$pj" "$ID"
  assert_rc 0
  local l; mapfile -t l <<<"$OUT"
  assert_eq "foo=from process.json" "${l[0]}" "env from process.json"
  assert_eq "term=" "${l[1]}" "env is process.json's only (the config's TERM is not merged in)"
  assert_eq /srv "${l[2]}" "cwd"
  assert_eq 1000 "${l[3]}" "uid"
  assert_eq 1001 "${l[4]}" "gid"
  assert_eq "10 20 1001" "$(tr ' ' '\n' <<<"${l[5]}" | sort -n | tr '\n' ' ' | sed 's/ $//')" "groups (sorted)"
  assert_eq 77 "${l[6]}" "rlimit NOFILE"
  assert_line "$OUT" '^CapBnd:[[:space:]]+0000000000000020$' "bounding set = CAP_KILL only"
  assert_line "$OUT" '^CapEff:[[:space:]]+0000000000000000$' "uid 1000 without ambient keeps no effective caps"
  assert_line "$OUT" '^NoNewPrivs:[[:space:]]+1$' "noNewPrivileges"
}

case_process_sched_ioprio() {
  # applied to the exec'd process as to init (runc 1.2+, crun): seen from inside, the policy in
  # field 41 of /proc/self/stat (5: SCHED_IDLE) and the I/O class (busybox ionice)
  known_fail runc   # runc 1.1 has no process.scheduler or process.ioPriority (added in 1.2)
  local pj
  running b "$(newid sched)"
  pj=$CASEDIR/process.json
  cat >"$pj" <<'EOF'
{
  "user": { "uid": 0, "gid": 0 },
  "args": [ "sh", "-c", "sed 's/.*) //' /proc/self/stat | cut -d' ' -f39; ionice" ],
  "env": [ "PATH=/bin" ],
  "cwd": "/",
  "scheduler": { "policy": "SCHED_IDLE" },
  "ioPriority": { "class": "IOPRIO_CLASS_IDLE", "priority": 0 }
}
EOF
  ex --process "$pj" "$ID"
  assert_rc 0
  assert_eq 5 "$(sed -n 1p <<<"$OUT")" "scheduling policy SCHED_IDLE (5) inside"
  assert_eq idle "$(sed -n 2p <<<"$OUT")" "I/O priority class inside"
}

case_cli_overrides() {
  local gs
  running b "$(newid cli)"
  mkdir -p "$B/rootfs/work"
  ex --env FOO=bar --env 'PATH=/bin' --cwd /work --user 1000:1000 --additional-gids 10 --additional-gids 20 \
    "$ID" sh -c 'echo "foo=$FOO"; echo "path=$PATH"; echo "term=$TERM"; pwd; id -u; id -g; id -G; grep ^Groups: /proc/self/status'
  assert_rc 0
  local l; mapfile -t l <<<"$OUT"
  assert_eq foo=bar "${l[0]}" "--env FOO=bar"
  assert_eq path=/bin "${l[1]}" "--env overrides the config's PATH"
  assert_eq term=xterm "${l[2]}" "the config's env is kept (TERM=xterm)"
  assert_eq /work "${l[3]}" "--cwd"
  assert_eq 1000 "${l[4]}" "--user uid"
  assert_eq 1000 "${l[5]}" "--user gid"
  gs=$(tr ' ' '\n' <<<"${l[6]}" | sort -n | tr '\n' ' ' | sed 's/ $//')
  assert_eq "10 20 1000" "$gs" "id -G with --additional-gids 10 20"
  gs=$(sed -n 's/^Groups:[[:space:]]*//p' <<<"$OUT" | tr -s ' \t' '\n' | grep . | sort -n | tr '\n' ' ' | sed 's/ $//')
  assert_eq "10 20" "$gs" "Groups: in /proc/self/status"
  # control: without the flags, the config's user, cwd and env
  ex "$ID" sh -c 'echo "foo=$FOO"; pwd; id -u'
  assert_eq $'foo=\n/\n0' "$OUT" "exec without overrides"
}

case_cap_added() {
  local eff inh amb
  running b "$(newid cap)" sh -c ': >/tmp/f; exec sleep 600'
  ex "$ID" sh -c 'chown 1 /tmp/f && echo chowned || echo refused'
  assert_eq refused "$OUT" "control: chown without --cap"
  ex --cap CAP_CHOWN "$ID" sh -c 'chown 1 /tmp/f && echo chowned || echo refused; cat /proc/self/status'
  assert_rc 0
  assert_line "$OUT" '^chowned$' "chown with --cap CAP_CHOWN"
  eff=$(status_field "$OUT" CapEff); inh=$(status_field "$OUT" CapInh); amb=$(status_field "$OUT" CapAmb)
  echo "CapEff=$eff CapInh=$inh CapAmb=$amb"
  has_cap "$eff" $CAP_CHOWN || fail "CAP_CHOWN missing from CapEff $eff"
  has_cap "$(status_field "$OUT" CapBnd)" $CAP_CHOWN || fail "CAP_CHOWN missing from CapBnd"
  # CVE-2022-27650: never inheritable or ambient (they would survive into an execve'd
  # non-root program or a file with inheritable file caps)
  assert_eq 0000000000000000 "$inh" "CapInh with --cap"
  assert_eq 0000000000000000 "$amb" "CapAmb with --cap"
}

case_preserve_fds() {
  local f=$CASEDIR/fd3.txt
  running b "$(newid fds)"
  echo "through fd 3" >"$f"
  ex --preserve-fds 1 "$ID" sh -c 'cat <&3' 3<"$f"
  assert_rc 0
  assert_eq "through fd 3" "$OUT" "reading fd 3 with --preserve-fds 1"
  # without it, fd 3 is not passed, and nothing else but 0, 1, 2 is open
  ex "$ID" sh -c 'cat <&3 2>/dev/null && echo fd3-open || echo fd3-closed' 3<"$f"
  assert_eq fd3-closed "$OUT" "fd 3 without --preserve-fds"
  ex "$ID" ls /proc/self/fd 3<"$f" 4<"$f"
  assert_rc 0
  # ls itself opens one fd for the directory it lists
  assert_match "$(tr '\n' ' ' <<<"$OUT")" '^0 1 2 ([0-9]+ )?$' "open fds in exec without --preserve-fds"
}

case_missing_binary() {
  running b "$(newid miss)"
  ex "$ID" /no/such-binary-xyz arg
  assert_ne 0 "$RC" "exit code of exec of a missing binary"
  assert_contains "$ERR" "such-binary-xyz" "the error names the binary"
  ex "$ID" no-such-cmd-xyz
  assert_ne 0 "$RC" "exit code of exec of a command not in PATH"
  assert_contains "$ERR" "no-such-cmd-xyz" "the error names the command"
  # nothing was left behind: the container still runs, only init inside
  assert_eq running "$(status_of "$ID")" "container status afterwards"
  # (builtins only: this sh forks nothing while it lists)
  ex "$ID" sh -c 'for p in /proc/[0-9]*; do read -r c <"$p/comm" && echo "$c"; done'
  assert_eq $'sh\nsleep' "$(LC_ALL=C sort <<<"$OUT")" "processes in the container (init's sleep and this sh)"
}

case_stopped() {
  local id
  id=$(newid stop)
  new_bundle b true >/dev/null
  start_detached "$B" "$id"
  wait_status "$id" stopped
  ex "$id" true
  assert_ne 0 "$RC" "exec into a stopped container"
  assert_match "$ERR" 'stopped|not running' "the error says why"
  # control: the same exec into a running container works
  running b2 "$(newid run)"
  ex "$ID" true
  assert_rc 0 "control: exec into a running container"
}

case_paused() {
  local i epid
  running b "$(newid pause)"
  _run_cmd rt pause "$ID"
  [ "$CMD_RC" = 0 ] || fail "pause failed: $CMD_OUT"
  assert_eq paused "$(status_of "$ID")" "status after pause"
  ex "$ID" sh -c 'echo ran'
  assert_ne 0 "$RC" "exec into a paused container"
  assert_not_contains "$OUT" ran "the process did not run"
  assert_match "$ERR" 'paused' "the error says why"
  # with --ignore-paused the exec is accepted: it runs once the container is resumed (and does
  # not hold up the resume while it waits)
  { local rc=0; RT_TIMEOUT=8 rt exec --ignore-paused "$ID" sh -c 'echo ran' >"$CASEDIR/ip.out" 2>"$CASEDIR/ip.err" || rc=$?
    echo "$rc" >"$CASEDIR/ip.rc"; } &
  epid=$!
  sleep 0.5
  [ ! -s "$CASEDIR/ip.out" ] || fail "the exec ran inside a frozen container: $(<"$CASEDIR/ip.out")"
  _run_cmd timeout -k 1 5 "$RUNTIME" "${RT_EXTRA[@]}" --root "$STATE" resume "$ID"
  [ "$CMD_RC" = 0 ] || fail "resume with an exec --ignore-paused pending: exit $CMD_RC (124: it hung) $CMD_OUT"
  for ((i = 0; i < 100; i++)); do [ -s "$CASEDIR/ip.rc" ] && break; sleep 0.05; done
  [ -s "$CASEDIR/ip.rc" ] || fail "exec --ignore-paused still running 5 s after resume"
  assert_eq 0 "$(cat "$CASEDIR/ip.rc" 2>/dev/null)" "exit code of exec --ignore-paused ($(<"$CASEDIR/ip.err"))"
  assert_eq ran "$(<"$CASEDIR/ip.out")" "output of exec --ignore-paused after resume"
}

case_exec_does_not_block_pause() {
  # a foreground exec that is still running must not hold up pause/resume (the shim pauses
  # containers with live execs, e.g. `docker pause` during `docker exec`)
  local t0 i
  running b "$(newid pblk)"
  { local rc=0; RT_TIMEOUT=10 rt exec "$ID" sleep 4 >"$CASEDIR/fg.out" 2>&1 || rc=$?; echo "$rc" >"$CASEDIR/fg.rc"; } &
  sleep 0.5
  t0=$SECONDS
  _run_cmd rt pause "$ID"
  [ "$CMD_RC" = 0 ] || fail "pause with a running exec failed (exit $CMD_RC): $CMD_OUT"
  [ $((SECONDS - t0)) -le 2 ] || fail "pause took $((SECONDS - t0)) s: it waited for the foreground exec"
  assert_eq paused "$(status_of "$ID")" "status after pause"
  [ ! -s "$CASEDIR/fg.rc" ] || fail "the exec ended while the container was paused: exit $(<"$CASEDIR/fg.rc")"
  t0=$SECONDS
  assert_ok rt resume "$ID"
  [ $((SECONDS - t0)) -le 2 ] || fail "resume took $((SECONDS - t0)) s"
  for ((i = 0; i < 160; i++)); do [ -s "$CASEDIR/fg.rc" ] && break; sleep 0.05; done
  assert_eq 0 "$(cat "$CASEDIR/fg.rc" 2>/dev/null)" "exit code of the foreground exec ($(<"$CASEDIR/fg.out"))"
}

case_stdin() {
  running b "$(newid in)"
  echo hi | rt exec "$ID" cat >"$CASEDIR/in.out" 2>"$CASEDIR/in.err" || fail "exec cat failed: $(<"$CASEDIR/in.err")"
  assert_eq hi "$(<"$CASEDIR/in.out")" "echo hi | exec cat"
  # EOF passes through too: wc ends and counts every line
  printf 'a\nb\nc\n' | rt exec "$ID" wc -l >"$CASEDIR/in2.out" 2>&1 || fail "exec wc failed: $(<"$CASEDIR/in2.out")"
  assert_eq 3 "$(tr -d ' ' <"$CASEDIR/in2.out")" "lines counted by wc -l in exec"
}

tcase "exec joins every namespace of init" case_namespaces
tcase "exec is in init's cgroup" case_cgroup
tcase "exec is bound by the config's seccomp rule (mkdir -> ENOSYS)" case_seccomp
tcase "exec has init's capabilities (CAP_CHOWN absent: chown fails; sets equal)" case_capabilities
tcase "exec has init's NoNewPrivs (0 when the config says false); --no-new-privs" case_no_new_privs
tcase "exec has init's rlimits" case_rlimits
tcase "exec exit codes: 5, 0, 137 (SIGKILL), 143 (SIGTERM)" case_exit_codes
tcase "exec --detach --pid-file: a running host pid in init's pid namespace" case_detach_pid_file
tcase "exec --process process.json: args, env, cwd, user, groups, caps, rlimits, noNewPrivileges" case_process_json
tcase "exec --process scheduler SCHED_IDLE and ioPriority IOPRIO_CLASS_IDLE take effect" case_process_sched_ioprio
tcase "exec --env, --cwd, --user 1000:1000, --additional-gids" case_cli_overrides
tcase "exec --cap CAP_CHOWN: effective, never inheritable or ambient (CVE-2022-27650)" case_cap_added
tcase "exec --preserve-fds 1 passes fd 3; without it only 0, 1, 2" case_preserve_fds
tcase "exec of a missing binary fails naming it" case_missing_binary
tcase "exec into a stopped container fails" case_stopped
tcase "exec into a paused container fails unless --ignore-paused" case_paused
tcase "a running foreground exec does not block pause/resume" case_exec_does_not_block_pause
tcase "exec passes stdin through" case_stdin
finish
