#!/usr/bin/env bash
# Lifecycle: create/start/state/kill/delete/run/list, exit codes, stdio, the CLI forms real clients use.
. "$(dirname "$0")/../lib.sh"

# a long-running init that exits cleanly on SIGTERM (pid 1 in a pid namespace ignores signals it
# has no handler for)
SLEEPER=(sh -c 'trap "exit 0" TERM; while :; do sleep 0.05; done')

case_create_state() {
  local b id pid
  b=$(new_bundle b sleep 1000)
  id=$(newid life)
  must_create "$b" "$id"
  assert_eq created "$(status_of "$id")" "status after create"
  wait_file "$CASEDIR/$id.pid" 1
  pid=$(<"$CASEDIR/$id.pid")
  assert_match "$pid" '^[0-9]+$' "pid file content"
  assert_eq "$pid" "$(pid_of "$id")" "state pid vs pid file"
  [ -d "/proc/$pid" ] || fail "process $pid from the pid file does not exist"
  # the process is in the container's cgroup and is not yet running the user's program
  assert_contains "$(cat "/proc/$pid/cgroup")" "$CGPARENT/$id" "init's cgroup"
  assert_not_contains "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "sleep 1000" "init before start"
}

case_start_running() {
  local b id pid
  b=$(new_bundle b sleep 1000)
  id=$(newid life)
  must_create "$b" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  must_start "$id"
  assert_eq running "$(status_of "$id")" "status after start"
  # the same process now runs the configured program
  local i cmd=""
  for i in $(seq 50); do
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
    [ "$cmd" = "sleep 1000 " ] && break
    sleep 0.02
  done
  assert_eq "sleep 1000 " "$cmd" "cmdline of the pid after start"
}

kill_with() {
  local sig=$1 b id pid
  b=$(new_bundle b sleep 1000)
  id=$(newid life)
  start_detached "$b" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  assert_ok rt kill "$id" "$sig"
  wait_status "$id" stopped 5
  local i
  for i in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.02; done
  [ ! -d "/proc/$pid" ] || grep -q '^State:.*Z' "/proc/$pid/status" || fail "process $pid still alive after kill $sig"
  assert_ok rt delete "$id"
  assert_fail rt state "$id"
}
case_kill_SIGKILL() { kill_with SIGKILL; }
case_kill_KILL() { kill_with KILL; }
case_kill_9() { kill_with 9; }

term_with() {
  local sig=$1 b id
  b=$(new_bundle b "${SLEEPER[@]}")
  id=$(newid term)
  start_detached "$b" "$id"
  assert_ok rt kill "$id" "$sig"
  wait_status "$id" stopped 5
}
case_kill_sigterm() {
  known_fail crun   # crun 1.8.1 takes signal names in upper case only
  term_with sigterm
}
case_kill_TERM() { term_with TERM; }
case_kill_15() { term_with 15; }

case_kill_default_is_term() {
  local b id
  b=$(new_bundle b "${SLEEPER[@]}")
  id=$(newid term)
  start_detached "$b" "$id"
  assert_ok rt kill "$id"
  wait_status "$id" stopped 5
}

case_kill_all() {
  local b id
  b=$(new_bundle b "${SLEEPER[@]}")
  id=$(newid all)
  start_detached "$b" "$id"
  assert_ok rt kill --all "$id" KILL
  wait_status "$id" stopped 5
  assert_ok rt delete "$id"
  b=$(new_bundle b2 "${SLEEPER[@]}")
  id=$(newid all-a)
  start_detached "$b" "$id"
  assert_ok rt kill -a "$id" KILL
  wait_status "$id" stopped 5
}

# The container exited and its cgroup went with it (systemd removes a scope's cgroup once it
# empties, under --systemd-cgroup); containerd's shim still sends kill --all (a pod sandbox that
# exited): nothing is left to signal, and it succeeds, as runc's does.
case_kill_all_cgroup_gone() {
  local b id d
  b=$(new_bundle b true)
  id=$(newid gone)
  start_detached "$b" "$id"
  wait_status "$id" stopped 5
  for d in $(cgroup_dirs "$id"); do rmdir "$d"; done
  assert_eq "" "$(cgroup_dirs "$id")" "the container's cgroup removed"
  assert_ok rt kill --all "$id" KILL
  assert_ok rt delete "$id"
}

case_exits_on_its_own() {
  local b id
  b=$(new_bundle b sh -c 'sleep 0.2; exit 3')
  id=$(newid own)
  start_detached "$b" "$id"
  wait_status "$id" stopped 5
  assert_ok rt delete "$id"
  assert_fail rt state "$id"
}

