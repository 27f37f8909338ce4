#!/usr/bin/env bash
# Hooks: all six kinds run, in order, each with the state JSON on stdin; args and env reach the
# hook; a failing prestart/createRuntime/createContainer hook fails create and leaves nothing
# behind; a timeout is honoured; a failing poststop hook does not block delete; a failing
# poststart hook warns for a config of runtime-spec 1.0.2 to 1.2 and, for 1.3 (runtime-spec#1262),
# fails start (or run) and stops the container.
. "$(dirname "$0")/../lib.sh"

# The hook dir H is a host dir bind-mounted at the same absolute path in the container, so one
# script works for hooks run on the host (prestart, createRuntime, poststart, poststop) and in the
# container (createContainer before pivot_root, startContainer after it). The script is POSIX sh:
# dash on the host, busybox in the container.
#
# hook_bundle NAME [ARGS...]: a bundle with H mounted; sets H.
hook_bundle() {
  local name=$1; shift
  H=$CASEDIR/hk
  mkdir -p "$H"
  chmod 0777 "$H"
  cat >"$H/hook.sh" <<'SH'
#!/bin/sh
# hook.sh NAME [EXIT_CODE [SLEEP [child]]]: log NAME, save stdin (the state) and args/env, then
# exit, or become `sleep SLEEP` (with "child": run it as a child that keeps stdout/stderr open).
dir=$(dirname "$0")
name=$1
echo "$name" >> "$dir/order"
cat > "$dir/$name.state"
echo "$*" > "$dir/$name.args"
echo "${HOOK_ENV:-unset}" > "$dir/$name.env"
echo $$ > "$dir/$name.pid"
if [ -n "$3" ]; then
  [ "$4" = child ] && { sleep "$3"; exit "${2:-0}"; }
  exec sleep "$3"
fi
exit "${2:-0}"
SH
  chmod 0755 "$H/hook.sh"
  new_bundle "$name" "$@" >/dev/null
  cfg "$B" '.mounts += [{"destination": $h, "type": "bind", "source": $h, "options": ["rbind", "rw"]}]' --arg h "$H"
  # HOOK_OCI=VERSION: the config's ociVersion (make-bundle.sh writes 1.0.2); the hook-failure
  # rules changed in runtime-spec 1.3.
  [ -z "${HOOK_OCI:-}" ] || cfg "$B" --arg v "$HOOK_OCI" '.ociVersion = $v'
}

# add_hook BUNDLE KIND [EXIT_CODE [SLEEP [TIMEOUT [child]]]]: append hook.sh as a KIND hook.
add_hook() {
  local b=$1 kind=$2 code=${3:-0} slp=${4:-} to=${5:-} mode=${6:-}
  cfg "$b" '.hooks[$k] += [{"path": ($h + "/hook.sh"),
                              "args": (["hook.sh", $k, $c] + (if $s == "" then [] else [$s] end)
                                       + (if $m == "" then [] else [$m] end)),
                              "env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOOK_ENV=from-config"]}
                             + (if $t == "" then {} else {"timeout": ($t | tonumber)} end)]' \
    --arg k "$kind" --arg h "$H" --arg c "$code" --arg s "$slp" --arg t "$to" --arg m "$mode"
}

ALL_KINDS="prestart createRuntime createContainer startContainer poststart poststop"

order() { tr '\n' ' ' <"$H/order" 2>/dev/null | sed 's/ $//'; }

# run_all_hooks: a sleeping container with all six kinds, taken through create, start, kill,
# delete; sets ID, PID and the order after each step (AFTER_CREATE, AFTER_START, AFTER_DELETE).
run_all_hooks() {
  local k
  hook_bundle b sleep 1000
  for k in $ALL_KINDS; do add_hook "$B" "$k"; done
  ID=$(newid hooks)
  must_create "$B" "$ID"
  PID=$(<"$CASEDIR/$ID.pid")
  AFTER_CREATE=$(order)
  must_start "$ID"
  AFTER_START=$(order)
  assert_ok rt kill "$ID" KILL
  wait_status "$ID" stopped
  assert_ok rt delete "$ID"
  AFTER_DELETE=$(order)
  echo "after create: $AFTER_CREATE"
  echo "after start:  $AFTER_START"
  echo "after delete: $AFTER_DELETE"
}

