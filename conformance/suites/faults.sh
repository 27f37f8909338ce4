#!/usr/bin/env bash
# Faults: the runtime dies (SIGKILL) at each step of create, start and delete, as an OOM kill or
# a crash would; afterwards `delete --force` must leave nothing: no state dir, no cgroup (in
# every v1 hierarchy and in cgroup2), no mount, no live process, and the id is free again.
# And a container whose init dies from outside (kill -9) reports `stopped`; an init killed while
# create waits on it is reported with how it died.
#
# The faults need the test binary sharness-runtime-faulty (CMake option SHARNESS_FAULT_INJECTION,
# on by default; CTest passes it as SHARNESS_RUNTIME_FAULTY): with SHARNESS_FAULT=<step> in its
# environment it SIGKILLs itself at that step (base/fault.hpp). sharness-runtime itself ignores
# SHARNESS_FAULT (checked below). Against runc/crun the fault cases skip; the others run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../leak-check.bash"

FAULTY=${SHARNESS_RUNTIME_FAULTY:-}
if [ -z "$FAULTY" ] && [ -x "$(dirname "$RUNTIME")/sharness-runtime-faulty" ] &&
   [ "$RUNTIME_NAME" = sharness-runtime ]; then
  FAULTY=$(dirname "$RUNTIME")/sharness-runtime-faulty
fi

# Every fault point (base/fault.hpp callers), in the order a command passes them.
CREATE_STEPS=(create.claimed create.config-saved create.state-saved create.cgroup-made create.cloned
  create.go-sent create.hooks-run create.init-ready create.saved create.pid-file-written)
START_STEPS=(start.connected start.sent start.released start.saved)
DELETE_STEPS=(delete.locked delete.killed delete.cgroup-removed delete.poststop-run delete.files-removed)

# rt_fault STEP ARGS...: the faulty binary with SHARNESS_FAULT=STEP, output in CMD_OUT/CMD_RC.
rt_fault() {
  local step=$1; shift
  _run_cmd env SHARNESS_FAULT="$step" timeout -k 5 "$RT_TIMEOUT" "$FAULTY" "${RT_EXTRA[@]}" --root "$STATE" "$@"
}

# fault_bundle ID: leak_bundle, plus a prestart hook (so create passes create.hooks-run) and a
# poststop hook (delete.poststop-run).
fault_bundle() {
  leak_bundle "$1"
  cfg "$B" '.hooks = {"prestart": [{"path": "/bin/true", "args": ["true"]}],
                      "poststop": [{"path": "/bin/true", "args": ["true"]}]}'
}

# expect_killed_at STEP: the last faulty call died by SIGKILL at STEP (and nowhere else).
expect_killed_at() {
  assert_eq 137 "$CMD_RC" "exit code of the runtime killed at $1 (128+SIGKILL)" || return 1
  assert_contains "$CMD_OUT" "fault injected at $1" "the fault was reached"
}

# state_is_sane ID: `state` either fails (no such container) or prints JSON with a known status;
# `list` works.
state_is_sane() {
  local js st
  if js=$(rt state "$1" 2>/dev/null); then
    st=$(jq -r .status <<<"$js") || { fail "state $1 printed unparsable JSON: $js"; return 1; }
    assert_match "$st" '^(creating|created|running|paused|stopped)$' "status of $1 after the fault"
  fi
  rt list >/dev/null || fail "list fails after the fault"
}

# cleanup_and_check ID: the ordinary binary's `delete --force` succeeds and leaves nothing; the id
# can be used again.
cleanup_and_check() {
  local id=$1
  state_is_sane "$id"
  assert_ok rt delete --force "$id"
  assert_all_gone "$id"
  must_create "$B" "$id"
  assert_eq created "$(status_of "$id")" "the id, created again"
  assert_ok rt delete --force "$id"
  assert_all_gone "$id"
}

need_faulty() { [ -n "$FAULTY" ] || skip "no sharness-runtime-faulty (SHARNESS_RUNTIME_FAULTY unset)"; }

fault_in_create() {  # STEP
  need_faulty
  local id
  id=$(newid cr)
  fault_bundle "$id"
  rt_fault "$1" create --bundle "$B" --pid-file "$CASEDIR/$id.pid" "$id" </dev/null
  expect_killed_at "$1"
  cleanup_and_check "$id"
}