case_stopped_pid_zero() {
  local b id
  b=$(new_bundle b true)
  id=$(newid pid0)
  start_detached "$b" "$id"
  wait_status "$id" stopped 5
  assert_eq 0 "$(pid_of "$id")" "state pid once stopped"
}

case_state_fields() {
  local b id js k
  b=$(new_bundle b sleep 1000)
  id=$(newid fields)
  must_create "$b" "$id"
  js=$(rt state "$id")
  assert_eq "$id" "$(jq -r .id <<<"$js")" "state .id"
  assert_eq "$b" "$(jq -r .bundle <<<"$js")" "state .bundle"
  assert_match "$(jq -r .ociVersion <<<"$js")" '^1\.' "state .ociVersion"
  assert_match "$(jq -r .created <<<"$js")" '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T' "state .created"
  for k in ociVersion id pid status bundle rootfs created owner; do
    assert_eq true "$(jq "has(\"$k\")" <<<"$js")" "state has .$k"
  done
}

case_state_annotations() {
  local b id js
  b=$(new_bundle b sleep 1000)
  cfg "$b" '.annotations = {"org.example.k": "v1"}'
  id=$(newid ann)
  must_create "$b" "$id"
  js=$(rt state "$id")
  assert_eq v1 "$(jq -r '.annotations["org.example.k"]' <<<"$js")" "state .annotations"
}

case_run_exit_code() {
  local b
  b=$(new_bundle b sh -c 'exit 42')
  run_in "$b"
  assert_rc 42 "run exit code"
  b=$(new_bundle b0 true)
  run_in "$b"
  assert_rc 0 "run exit code"
}

case_run_exit_by_signal() {
  local b
  # not pid 1: init of a pid namespace cannot be SIGKILLed from inside
  b=$(new_bundle b sh -c 'kill -9 $$')
  cfg "$b" 'del(.linux.namespaces[] | select(.type == "pid"))'
  run_in "$b"
  assert_rc 137 "run of a process killed by SIGKILL"
}

case_run_removes_container() {
  local b id
  b=$(new_bundle b true)
  id=$(newid gone)
  run_in "$b" "$id"
  assert_rc 0
  assert_fail rt state "$id"
  [ -z "$(cgroup_dirs "$id")" ] || fail "cgroup dir left after run: $(cgroup_dirs "$id")"
}

case_run_detach() {
  local b id t0 us
  b=$(new_bundle b sleep 1000)
  id=$(newid det)
  _cgpath_for "$b" "$id"
  t0=${EPOCHREALTIME/./}
  assert_ok rt run --detach --bundle "$b" --pid-file "$CASEDIR/$id.pid" "$id" </dev/null
  us=$(( ${EPOCHREALTIME/./} - t0 ))
  [ "$us" -lt 5000000 ] || fail "run --detach took ${us}us: it did not return"
  assert_eq running "$(status_of "$id")"
  assert_eq "$(<"$CASEDIR/$id.pid")" "$(pid_of "$id")" "pid file of run --detach"
  assert_ok rt kill "$id" KILL
  wait_status "$id" stopped
}

case_stdout_stderr() {
  local b
  b=$(new_bundle b sh -c 'echo to-stdout; echo to-stderr >&2')
  run_in "$b"
  assert_rc 0
  assert_eq to-stdout "$OUT" "stdout"
  assert_contains "$ERR" to-stderr "stderr"
  assert_not_contains "$OUT" to-stderr "stdout"
}

case_stdin_piped() {
  local b
  b=$(new_bundle b cat)
  run_in "$b" <<<$'line one\nline two'
  assert_rc 0
  assert_eq $'line one\nline two' "$OUT" "cat of piped stdin"
}

case_stdio_through_create() {
  # create/start: the container writes to the stdio the caller gave to `create`
  local b id
  b=$(new_bundle b sh -c 'echo via-create; echo err-create >&2')
  id=$(newid cs)
  start_detached "$b" "$id"
  wait_status "$id" stopped
  assert_eq via-create "$(<"$CASEDIR/$id.out")" "stdout of create"
  assert_contains "$(<"$CASEDIR/$id.err")" err-create "stderr of create"
}

case_delete_created() {
  local b id pid
  b=$(new_bundle b sleep 1000)
  id=$(newid del)
  must_create "$b" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  assert_ok rt delete "$id"
  assert_fail rt state "$id"
  local i
  for i in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.02; done
  [ ! -d "/proc/$pid" ] || grep -q '^State:.*Z' "/proc/$pid/status" || fail "init $pid survived delete"
  [ -z "$(cgroup_dirs "$id")" ] || fail "cgroup left after delete: $(cgroup_dirs "$id")"
}

case_delete_running_needs_force() {
  local b id
  b=$(new_bundle b sleep 1000)
  id=$(newid delrun)
  start_detached "$b" "$id"
  assert_fail rt delete "$id"
  assert_eq running "$(status_of "$id")" "status after refused delete"
  assert_ok rt delete --force "$id"
  assert_fail rt state "$id"
}