case_all_run_once() {
  local k pos
  run_all_hooks
  for k in $ALL_KINDS; do
    assert_eq 1 "$(grep -cx "$k" "$H/order")" "times the $k hook ran"
  done
  # the create hooks come first and in their order, poststop last
  assert_match "$AFTER_CREATE" '^prestart createRuntime createContainer' "hooks run by create"
  assert_match "$AFTER_DELETE" ' poststop$' "last hook"
  assert_match "$AFTER_START" 'startContainer' "startContainer has run once start returns"
}

case_spec_order() {
  known_fail runc crun   # runc 1.1 runs poststart hooks at create, before startContainer;
                         # crun 1.8.1 races poststart against startContainer (passes sometimes)
  run_all_hooks
  assert_eq "prestart createRuntime createContainer" "$AFTER_CREATE" "hooks run by create"
  assert_eq "prestart createRuntime createContainer startContainer poststart" "$AFTER_START" "hooks run by start"
  assert_eq "$ALL_KINDS" "$AFTER_DELETE" "hooks after delete"
}

case_state_on_stdin() {
  known_fail crun   # crun 1.8.1 passes pid 0 to createContainer hooks
  local k js
  run_all_hooks
  for k in $ALL_KINDS; do
    js=$(cat "$H/$k.state" 2>/dev/null || true)
    echo "$k: $js"
    assert_eq "$ID" "$(jq -r .id <<<"$js" 2>/dev/null)" "$k state .id"
    assert_eq "$B" "$(jq -r .bundle <<<"$js" 2>/dev/null)" "$k state .bundle"
    assert_match "$(jq -r .ociVersion <<<"$js" 2>/dev/null)" '^1\.' "$k state .ociVersion"
    assert_match "$(jq -r .status <<<"$js" 2>/dev/null)" '^(creating|created|running|stopped)$' "$k state .status"
    case $k in
      poststop) ;;
      createContainer|startContainer)  # run inside the container: runc reports the pid seen there
        assert_match "$(jq -r .pid <<<"$js" 2>/dev/null)" "^($PID|1)\$" "$k state .pid" ;;
      *) assert_eq "$PID" "$(jq -r .pid <<<"$js" 2>/dev/null)" "$k state .pid" ;;
    esac
  done
}

case_state_status_per_hook() {
  # runtime-spec: creating for the create hooks, created for startContainer, running for
  # poststart, stopped for poststop; pid is the host's view of the container process
  known_fail runc crun   # runc 1.1: poststart at create (status created), pid 1 in container hooks;
                         # crun 1.8.1: status created in the create hooks, pid 0 in createContainer
  local k want js
  run_all_hooks
  for k in $ALL_KINDS; do
    case $k in
      prestart|createRuntime|createContainer) want=creating ;;
      startContainer) want=created ;;
      poststart) want=running ;;
      poststop) want=stopped ;;
    esac
    js=$(cat "$H/$k.state" 2>/dev/null || true)
    assert_eq "$want" "$(jq -r .status <<<"$js" 2>/dev/null)" "$k state .status"
    [ "$k" = poststop ] || assert_eq "$PID" "$(jq -r .pid <<<"$js" 2>/dev/null)" "$k state .pid"
  done
}

case_args_env() {
  local id
  hook_bundle b true
  add_hook "$B" prestart 0
  add_hook "$B" startContainer 0
  run_in "$B"
  assert_rc 0
  assert_eq "prestart 0" "$(cat "$H/prestart.args" 2>&1)" "args after args[0] (host hook)"
  assert_eq from-config "$(cat "$H/prestart.env" 2>&1)" "env of a host hook"
  assert_eq "startContainer 0" "$(cat "$H/startContainer.args" 2>&1)" "args (container hook)"
  assert_eq from-config "$(cat "$H/startContainer.env" 2>&1)" "env of a container hook"
}

