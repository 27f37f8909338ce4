#!/usr/bin/env bash
# The call sequence of containerd's runc shim (runc.v2), run clean:
#   create --bundle B --pid-file P ID -> start ID -> exec --process proc.json --detach --pid-file P2 ID
#   -> ps --format json ID -> pause ID -> resume ID -> update --resources - ID (JSON on stdin)
#   -> kill ID KILL (+ kill --all ID KILL) -> delete ID -> delete --force ID (exit 0: unknown id)
# every call with `--log F --log-format json`, as the shim passes them; the log must hold only JSON
# lines and no error line (the shim shows the last error line to the user). One case per step
# (each sets the container up as far as it needs), then the whole sequence in one go. Also what
# the shim does around it: `kill --all` of a stopped container without a pid namespace ends the
# processes left in its cgroup, and kill errors carry the text the shim matches on.
. "$(dirname "$0")/../lib.sh"

MiB=$((1024 * 1024))

# srt ARGS...: the runtime as the shim calls it (global --log F --log-format json). Output into
# $CASEDIR/srtN.out/.err (never a pipe: a detached process would hold it); SRT_RC, SRT_OUT,
# SRT_ERR. stdin is the caller's.
srt() {
  local n=$(( ${_NSRT:-0} + 1 ))
  _NSRT=$n
  SRT_RC=0
  rt --log "$LOG" --log-format json "$@" >"$CASEDIR/srt$n.out" 2>"$CASEDIR/srt$n.err" || SRT_RC=$?
  SRT_OUT=$(<"$CASEDIR/srt$n.out")
  SRT_ERR=$(<"$CASEDIR/srt$n.err")
  echo "\$ $RUNTIME_NAME $* -> exit $SRT_RC${SRT_OUT:+, stdout: $SRT_OUT}${SRT_ERR:+, stderr: $SRT_ERR}"
  return 0
}

# must ARGS...: srt, and the step must exit 0.
must() {
  srt "$@"
  [ "$SRT_RC" = 0 ] || fail "$1 failed (exit $SRT_RC$(_timeout_note "$SRT_RC")): $SRT_ERR$(log_errors)"
}

# log_errors: the error lines of the log, for messages.
log_errors() {
  [ -s "$LOG" ] || return 0
  local e
  e=$(grep -F '"error"' "$LOG" | head -3)
  [ -z "$e" ] || echo "; log: $e"
}

# assert_log_clean: every line of the log is a JSON object, none of level "error".
assert_log_clean() {
  [ -e "$LOG" ] || return 0   # nothing logged at all is clean
  local bad
  bad=$(jq -R 'fromjson? // "NOT JSON: \(.)" | if type == "string" then . else empty end' "$LOG" | head -3)
  [ -z "$bad" ] || fail "log lines that are not JSON: $bad"
  bad=$(jq -R -c 'fromjson? | select(type == "object" and .level == "error")' "$LOG" | head -3)
  [ -z "$bad" ] || fail "error lines in the log: $bad"
  return 0
}

# ticks: the counter init writes every 20 ms (the rootfs is on the host: read it from here; init
# renames each value into place, so a read never sees a half-written file).
ticks() {
  local t
  t=$(cat "$B/rootfs/tmp/tick" 2>/dev/null) || true
  echo "${t:-0}"
}

# dump_procs ID: the container's freezer state and its processes' states, for a failure message.
dump_procs() {
  local d p
  for d in $(cgroup_dirs "$1"); do
    [ -e "$d/freezer.state" ] && echo "$d/freezer.state: $(<"$d/freezer.state")"
    [ -e "$d/cgroup.freeze" ] && echo "$d/cgroup.freeze: $(<"$d/cgroup.freeze")"
  done
  for d in $(cgroup_dirs "$1"); do
    for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
      echo "pid $p ($(cat "/proc/$p/comm" 2>/dev/null || true)): $(grep '^State' "/proc/$p/status" 2>/dev/null || true)"
    done
  done | sort -u
  echo "container's stdout/stderr: $(cat "$CASEDIR/$1.out" "$CASEDIR/$1.err" 2>/dev/null | tail -5)"
}

# mem_limit_file ID: the container's memory limit file on the host (v1 memory or v2).
mem_limit_file() {
  local f
  for f in "$CGROOT/memory/$CGPARENT/$1/memory.limit_in_bytes" "$CGROOT/$CGPARENT/$1/memory.max" \
           "$CGROOT/unified/$CGPARENT/$1/memory.max"; do
    [ -e "$f" ] && { echo "$f"; return 0; }
  done
  return 0
}

