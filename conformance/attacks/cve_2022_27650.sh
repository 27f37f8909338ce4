#!/usr/bin/env bash
# CVE-2022-27650 (crun; also runc CVE-2022-29162): a runtime that puts capabilities into the
# inheritable (or ambient) set lets a process in the container gain them back across execve of
# a file with inheritable file capabilities, or keep them as a non-root user.
#
# CapInh and CapAmb of the container's process and of exec'd processes must be 0, with and without
# `exec --cap`, as root and as a non-root user; `--cap` must still work (it lands in CapEff: the
# control that the measurement sees capabilities at all).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

CAP_PROBE='grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status'

cap_of() {  # TEXT NAME -> hex value
  awk -v n="$2:" '$1 == n { print $2 }' <<<"$1"
}

assert_no_inh_amb() {  # TEXT WHAT
  assert_eq 0000000000000000 "$(cap_of "$1" CapInh)" "$2: CapInh"
  assert_eq 0000000000000000 "$(cap_of "$1" CapAmb)" "$2: CapAmb"
}

has_cap_bit() {  # HEX BIT
  (( (16#$1 >> $2) & 1 ))
}

case_run() {
  local b
  b=$(new_bundle b sh -c "$CAP_PROBE")
  run_in "$b"
  assert_rc 0
  echo "$OUT"
  assert_no_inh_amb "$OUT" "run as root"
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1000}'
  run_in "$b"
  assert_rc 0
  echo "$OUT"
  assert_no_inh_amb "$OUT" "run as uid 1000"
}

case_exec() {
  local b id
  b=$(new_bundle b sleep 600)
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec "$id" sh -c "$CAP_PROBE"
  echo "exec: $CMD_OUT"
  assert_no_inh_amb "$CMD_OUT" "exec"
  # CAP_NET_RAW is bit 13
  _run_cmd rt exec --cap CAP_NET_RAW "$id" sh -c "$CAP_PROBE"
  echo "exec --cap CAP_NET_RAW: $CMD_OUT"
  assert_eq 0 "$CMD_RC" "exec --cap"
  has_cap_bit "$(cap_of "$CMD_OUT" CapEff)" 13 || fail "control: --cap CAP_NET_RAW not in CapEff"
  assert_no_inh_amb "$CMD_OUT" "exec --cap CAP_NET_RAW"
  _run_cmd rt exec --user 1000:1000 --cap CAP_NET_RAW --cap CAP_CHOWN "$id" sh -c "$CAP_PROBE"
  echo "exec --user 1000 --cap ...: $CMD_OUT"
  assert_no_inh_amb "$CMD_OUT" "exec --user 1000 --cap"
}

case_exec_process_json() {
  # exec --process with a process.json that asks for no inheritable/ambient set
  local b id pj=$CASEDIR/process.json
  b=$(new_bundle b sleep 600)
  id=$(newid ex)
  start_detached "$b" "$id"
  jq -n '{"args": ["sh", "-c", $p], "cwd": "/", "user": {"uid": 0, "gid": 0},
          "env": ["PATH=/bin"],
          "capabilities": {"bounding": ["CAP_KILL", "CAP_NET_RAW"], "effective": ["CAP_KILL", "CAP_NET_RAW"],
                           "permitted": ["CAP_KILL", "CAP_NET_RAW"]}}' --arg p "$CAP_PROBE" >"$pj"
  _run_cmd rt exec --process "$pj" "$id"
  echo "exec --process: $CMD_OUT"
  assert_eq 0 "$CMD_RC" "exec --process"
  assert_no_inh_amb "$CMD_OUT" "exec --process"
}

case_control_ambient_when_asked() {
  # the measurement sees a non-empty ambient set when the config asks for one
  local b
  b=$(new_bundle b sh -c "$CAP_PROBE")
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1000} | .process.capabilities |= (. + {"inheritable": ["CAP_NET_RAW"], "ambient": ["CAP_NET_RAW"]} | with_entries(.value += ["CAP_NET_RAW"]))'
  run_in "$b"
  assert_rc 0
  echo "$OUT"
  has_cap_bit "$(cap_of "$OUT" CapAmb)" 13 || fail "control: CAP_NET_RAW asked for in ambient is not there"
}

tcase "run: no inheritable or ambient capabilities (root and uid 1000)" case_run
tcase "exec, exec --cap, exec --user --cap: no inheritable or ambient" case_exec
tcase "exec --process: no inheritable or ambient" case_exec_process_json
tcase "control: ambient asked for in the config is seen" case_control_ambient_when_asked
finish