case_container_hooks_in_container() {
  # createContainer and startContainer run in the container's namespaces, the others do not
  local id k
  hook_bundle b true
  cat >"$H/ns.sh" <<'SH'
#!/bin/sh
echo "$1 $(readlink /proc/self/ns/mnt) $(readlink /proc/self/ns/uts)" >> "$(dirname "$0")/ns"
SH
  chmod 0755 "$H/ns.sh"
  for k in createRuntime createContainer startContainer poststart; do
    cfg "$B" '.hooks[$k] += [{"path": ($h + "/ns.sh"), "args": ["ns.sh", $k]}]' --arg k "$k" --arg h "$H"
  done
  id=$(newid hns)
  start_detached "$B" "$id"
  wait_status "$id" stopped
  local host_mnt host_uts
  host_mnt=$(host_ns mnt) host_uts=$(host_ns uts)
  cat "$H/ns"
  assert_eq "createRuntime $host_mnt $host_uts" "$(grep '^createRuntime' "$H/ns")" "createRuntime runs in the runtime's namespaces"
  assert_eq "poststart $host_mnt $host_uts" "$(grep '^poststart' "$H/ns")" "poststart runs in the runtime's namespaces"
  assert_match "$(grep '^createContainer' "$H/ns")" "^createContainer mnt:\[[0-9]+\] uts" "createContainer ran"
  assert_not_contains "$(grep '^createContainer' "$H/ns")" "$host_mnt" "createContainer's mount namespace"
  assert_not_contains "$(grep '^startContainer' "$H/ns")" "$host_mnt" "startContainer's mount namespace"
  assert_match "$(grep '^startContainer' "$H/ns")" "^startContainer mnt:" "startContainer ran"
}

failing_create_hook() {
  local kind=$1 id
  hook_bundle b sleep 1000
  add_hook "$B" "$kind" 3
  id=$(newid hfail)
  create_in "$B" "$id"
  [ "$RC" != 0 ] || fail "create succeeded though the $kind hook exited 3"
  echo "stderr: $ERR"
  assert_eq "$kind" "$(order)" "hooks run"
  assert_nothing_left "$id"
}
case_failing_prestart() { failing_create_hook prestart; }
case_failing_create_runtime() { failing_create_hook createRuntime; }
case_failing_create_container() { failing_create_hook createContainer; }

case_failing_start_container() {
  local id
  hook_bundle b sh -c 'echo user-program-ran'
  add_hook "$B" startContainer 3
  id=$(newid hsfail)
  must_create "$B" "$id"
  rt start "$id" >/dev/null 2>&1 || true
  wait_status "$id" stopped
  assert_eq startContainer "$(order)" "hooks run"
  assert_not_contains "$(cat "$CASEDIR/$id.out")" user-program-ran "the program after a failed startContainer hook"
}

case_failing_start_container_reported() {
  known_fail runc crun   # both return from start before init runs the hook
  local id
  hook_bundle b sh -c 'echo user-program-ran'
  add_hook "$B" startContainer 3
  id=$(newid hsfail)
  must_create "$B" "$id"
  assert_fail rt start "$id"
}

hook_timeout() {
  local mode=$1 slp=$2 id t0 us hpid
  hook_bundle b sleep 1000
  add_hook "$B" prestart 0 "$slp" 1 "$mode"
  id=$(newid htime)
  t0=${EPOCHREALTIME/./}
  create_in "$B" "$id"
  us=$(( ${EPOCHREALTIME/./} - t0 ))
  [ "$RC" != 0 ] || fail "create succeeded though the prestart hook timed out"
  echo "create took $((us / 1000)) ms; stderr: $ERR"
  assert_eq prestart "$(order)" "the hook ran"
  [ "$us" -lt 4000000 ] || fail "create took $((us / 1000)) ms with a 1 s hook timeout (hook sleeps $slp s)"
  hpid=$(cat "$H/prestart.pid" 2>/dev/null || true)
  if [ -n "$hpid" ]; then
    local i; for i in $(seq 50); do [ -d "/proc/$hpid" ] || break; sleep 0.05; done
    if [ -d "/proc/$hpid" ] && grep -q "$H" "/proc/$hpid/cmdline" 2>/dev/null; then
      fail "hook process $hpid still alive after its timeout"
    fi
  fi
  assert_nothing_left "$id"
}
case_hook_timeout() { hook_timeout "" 30; }
case_hook_timeout_child() {
  known_fail runc   # runc 1.1 kills the hook but then waits for its child to close the pipes
  hook_timeout child 6
}