# up: create -> start -> exec --process --detach, as the shim does. Sets B, ID, LOG, PID (init),
# P2 (the exec'd process).
up() {
  ID=$(newid shim)
  LOG=$CASEDIR/runtime.log
  new_bundle b sh -c 'i=0; while :; do i=$((i + 1)); echo $i >/tmp/tick.new; mv -f /tmp/tick.new /tmp/tick; usleep 20000; done' >/dev/null
  _cgpath_for "$B" "$ID"
  echo "$ID" >>"$CASEDIR/.ids"
  cat >"$CASEDIR/proc.json" <<'EOF'
{
  "terminal": false,
  "user": { "uid": 0, "gid": 0 },
  "args": [ "sleep", "600" ],
  "env": [ "PATH=/usr/sbin:/usr/bin:/sbin:/bin" ],
  "cwd": "/",
  "capabilities": {
    "bounding": [ "CAP_KILL" ], "effective": [ "CAP_KILL" ], "permitted": [ "CAP_KILL" ]
  },
  "noNewPrivileges": true
}
EOF
  must create --bundle "$B" --pid-file "$CASEDIR/init.pid" "$ID" </dev/null
  PID=$(<"$CASEDIR/init.pid")
  must start "$ID"
  must exec --process "$CASEDIR/proc.json" --detach --pid-file "$CASEDIR/exec.pid" "$ID" </dev/null
  P2=$(<"$CASEDIR/exec.pid")
}

case_create_start_exec() {
  local t1
  up
  assert_match "$PID" '^[0-9]+$' "create's pid file"
  assert_match "$P2" '^[0-9]+$' "exec's pid file"
  assert_eq running "$(status_of "$ID")" "status after start"
  assert_eq "sleep 600" "$(tr '\0' ' ' <"/proc/$P2/cmdline" | sed 's/ $//')" "the exec'd process"
  assert_eq "$(readlink "/proc/$PID/ns/pid")" "$(readlink "/proc/$P2/ns/pid")" "exec'd process in init's pid namespace"
  t1=$(ticks); sleep 0.2
  [ "$(ticks)" -gt "$t1" ] || fail "init does not run (tick stays $t1)"
  assert_log_clean
}

case_ps() {
  up
  must ps --format json "$ID"
  jq -e 'type == "array"' <<<"$SRT_OUT" >/dev/null || fail "ps --format json is not a JSON array: $SRT_OUT"
  jq -e --argjson p "$PID" 'index($p) != null' <<<"$SRT_OUT" >/dev/null || fail "init pid $PID not in $SRT_OUT"
  jq -e --argjson p "$P2" 'index($p) != null' <<<"$SRT_OUT" >/dev/null || fail "exec'd pid $P2 not in $SRT_OUT"
  assert_log_clean
}

case_pause_resume() {
  local t1 t2 i
  up
  must pause "$ID"
  assert_eq paused "$(status_of "$ID")" "status after pause"
  t1=$(ticks); sleep 0.3; t2=$(ticks)
  assert_eq "$t1" "$t2" "init's counter while paused (frozen: no progress)"
  must resume "$ID"
  assert_eq running "$(status_of "$ID")" "status after resume"
  # (poll: a task thawed in the middle of its nanosleep may take a moment to tick again)
  for ((i = 0; i < 60; i++)); do [ "$(ticks)" -gt "$t2" ] && break; sleep 0.05; done
  [ "$(ticks)" -gt "$t2" ] || { dump_procs "$ID"; fail "init's counter did not move within 3 s of resume (still $(ticks))"; }
  assert_log_clean
}

case_update() {
  local f
  up
  f=$(mem_limit_file "$ID")
  [ -n "$f" ] || fail "no memory limit file for $ID under $CGROOT"
  must update --resources - "$ID" <<<"{\"memory\": {\"limit\": $((128 * MiB))}}"
  assert_eq $((128 * MiB)) "$(<"$f")" "memory limit on the host after update ($f)"
  # and from inside: the container's own cgroup view
  if [[ $f == "$CGROOT/memory/"* ]]; then
    must exec "$ID" cat /sys/fs/cgroup/memory/memory.limit_in_bytes </dev/null
    assert_eq $((128 * MiB)) "$SRT_OUT" "memory.limit_in_bytes inside the container"
  fi
  assert_log_clean
}

case_kill() {
  local i
  up
  must kill "$ID" KILL
  must kill --all "$ID" KILL
  wait_status "$ID" stopped
  for ((i = 0; i < 40; i++)); do
    [ -d "/proc/$PID" ] || [ -d "/proc/$P2" ] || break
    sleep 0.05
  done
  [ ! -d "/proc/$PID" ] || fail "init $PID still exists after kill"
  [ ! -d "/proc/$P2" ] || fail "exec'd process $P2 still exists after kill"
  assert_log_clean
}