fault_in_start() {  # STEP
  need_faulty
  local id
  id=$(newid st)
  fault_bundle "$id"
  must_create "$B" "$id"
  rt_fault "$1" start "$id"
  expect_killed_at "$1"
  cleanup_and_check "$id"
}

fault_in_delete() {  # STEP
  need_faulty
  local id
  id=$(newid de)
  fault_bundle "$id"
  start_detached "$B" "$id"
  assert_eq running "$(status_of "$id")"
  rt_fault "$1" delete --force "$id"
  expect_killed_at "$1"
  cleanup_and_check "$id"
}

case_release_binary_ignores_the_switch() {
  [ "$RUNTIME_NAME" = sharness-runtime ] || skip "only sharness-runtime has the switch"
  local id
  id=$(newid rel)
  fault_bundle "$id"
  _run_cmd env SHARNESS_FAULT=create.claimed "$RUNTIME" --root "$STATE" create --bundle "$B" "$id" </dev/null
  assert_eq 0 "$CMD_RC" "create with SHARNESS_FAULT under sharness-runtime: $CMD_OUT"
  assert_not_contains "$CMD_OUT" "fault injected"
  assert_eq created "$(status_of "$id")"
  _run_cmd env SHARNESS_FAULT=delete.locked "$RUNTIME" --root "$STATE" delete --force "$id"
  assert_eq 0 "$CMD_RC" "delete with SHARNESS_FAULT under sharness-runtime: $CMD_OUT"
  assert_all_gone "$id"
}

case_init_killed_when_created() {
  local id pid
  id=$(newid kc)
  fault_bundle "$id"
  must_create "$B" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  assert_eq created "$(status_of "$id")"
  kill -KILL "$pid"
  wait_status "$id" stopped 5
  assert_eq 0 "$(pid_of "$id")" "pid in state once stopped"
  assert_ok rt delete "$id"
  assert_all_gone "$id"
}

case_init_killed_when_running() {
  local id pid
  id=$(newid kr)
  fault_bundle "$id"
  start_detached "$B" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  assert_eq running "$(status_of "$id")"
  kill -KILL "$pid"
  wait_status "$id" stopped 5
  assert_ok rt delete "$id"
  assert_all_gone "$id"
}

case_init_killed_during_create() {
  # A createRuntime hook (on the host, state on stdin) kills init while create waits on it:
  # create fails saying how init died (not a raw wait status), and leaves nothing.
  local id
  id=$(newid kd)
  fault_bundle "$id"
  cfg "$B" '.hooks.createRuntime = [{"path": "/bin/sh", "args": ["sh", "-c", "kill -KILL $(jq -r .pid)"]}]'
  create_in "$B" "$id"
  echo "create: exit $RC: $ERR"
  assert_rc 1 "create whose init was killed"
  [ "$RUNTIME_NAME" != sharness-runtime ] ||
    assert_contains "$ERR" "container init exited unexpectedly, without a message (killed by signal 9" "message"
  rt delete --force "$id" >/dev/null 2>&1 || true
  assert_all_gone "$id"
}

for s in "${CREATE_STEPS[@]}"; do
  eval "case_${s//[.-]/_}() { fault_in_create $s; }"
  tcase "runtime killed at $s, then delete --force leaves nothing" "case_${s//[.-]/_}"
done
for s in "${START_STEPS[@]}"; do
  eval "case_${s//[.-]/_}() { fault_in_start $s; }"
  tcase "runtime killed at $s, then delete --force leaves nothing" "case_${s//[.-]/_}"
done
for s in "${DELETE_STEPS[@]}"; do
  eval "case_${s//[.-]/_}() { fault_in_delete $s; }"
  tcase "runtime killed at $s, then delete --force leaves nothing" "case_${s//[.-]/_}"
done
tcase "sharness-runtime (release) ignores SHARNESS_FAULT" case_release_binary_ignores_the_switch
tcase "init killed from outside when created: status stopped, delete works" case_init_killed_when_created
tcase "init killed from outside when running: status stopped, delete works" case_init_killed_when_running
tcase "init killed while create waits on it: create says how it died" case_init_killed_during_create
finish