case_failing_poststop_ignored() {
  local id
  hook_bundle b sleep 1000
  add_hook "$B" poststop 3
  id=$(newid hpost)
  start_detached "$B" "$id"
  assert_ok rt kill "$id" KILL
  wait_status "$id" stopped
  rt delete "$id" >/dev/null 2>&1 || true
  assert_eq poststop "$(order)" "poststop ran"
  assert_fail rt state "$id"
  assert_eq "" "$(cgroup_dirs "$id")" "cgroup after delete with a failing poststop hook"
}

# failing_then_next KIND: two KIND hooks, the first exits 3; the runtime-spec says a warning is
# logged and the remaining hooks and the lifecycle go on. Checks the step's exit code, that the
# second hook ran, and (ours) the warning line in the --log json.
failing_then_next() {
  local kind=$1 id log=$CASEDIR/rt.log
  hook_bundle b sleep 1000
  add_hook "$B" "$kind" 3
  add_hook "$B" "$kind" 0
  id=$(newid "h$kind")
  must_create "$B" "$id" || return 1
  _run_cmd rt --log "$log" --log-format json start "$id"
  assert_eq 0 "$CMD_RC" "start with a failing $kind hook: $CMD_OUT"
  if [ "$kind" = poststop ]; then
    assert_ok rt kill "$id" KILL
    wait_status "$id" stopped
    _run_cmd rt --log "$log" --log-format json delete "$id"
    assert_eq 0 "$CMD_RC" "delete with a failing poststop hook: $CMD_OUT"
    assert_fail rt state "$id"
  else
    assert_eq running "$(status_of "$id")" "status after a failing poststart hook"
  fi
  cat "$log" 2>/dev/null
  assert_eq "$kind $kind" "$(order)" "both $kind hooks ran"
  if [ "$OURS" = 1 ]; then
    jq -e -s --arg k "$kind" 'any(.[]; .level == "warning" and (.msg | startswith($k + " hook ")))' "$log" >/dev/null 2>&1 ||
      fail "no warning line for the failing $kind hook"
  fi
}
case_failing_poststart_next_runs() {
  known_fail runc   # runc 1.1 tears the container down and fails start instead of warning
  failing_then_next poststart
}
case_failing_poststop_next_runs() {
  known_fail runc   # runc 1.1 stops at the first failing poststop hook (the next never runs)
  failing_then_next poststop
}

# runtime-spec 1.3 (runtime-spec#1262): "If any poststart hook fails, the runtime MUST generate an
# error, stop the container, and continue the lifecycle at step 12" (its destruction, at delete).
# The remaining poststart hooks do not run; delete runs the poststop hooks and removes it all.
case_failing_poststart_1_3_stops() {
  known_fail runc crun   # runc 1.1.5 runs poststart hooks at create and fails create instead;
                         # crun 1.8.1 refuses ociVersion 1.3; crun 1.21 predates crun#1944 (warns)
  local id out
  HOOK_OCI=1.3.0 hook_bundle b sleep 1000
  add_hook "$B" poststart 3
  add_hook "$B" poststart 0
  add_hook "$B" poststop 0
  id=$(newid hps13)
  must_create "$B" "$id"
  _run_cmd rt start "$id"
  out=$CMD_OUT
  echo "start: exit $CMD_RC: $out"
  [ "$CMD_RC" != 0 ] || fail "start exited 0 though the 1.3 config's poststart hook exited 3"
  wait_status "$id" stopped 2
  assert_eq poststart "$(order)" "hooks run by start (the second poststart hook must not run)"
  assert_ok rt delete "$id"
  assert_eq "poststart poststop" "$(order)" "hooks run by start and delete"
  assert_nothing_left "$id"
  if [ "$OURS" = 1 ]; then
    assert_contains "$out" "poststart hook" "the error names the hook"
    assert_contains "$out" "runtime-spec 1.3" "the error names the rule"
  fi
}