case_delete_force_unknown() {
  assert_ok rt delete --force "no-such-container-$$"
}

case_delete_unknown_fails() {
  assert_fail rt delete "no-such-container-$$"
}

case_start_twice_fails() {
  local b id
  b=$(new_bundle b sleep 1000)
  id=$(newid twice)
  start_detached "$b" "$id"
  assert_fail rt start "$id"
  assert_eq running "$(status_of "$id")"
}

case_list() {
  local b id out
  b=$(new_bundle b sleep 1000)
  id=$(newid listed)
  must_create "$b" "$id"
  out=$(rt list)
  assert_contains "$out" "$id" "list"
  assert_match "$out" "$id[[:space:]]+[0-9]+[[:space:]]+created" "list row"
  out=$(rt list -q)
  assert_eq "$id" "$out" "list -q"
  out=$(rt list --format json)
  assert_eq "$id" "$(jq -r '.[].id' <<<"$out")" "list --format json ids"
  assert_eq created "$(jq -r '.[0].status' <<<"$out")" "list --format json status"
  assert_eq "$(<"$CASEDIR/$id.pid")" "$(jq -r '.[0].pid' <<<"$out")" "list --format json pid"
}

case_list_empty() {
  local out
  out=$(rt list -q)
  assert_eq "" "$out" "list -q with no container"
  out=$(rt list --format json)
  assert_eq 0 "$(jq length <<<"$out")" "list --format json with no container"
}

case_flag_equals_value() {
  local b id
  b=$(new_bundle b sleep 1000)
  id=$(newid eq)
  _cgpath_for "$b" "$id"
  echo "$id" >>"$CASEDIR/.ids"
  assert_ok rt_raw --root="$STATE" create --bundle="$b" --pid-file="$CASEDIR/$id.pid" "$id" </dev/null
  assert_eq created "$(rt_raw --root="$STATE" state "$id" | jq -r .status)" "state via --root="
  assert_eq "$(<"$CASEDIR/$id.pid")" "$(pid_of "$id")" "--pid-file="
  assert_ok rt_raw --root="$STATE" delete --force "$id"
  assert_fail rt state "$id"
}

case_root_isolated() {
  # a container made with one --root is invisible with another
  local b id other=$CASEDIR/other-root
  mkdir -p "$other"
  b=$(new_bundle b sleep 1000)
  id=$(newid iso)
  must_create "$b" "$id"
  assert_fail rt_raw --root "$other" state "$id"
}

tcase "create: status created, state pid = --pid-file pid, init exists in its cgroup" case_create_state
tcase "start: status running, init execs the configured args" case_start_running
tcase "kill SIGKILL -> stopped, delete -> state fails" case_kill_SIGKILL
tcase "kill KILL -> stopped" case_kill_KILL
tcase "kill 9 -> stopped" case_kill_9
tcase "kill sigterm (lower case) -> stopped" case_kill_sigterm
tcase "kill TERM -> stopped" case_kill_TERM
tcase "kill 15 -> stopped" case_kill_15
tcase "kill without a signal sends SIGTERM" case_kill_default_is_term
tcase "kill --all and -a" case_kill_all
tcase "kill --all of a stopped container whose cgroup is gone succeeds" case_kill_all_cgroup_gone
tcase "a process that exits on its own -> stopped" case_exits_on_its_own
tcase "state pid is 0 once stopped" case_stopped_pid_zero
tcase "state has ociVersion, id, pid, status, bundle, rootfs, created, owner" case_state_fields
tcase "state reports annotations" case_state_annotations
tcase "run returns the process exit code (42, 0)" case_run_exit_code
tcase "run returns 128+N for a process killed by signal N" case_run_exit_by_signal
tcase "run deletes the container when the process exits" case_run_removes_container
tcase "run --detach returns with the container running" case_run_detach
tcase "stdout and stderr pass through separately" case_stdout_stderr
tcase "stdin passes through (cat)" case_stdin_piped
tcase "create passes its stdio to the container" case_stdio_through_create
tcase "delete of a created container without --force" case_delete_created
tcase "delete of a running container needs --force" case_delete_running_needs_force
tcase "delete --force of an unknown id exits 0" case_delete_force_unknown
tcase "delete of an unknown id fails" case_delete_unknown_fails
tcase "start of a running container fails" case_start_twice_fails
tcase "list, list -q, list --format json show the container" case_list
tcase "list with no container" case_list_empty
tcase "--flag=value form (--root=, --bundle=, --pid-file=)" case_flag_equals_value
tcase "--root isolates containers" case_root_isolated
finish