case_kill_all_after_init_exit() {
  # Without a pid namespace, processes outlive init; containerd's shim then (shouldKillAllOnExit)
  # calls `kill --all ID KILL` on the now stopped container to end what is left in its cgroup.
  local i left
  ID=$(newid left)
  LOG=$CASEDIR/runtime.log
  new_bundle b sh -c 'sleep 600 & echo $! >/tmp/bg.new; mv /tmp/bg.new /tmp/bg; sleep 0.5' >/dev/null
  cfg "$B" 'del(.linux.namespaces[] | select(.type == "pid"))'
  _cgpath_for "$B" "$ID"
  echo "$ID" >>"$CASEDIR/.ids"
  must create --bundle "$B" --pid-file "$CASEDIR/init.pid" "$ID" </dev/null
  must start "$ID"
  wait_status "$ID" stopped
  left=$(cat "$B/rootfs/tmp/bg" 2>/dev/null) || true
  [ -n "$left" ] && [ -d "/proc/$left" ] || fail "the background sleep ($left) is not running after init exited"
  assert_eq "sleep 600" "$(tr '\0' ' ' <"/proc/$left/cmdline" | sed 's/ $//')" "the leftover process"
  must kill --all "$ID" KILL
  for ((i = 0; i < 40; i++)); do [ -d "/proc/$left" ] || break; sleep 0.05; done
  [ ! -d "/proc/$left" ] || fail "the leftover process $left survived kill --all"
  must delete "$ID"
  assert_log_clean
}

case_kill_errors_shim_recognises() {
  # The shim maps kill errors by their text (containerd pkg/process checkKillError): "container not
  # running" / "no such process" / "os: process already finished" mean the process is already gone
  # (not an error for it), "does not exist" means no such container. Anything else is reported
  # to the user as "unknown error after kill".
  ID=$(newid gone)
  LOG=$CASEDIR/runtime.log
  new_bundle b true >/dev/null
  start_detached "$B" "$ID"
  wait_status "$ID" stopped
  srt kill "$ID" KILL
  assert_ne 0 "$SRT_RC" "kill of a stopped container"
  assert_match "$SRT_ERR" 'container not running|[Nn]o such process|process already finished' \
    "kill of a stopped container: an error the shim reads as 'process already finished'"
  srt kill "no-such-$ID" KILL
  assert_ne 0 "$SRT_RC" "kill of an unknown container"
  assert_match "$SRT_ERR" 'does not exist' "kill of an unknown id: an error the shim reads as 'no such container'"
}

case_delete() {
  up
  must kill "$ID" KILL
  wait_status "$ID" stopped
  must delete "$ID"
  if rt state "$ID" >/dev/null 2>&1; then fail "state $ID still succeeds after delete"; fi
  [ -z "$(cgroup_dirs "$ID")" ] || fail "cgroup dirs left after delete: $(cgroup_dirs "$ID")"
  # the shim always deletes twice: the second, of an id that is gone, must exit 0 (and log no error)
  must delete --force "$ID"
  assert_nothing_left "$ID"
  assert_log_clean
}

case_whole_sequence() {
  local js
  up
  must ps --format json "$ID"
  js=$SRT_OUT
  jq -e --argjson a "$PID" --argjson b "$P2" 'index($a) != null and index($b) != null' <<<"$js" >/dev/null ||
    fail "ps --format json lacks $PID or $P2: $js"
  must pause "$ID"
  must resume "$ID"
  must update --resources - "$ID" <<<"{\"memory\": {\"limit\": $((128 * MiB))}}"
  must kill "$ID" KILL
  must kill --all "$ID" KILL
  wait_status "$ID" stopped
  must delete "$ID"
  must delete --force "$ID"
  assert_nothing_left "$ID"
  echo "log:"; sed 's/^/  | /' "$LOG" 2>/dev/null || true
  assert_log_clean
}

tcase "create -> start -> exec --process --detach --pid-file, with --log --log-format json" case_create_start_exec
tcase "ps --format json lists init and the exec'd process" case_ps
tcase "pause freezes (no progress), resume thaws" case_pause_resume
tcase "update --resources - (memory 128 MiB)" case_update
tcase "kill KILL, then kill --all KILL: stopped, every process gone" case_kill
tcase "kill --all after init exited ends what is left in the cgroup (no pid namespace)" case_kill_all_after_init_exit
tcase "kill errors the shim recognises (stopped: 'container not running'; unknown: 'does not exist')" case_kill_errors_shim_recognises
tcase "delete, then delete --force of the now unknown id exits 0" case_delete
tcase "the whole shim sequence, log without an error line" case_whole_sequence
finish