# The same through `run`: it fails, and the container is destroyed (poststop hooks included).
case_failing_poststart_1_3_run() {
  known_fail crun   # crun 1.8.1 refuses ociVersion 1.3; crun 1.21 predates crun#1944 (warns)
  local id
  HOOK_OCI=1.3.0 hook_bundle b sleep 3
  add_hook "$B" poststart 3
  add_hook "$B" poststop 0
  id=$(newid hpsrun)
  run_in "$B" "$id"
  echo "run: exit $RC: $ERR"
  [ "$RC" != 0 ] || fail "run exited 0 though the 1.3 config's poststart hook exited 3"
  assert_eq "poststart poststop" "$(order)" "hooks run"
  assert_nothing_left "$id"
}

case_failing_poststart_warns() {
  known_fail runc   # runc 1.1 tears the container down and fails start instead of warning
  local id
  hook_bundle b sleep 1000
  add_hook "$B" poststart 3
  id=$(newid hpoststart)
  must_create "$B" "$id"
  rt start "$id" >/dev/null 2>&1 || true
  assert_eq running "$(status_of "$id")" "status after a failing poststart hook"
}

tcase "all six hook kinds run once; create hooks first, poststop last" case_all_run_once
tcase "hook order per runtime-spec (create: 3, start: +startContainer, poststart)" case_spec_order
tcase "each hook gets the state (id, pid, bundle, status) on stdin" case_state_on_stdin
tcase "state status and pid per hook kind (runtime-spec)" case_state_status_per_hook
tcase "hook args and env" case_args_env
tcase "createContainer/startContainer run in the container's namespaces" case_container_hooks_in_container
tcase "a failing prestart hook fails create, nothing left" case_failing_prestart
tcase "a failing createRuntime hook fails create, nothing left" case_failing_create_runtime
tcase "a failing createContainer hook fails create, nothing left" case_failing_create_container
tcase "a failing startContainer hook: the program never runs" case_failing_start_container
tcase "a failing startContainer hook makes start fail" case_failing_start_container_reported
tcase "a hook timeout is honoured (hook killed, create fails fast)" case_hook_timeout
tcase "a hook timeout also ends a hook whose child holds its stdio" case_hook_timeout_child
tcase "a failing poststop hook does not block delete" case_failing_poststop_ignored
tcase "a failing poststart hook only warns (runtime-spec)" case_failing_poststart_warns
tcase "a failing poststart hook: a warning, the next one runs, start succeeds" case_failing_poststart_next_runs
tcase "a failing poststop hook: a warning, the next one runs, delete succeeds" case_failing_poststop_next_runs
# The version gate: 1.2 is the last with the warning; 1.3 keeps every other hook's rule.
case_1_2_failing_poststart_next_runs() { HOOK_OCI=1.2.0 case_failing_poststart_next_runs; }
case_1_3_failing_create_runtime() { known_fail crun; HOOK_OCI=1.3.0 failing_create_hook createRuntime; }
case_1_3_failing_create_container() { known_fail crun; HOOK_OCI=1.3.0 failing_create_hook createContainer; }
case_1_3_failing_start_container() { known_fail crun; HOOK_OCI=1.3.0 case_failing_start_container; }
case_1_3_failing_poststop_next_runs() { known_fail crun; HOOK_OCI=1.3.0 case_failing_poststop_next_runs; }
tcase "ociVersion 1.2.0: a failing poststart hook warns, the next one runs, start succeeds" case_1_2_failing_poststart_next_runs
tcase "ociVersion 1.3.0: a failing poststart hook fails start and stops the container" case_failing_poststart_1_3_stops
tcase "ociVersion 1.3.0: a failing poststart hook fails run, nothing left" case_failing_poststart_1_3_run
tcase "ociVersion 1.3.0: a failing createRuntime hook fails create, nothing left" case_1_3_failing_create_runtime
tcase "ociVersion 1.3.0: a failing createContainer hook fails create, nothing left" case_1_3_failing_create_container
tcase "ociVersion 1.3.0: a failing startContainer hook: the program never runs" case_1_3_failing_start_container
tcase "ociVersion 1.3.0: a failing poststop hook: a warning, the next one runs, delete succeeds" case_1_3_failing_poststop_next_runs
finish
