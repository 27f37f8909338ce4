#!/usr/bin/env bash
# The exec and update channel: a client of a container created under the operator's
# floor (--policy harsh) asks `exec` and `update` for more than the floor gives: root, a
# capability, no_new_privs off, larger rlimits, an OOM-immune, real-time or real-time-I/O
# process, more pids, memory and CPU. Each attempt first runs as a control on a container
# without a floor, where it succeeds and its effect is seen (uid 0, CAP_SYS_ADMIN in CapEff,
# pids.max 1000 in the cgroup); under the floor it must be
# refused with the bound and the floor's value named, or tightened (seen from inside). Ordinary
# execs and updates that lower a limit still work under harsh, also with a process document
# that repeats the client's own create-time process, as docker, ctr and podman send it.
#
# exec and update are called without --policy: the floor is the one create recorded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

HARSH=$SHARNESS_SOURCE_DIR/policies/harsh.json
CAP_SYS_ADMIN=21

status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }
has_cap() { (( (16#$1 >> $2) & 1 )); }

# host_cg_file ID V1CONTROLLER/FILE V2FILE: the host path of a container cgroup file.
host_cg_file() {
  local id=$1 v1=$2 v2=$3 d
  for d in "$CGROOT/${v1%%/*}/$CGPARENT/$id/${v1#*/}" "$CGROOT/unified/$CGPARENT/$id/$v2" \
           "$CGROOT/$CGPARENT/$id/$v2"; do
    [ -e "$d" ] && { echo "$d"; return 0; }
  done
  return 1
}

# running NAME FLOOR: a started container (init: sleep) under FLOOR ("" for none); sets ID.
# CFG, if set, is a jq filter applied to its config first.
running() {
  local b
  b=$(new_bundle "$1" sleep 50)
  [ -z "${CFG:-}" ] || cfg "$b" "$CFG" || return 1
  ID=$(newid "$1")
  if [ -n "$2" ]; then
    _cgpath_for "$b" "$ID"
    echo "$ID" >>"$CASEDIR/.ids"
    RC=0
    rt_floor "$2" create --bundle "$b" --pid-file "$CASEDIR/$ID.pid" "$ID" \
      >"$CASEDIR/$ID.out" 2>"$CASEDIR/$ID.err" </dev/null || RC=$?
    [ "$RC" = 0 ] || { fail "create $ID under $2 failed: $(<"$CASEDIR/$ID.err")"; return 1; }
    must_start "$ID"
  else
    start_detached "$b" "$ID"
  fi
}

# why TEXT COMMAND: the runtime's refusal in TEXT, from "COMMAND: " to the end of its line.
why() {
  local m=${1##*"$2: "}
  m=${m%%$'\n'*}
  echo "${m%\"}"
}

# ex ARGS...: `exec` (foreground, no --policy); sets OUT, ERR, RC.
ex() {
  local n=$(( ${_NEX:-0} + 1 ))
  _NEX=$n
  RC=0
  rt exec "$@" >"$CASEDIR/exec$n.out" 2>"$CASEDIR/exec$n.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/exec$n.out")
  ERR=$(<"$CASEDIR/exec$n.err")
}

# upd ARGS...: `update` (no --policy); sets OUT (stdout and stderr) and RC.
upd() {
  RC=0
  OUT=$(rt update "$@" 2>&1 </dev/null) || RC=$?
}

# process_file NAME JQ_FILTER: a process.json for `exec --process`, from a base that runs
# `sh -c "$SHOW"` as uid 0 with the bundle's env, cwd and capabilities.
SHOW='id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status; grep -E "^Max (address space|processes)" /proc/self/limits'
process_file() {
  jq -n --arg show "$SHOW" '{
      args: ["sh", "-c", $show], cwd: "/", user: {uid: 0, gid: 0},
      env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
      capabilities: {bounding: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
                     effective: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
                     permitted: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]},
      rlimits: [{type: "RLIMIT_NOFILE", hard: 1024, soft: 1024}],
      noNewPrivileges: true
    } | '"$2" >"$CASEDIR/$1.json" || { fail "jq: $2"; return 1; }
  echo "$CASEDIR/$1.json"
}

ALL_SYS_ADMIN='.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'

# ---- exec ---------------------------------------------------------------------------------

case_exec_user_root() {
  running ctl ""
  ex --user 0:0 "$ID" sh -c "$SHOW"
  assert_rc 0 "control: exec --user 0:0 without a floor" || return 1
  assert_eq 0 "$(head -1 <<<"$OUT")" "control: uid inside" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --user 0:0 "$ID" sh -c "$SHOW"
  assert_ne 0 "$RC" "exec --user 0:0 under harsh" || return 1
  assert_contains "$ERR" "exec: user 0:0 is not the floor's user (harsh: " || return 1
  held "exec --user 0:0" "refused: $(why "$ERR" exec)"
}

case_exec_cap_sys_admin() {
  running ctl ""
  ex --cap CAP_SYS_ADMIN "$ID" sh -c "$SHOW"
  assert_rc 0 "control: exec --cap CAP_SYS_ADMIN without a floor" || return 1
  has_cap "$(status_field "$OUT" CapEff)" $CAP_SYS_ADMIN || { fail "control: CAP_SYS_ADMIN not in CapEff: $OUT"; return 1; }
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --cap CAP_SYS_ADMIN "$ID" sh -c "$SHOW"
  assert_ne 0 "$RC" "exec --cap CAP_SYS_ADMIN under harsh" || return 1
  assert_contains "$ERR" "exec: capability CAP_SYS_ADMIN is not in the floor's set (harsh: none)" || return 1
  held "exec --cap CAP_SYS_ADMIN" "refused: $(why "$ERR" exec)"
}

case_exec_user_root_and_cap() {
  # as the issue saw it: both at once
  running ctl ""
  ex --user 0:0 --cap CAP_SYS_ADMIN "$ID" sh -c "$SHOW"
  assert_rc 0 "control" || return 1
  assert_eq 0 "$(head -1 <<<"$OUT")" "control: uid inside" || return 1
  has_cap "$(status_field "$OUT" CapEff)" $CAP_SYS_ADMIN || { fail "control: no CAP_SYS_ADMIN: $OUT"; return 1; }
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --user 0:0 --cap CAP_SYS_ADMIN "$ID" sh -c "$SHOW"
  assert_ne 0 "$RC" "exec --user 0:0 --cap CAP_SYS_ADMIN under harsh" || return 1
  assert_contains "$ERR" "is not the floor's" || return 1
  held "exec --user 0:0 --cap CAP_SYS_ADMIN" "refused: $(why "$ERR" exec)"
}

case_exec_process_privileged_root() {
  # docker exec --privileged -u 0: a process document with uid 0 and CAP_SYS_ADMIN in every set
  local pf
  pf=$(process_file priv "$ALL_SYS_ADMIN")
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control: exec --process (uid 0, CAP_SYS_ADMIN) without a floor" || return 1
  assert_eq 0 "$(head -1 <<<"$OUT")" "control: uid inside" || return 1
  has_cap "$(status_field "$OUT" CapEff)" $CAP_SYS_ADMIN || { fail "control: no CAP_SYS_ADMIN: $OUT"; return 1; }
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_ne 0 "$RC" "exec --process with CAP_SYS_ADMIN under harsh" || return 1
  assert_contains "$ERR" "exec: capability CAP_SYS_ADMIN is not in the floor's set (harsh: none)" || return 1
  held "exec --process: uid 0 + CAP_SYS_ADMIN (docker exec --privileged -u 0)" "refused: $(why "$ERR" exec)"
}

case_exec_process_other_user() {
  local pf
  pf=$(process_file other '.user = {uid: 1234, gid: 1234}')
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control" || return 1
  assert_eq 1234 "$(head -1 <<<"$OUT")" "control: uid inside" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_ne 0 "$RC" "exec --process with uid 1234 under harsh" || return 1
  assert_contains "$ERR" "exec: user 1234:1234 is not the floor's user (harsh: " || return 1
  held "exec --process: user 1234 (not the floor's ephemeral uid)" "refused: $(why "$ERR" exec)"
}

case_exec_process_no_new_privs_off() {
  local pf
  pf=$(process_file nnp '.noNewPrivileges = false')
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control" || return 1
  assert_eq 0 "$(status_field "$OUT" NoNewPrivs)" "control: NoNewPrivs without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_rc 0 "exec --process noNewPrivileges false under harsh (tightened, not refused)" || return 1
  assert_eq 1 "$(status_field "$OUT" NoNewPrivs)" "NoNewPrivs inside under harsh" || return 1
  held "exec --process: noNewPrivileges false" "tightened: NoNewPrivs 1 inside (forced by the floor)"
}

case_exec_process_rlimit_as() {
  local pf
  # jq has only doubles: RLIM_INFINITY (2^64-1) goes in as text
  pf=$(process_file as '.rlimits += [{type: "RLIMIT_AS", hard: 424242, soft: 424242}]')
  sed -i 's/424242/18446744073709551615/g' "$pf"
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control" || return 1
  assert_line "$OUT" '^Max address space +unlimited +unlimited' "control: RLIMIT_AS without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_ne 0 "$RC" "exec --process RLIMIT_AS unlimited under harsh" || return 1
  assert_contains "$ERR" "exec: rlimit RLIMIT_AS unlimited is above the floor's (harsh: 134217728)" || return 1
  held "exec --process: RLIMIT_AS unlimited" "refused: $(why "$ERR" exec)"
}

case_exec_process_rlimit_nproc() {
  local pf
  pf=$(process_file nproc '.rlimits += [{type: "RLIMIT_NPROC", hard: 1000, soft: 1000}]')
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control" || return 1
  assert_line "$OUT" '^Max processes +1000 +1000 ' "control: RLIMIT_NPROC without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_ne 0 "$RC" "exec --process RLIMIT_NPROC 1000 under harsh" || return 1
  assert_contains "$ERR" "exec: rlimit RLIMIT_NPROC 1000 is above the floor's (harsh: 4)" || return 1
  held "exec --process: RLIMIT_NPROC 1000" "refused: $(why "$ERR" exec)"
}

case_exec_process_no_rlimits() {
  # a process document without rlimits would keep the runtime's own (no RLIMIT_AS at all)
  local pf
  pf=$(process_file norl '.rlimits = []')
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control" || return 1
  assert_line "$OUT" '^Max address space +unlimited' "control: no RLIMIT_AS without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --process "$pf" "$ID"
  assert_rc 0 "exec --process without rlimits under harsh" || return 1
  assert_line "$OUT" '^Max address space +134217728 +134217728' "RLIMIT_AS inside under harsh" || return 1
  held "exec --process: rlimits left out" "tightened: the floor's RLIMIT_AS 134217728 inside"
}

# What the exec'd process got, seen from inside: oom_score_adj, the scheduling policy (field 41
# of /proc/self/stat: 0 other, 1 FIFO, 3 batch, 5 idle) and the I/O priority (busybox ionice).
ATTRS='cat /proc/self/oom_score_adj; sed "s/.*) //" /proc/self/stat | cut -d" " -f39; ionice'
attrs_file() {
  local f
  f=$(process_file "$1" "$2") || return 1
  jq --arg a "$ATTRS" '.args[2] = $a' "$f" >"$f.new" && mv "$f.new" "$f" || { fail "jq: args"; return 1; }
  echo "$f"
}

# host_attrs PID: the same three, read on the host (harsh's seccomp refuses ioprio_get inside).
host_attrs() {
  cat "/proc/$1/oom_score_adj"
  sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f39
  ionice -p "$1"
}

# refused_under_harsh PF ATTEMPT MESSAGE: `exec --process PF` into a container under harsh is
# refused with MESSAGE; records the row.
refused_under_harsh() {
  running harsh "$HARSH"
  ex --process "$1" "$ID"
  assert_ne 0 "$RC" "exec --process $2 under harsh" || return 1
  assert_contains "$ERR" "$3" || return 1
  held "exec --process: $2" "refused: $(why "$ERR" exec)"
}

case_exec_process_oom_immune() {
  # -1000: never OOM-killed, so the host's other processes die first. Without a floor only the
  # kernel may refuse it (this host has no CAP_SYS_RESOURCE, DESIGN.md §7), never the runtime.
  known_fail runc   # runc 1.1 applies no --process oomScoreAdj, scheduler or ioPriority to exec (1.2 does)
  local pf
  pf=$(attrs_file oom '.oomScoreAdj = -1000') || return 1
  running ctl ""
  ex --process "$pf" "$ID"
  if [ "$RC" = 0 ]; then
    assert_eq -1000 "$(sed -n 1p <<<"$OUT")" "control: oom_score_adj without a floor" || return 1
  else
    assert_contains "$ERR" "set oom_score_adj to -1000: write /proc/self/oom_score_adj (lowering oom_score_adj needs CAP_SYS_RESOURCE)" || return 1
  fi
  [ "$OURS" = 1 ] || return 0
  refused_under_harsh "$pf" "oomScoreAdj -1000" \
    "exec: oomScoreAdj -1000 is below the floor's (harsh: 0 (not set at create))"
}

case_exec_process_oom_below_init() {
  # init got 500 (its config's): an exec may not come back to 0, which the kernel allows here
  known_fail runc   # runc 1.1 applies no --process oomScoreAdj, scheduler or ioPriority to exec (1.2 does)
  local pf CFG='.process.oomScoreAdj = 500'
  pf=$(attrs_file oom0 '.oomScoreAdj = 0') || return 1
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control: $ERR" || return 1
  assert_eq 0 "$(sed -n 1p <<<"$OUT")" "control: oom_score_adj without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  refused_under_harsh "$pf" "oomScoreAdj 0 below init's 500" "exec: oomScoreAdj 0 is below the floor's (harsh: 500)"
}

# rt_budget: with real-time group scheduling (cgroup v1 cpu.rt_runtime_us) a cgroup without a
# real-time budget refuses SCHED_FIFO to anyone; give this run's parent one, and CFG the
# container's share, so that the control can succeed.
rt_budget() {
  CFG=.
  [ -e "$CGROOT/cpu/cpu.rt_runtime_us" ] || return 0
  mkdir -p "$CGROOT/cpu/$CGPARENT"
  echo 20000 >"$CGROOT/cpu/$CGPARENT/cpu.rt_runtime_us" || { fail "no real-time budget for $CGPARENT"; return 1; }
  CFG='.linux.resources.cpu.realtimeRuntime = 10000 | .linux.resources.cpu.realtimePeriod = 1000000'
}

case_exec_process_sched_fifo() {
  known_fail runc   # runc 1.1 applies no --process oomScoreAdj, scheduler or ioPriority to exec (1.2 does)
  local pf CFG
  pf=$(attrs_file fifo '.scheduler = {policy: "SCHED_FIFO", priority: 1}') || return 1
  rt_budget || return 1
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control: $ERR" || return 1
  assert_eq 1 "$(sed -n 2p <<<"$OUT")" "control: policy SCHED_FIFO (1) in /proc/self/stat without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  CFG=.
  refused_under_harsh "$pf" "scheduler SCHED_FIFO priority 1" \
    "exec: scheduler SCHED_FIFO priority 1 is not the floor's (harsh: SCHED_OTHER nice 0 (not set at create))"
}

case_exec_process_ioprio_rt() {
  known_fail runc   # runc 1.1 applies no --process oomScoreAdj, scheduler or ioPriority to exec (1.2 does)
  local pf
  pf=$(attrs_file iort '.ioPriority = {class: "IOPRIO_CLASS_RT", priority: 0}') || return 1
  running ctl ""
  ex --process "$pf" "$ID"
  assert_rc 0 "control: $ERR" || return 1
  assert_eq "realtime: prio 0" "$(sed -n 3p <<<"$OUT")" "control: ionice without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  refused_under_harsh "$pf" "ioPriority IOPRIO_CLASS_RT 0" \
    "exec: ioPriority IOPRIO_CLASS_RT 0 is above the floor's (harsh: IOPRIO_CLASS_BE 4 (not set at create))"
}

# The same attributes asked by the config itself at create (the config is the client's): under a
# floor with a priority section they are held, with a warning, never refused (a Kubernetes
# Guaranteed pod asks for oomScoreAdj -997). Seen on the host (harsh's seccomp refuses
# ioprio_get inside); init_attrs ID: host_attrs of the container's init, plus its nice (field 19).
init_attrs() {
  local pid
  pid=$(rt state "$1" | jq -r .pid) || return 1
  host_attrs "$pid"
  sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f17
}

# created_under_harsh WHAT: `running harsh` with the case's CFG; records the warnings in WARN.
created_under_harsh() {
  running harsh "$HARSH" || return 1
  WARN=$(<"$CASEDIR/$ID.err")
}

case_create_oom_score_adj_held() {
  local CFG='.process.oomScoreAdj = -997' WARN b
  # Without a floor only the kernel may refuse it (this host has no CAP_SYS_RESOURCE).
  b=$(new_bundle ctl sleep 50) && cfg "$b" "$CFG" || return 1
  ID=$(newid ctl)
  create_in "$b" "$ID"
  if [ "$RC" = 0 ]; then
    assert_eq -997 "$(init_attrs "$ID" | sed -n 1p)" "control: oom_score_adj without a floor" || return 1
  else
    assert_contains "$ERR" "oom_score_adj" "control: the kernel's refusal" || return 1
  fi
  [ "$OURS" = 1 ] || return 0
  created_under_harsh || return 1
  assert_eq 0 "$(init_attrs "$ID" | sed -n 1p)" "oom_score_adj of init under harsh" || return 1
  assert_contains "$WARN" "policy harsh: the config's oomScoreAdj -997 raised to the policy's 0" || return 1
  held "config.json process.oomScoreAdj -997 (a Guaranteed pod's)" "tightened: 0, with a warning"
}

case_create_sched_fifo_held() {
  local CFG WARN
  rt_budget || return 1
  CFG="$CFG | .process.scheduler = {policy: \"SCHED_FIFO\", priority: 1}"
  running ctl "" || return 1
  assert_eq 1 "$(init_attrs "$ID" | sed -n 2p)" "control: SCHED_FIFO (1) without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  created_under_harsh || return 1
  assert_eq 0 "$(init_attrs "$ID" | sed -n 2p)" "scheduling policy of init under harsh (0: SCHED_OTHER)" || return 1
  assert_contains "$WARN" "policy harsh: the config's scheduler SCHED_FIFO replaced by SCHED_OTHER" || return 1
  held "config.json process.scheduler SCHED_FIFO" "tightened: SCHED_OTHER, with a warning"
}

case_create_nice_and_ioprio_held() {
  local CFG='.process.scheduler = {policy: "SCHED_OTHER", nice: -5} | .process.ioPriority = {class: "IOPRIO_CLASS_RT", priority: 0}' WARN out
  running ctl "" || return 1
  out=$(init_attrs "$ID")
  assert_eq "realtime: prio 0" "$(sed -n 3p <<<"$out")" "control: ionice without a floor" || return 1
  assert_eq -5 "$(sed -n 4p <<<"$out")" "control: nice without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  created_under_harsh || return 1
  out=$(init_attrs "$ID")
  assert_eq "best-effort: prio 0" "$(sed -n 3p <<<"$out")" "ionice of init under harsh" || return 1
  assert_eq 0 "$(sed -n 4p <<<"$out")" "nice of init under harsh" || return 1
  assert_contains "$WARN" "policy harsh: the config's scheduler nice -5 raised to the policy's 0" || return 1
  assert_contains "$WARN" "policy harsh: the config's ioPriority IOPRIO_CLASS_RT 0 replaced by IOPRIO_CLASS_BE" || return 1
  held "config.json process.scheduler nice -5, ioPriority IOPRIO_CLASS_RT" "tightened: nice 0, best-effort, with warnings"
}

case_exec_process_lower_attrs_under_harsh() {
  # giving up priority is tightening: a higher oom_score_adj, SCHED_IDLE, the idle I/O class
  known_fail runc   # runc 1.1 applies no --process oomScoreAdj, scheduler or ioPriority to exec (1.2 does)
  local pf want
  pf=$(process_file low '.args = ["sleep", "30"] | .oomScoreAdj = 500 | .scheduler = {policy: "SCHED_IDLE"} |
                         .ioPriority = {class: "IOPRIO_CLASS_IDLE", priority: 0}') || return 1
  want=$'500\n5\nidle'
  running ctl ""
  ex --detach --pid-file "$CASEDIR/ctl.pid" --process "$pf" "$ID"
  assert_rc 0 "control: $ERR" || return 1
  assert_eq "$want" "$(host_attrs "$(<"$CASEDIR/ctl.pid")")" "control: oom_score_adj, policy, ionice" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex --detach --pid-file "$CASEDIR/harsh.pid" --process "$pf" "$ID"
  assert_rc 0 "exec --process oomScoreAdj 500, SCHED_IDLE, IOPRIO_CLASS_IDLE under harsh: $ERR" || return 1
  assert_eq "$want" "$(host_attrs "$(<"$CASEDIR/harsh.pid")")" "under harsh: oom_score_adj, policy, ionice" || return 1
  held "exec --process: oomScoreAdj 500, SCHED_IDLE, IOPRIO_CLASS_IDLE" "allowed: 500, SCHED_IDLE, idle I/O"
}

case_exec_ordinary_under_harsh() {
  # exec ID CMD, and a process document repeating the bundle's own process (uid 0, its
  # capabilities, as docker/ctr/podman build it): both run, as the floor's uid, no capability
  local pf uid
  running ctl ""
  ex "$ID" sh -c "$SHOW"
  assert_rc 0 "control: exec without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  ex "$ID" sh -c "$SHOW"
  assert_rc 0 "exec ID sh under harsh: $ERR" || return 1
  uid=$(head -1 <<<"$OUT")
  assert_ne 0 "$uid" "uid of an ordinary exec under harsh" || return 1
  assert_eq 0000000000000000 "$(status_field "$OUT" CapEff)" "CapEff" || return 1
  assert_eq 1 "$(status_field "$OUT" NoNewPrivs)" "NoNewPrivs" || return 1
  pf=$(process_file repeat '.')
  ex --process "$pf" "$ID"
  assert_rc 0 "exec --process repeating the bundle's process under harsh: $ERR" || return 1
  assert_eq "$uid" "$(head -1 <<<"$OUT")" "uid: the floor's ephemeral uid" || return 1
  assert_eq 0000000000000000 "$(status_field "$OUT" CapEff)" "CapEff" || return 1
  held "ordinary exec, and --process repeating the client's own process" "runs: uid $uid, CapEff 0, NoNewPrivs 1"
}

# ---- update -------------------------------------------------------------------------------

case_update_pids_memory_flags() {
  local f
  running ctl ""
  upd --pids-limit 1000 --memory 8g "$ID"
  assert_rc 0 "control: update without a floor: $OUT" || return 1
  f=$(host_cg_file "$ID" pids/pids.max pids.max) || { fail "no pids cgroup for $ID"; return 1; }
  assert_eq 1000 "$(<"$f")" "control: pids.max after update" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  f=$(host_cg_file "$ID" pids/pids.max pids.max) || { fail "no pids cgroup for $ID"; return 1; }
  upd --pids-limit 1000 --memory 8g "$ID"
  assert_ne 0 "$RC" "update --pids-limit 1000 --memory 8g under harsh" || return 1
  assert_match "$OUT" "update: (pids limit 1000|memory limit 8589934592 \(8 GiB\)) is above the floor's \(harsh: " || return 1
  assert_eq 4 "$(<"$f")" "pids.max after the refused update" || return 1
  held "update --pids-limit 1000 --memory 8g" "refused: $(why "$OUT" update); pids.max still 4"
}

case_update_memory_flag() {
  local f
  running ctl ""
  upd --memory 8g "$ID"
  assert_rc 0 "control: $OUT" || return 1
  f=$(host_cg_file "$ID" memory/memory.limit_in_bytes memory.max) || { fail "no memory cgroup"; return 1; }
  assert_eq 8589934592 "$(<"$f")" "control: memory limit after update" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  f=$(host_cg_file "$ID" memory/memory.limit_in_bytes memory.max) || { fail "no memory cgroup"; return 1; }
  upd --memory 8g "$ID"
  assert_ne 0 "$RC" "update --memory 8g under harsh" || return 1
  assert_contains "$OUT" "update: memory limit 8589934592 (8 GiB) is above the floor's (harsh: 134217728 (128 MiB))" || return 1
  assert_eq 134217728 "$(<"$f")" "memory limit after the refused update" || return 1
  held "update --memory 8g" "refused: $(why "$OUT" update)"
}

case_update_resources_json() {
  local f
  echo '{"pids": {"limit": 1000}}' >"$CASEDIR/res.json"
  running ctl ""
  RC=0; OUT=$(rt update --resources - "$ID" <"$CASEDIR/res.json" 2>&1) || RC=$?
  assert_rc 0 "control: $OUT" || return 1
  f=$(host_cg_file "$ID" pids/pids.max pids.max) || { fail "no pids cgroup"; return 1; }
  assert_eq 1000 "$(<"$f")" "control: pids.max after update --resources -" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  f=$(host_cg_file "$ID" pids/pids.max pids.max) || { fail "no pids cgroup"; return 1; }
  RC=0; OUT=$(rt update --resources - "$ID" <"$CASEDIR/res.json" 2>&1) || RC=$?
  assert_ne 0 "$RC" "update --resources - (pids 1000) under harsh" || return 1
  assert_contains "$OUT" "update: pids limit 1000 is above the floor's (harsh: 4)" || return 1
  upd --resources "$CASEDIR/res.json" "$ID"
  assert_ne 0 "$RC" "update --resources FILE (pids 1000) under harsh" || return 1
  assert_eq 4 "$(<"$f")" "pids.max after the refused updates" || return 1
  held "update --resources -|FILE {pids: 1000}" "refused: $(why "$OUT" update)"
}

case_update_cpu_period_alone() {
  # a shorter period with the quota left as it is: 50000 per 10000 us is five CPUs
  local f
  running ctl ""
  upd --cpu-quota 50000 --cpu-period 100000 "$ID"
  upd --cpu-period 10000 "$ID"
  assert_rc 0 "control: $OUT" || return 1
  f=$(host_cg_file "$ID" cpu/cpu.cfs_period_us cpu.max) || { fail "no cpu cgroup"; return 1; }
  assert_contains "$(<"$f")" 10000 "control: the period after update" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  f=$(host_cg_file "$ID" cpu/cpu.cfs_period_us cpu.max) || { fail "no cpu cgroup"; return 1; }
  upd --cpu-period 10000 "$ID"
  assert_ne 0 "$RC" "update --cpu-period 10000 under harsh" || return 1
  assert_contains "$OUT" "update: CPU quota 50000 per 10000 us, 5.00 CPUs is above the floor's (harsh: 50000 per 100000 us, 0.50 CPUs)" || return 1
  assert_contains "$(<"$f")" 100000 "the period after the refused update" || return 1
  upd --cpu-quota 100000 "$ID"
  assert_ne 0 "$RC" "update --cpu-quota 100000 under harsh" || return 1
  held "update --cpu-period 10000 / --cpu-quota 100000" "refused: $(why "$OUT" update)"
}

case_update_lowering_under_harsh() {
  local f
  running ctl ""
  upd --pids-limit 2 "$ID"
  assert_rc 0 "control: $OUT" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  f=$(host_cg_file "$ID" pids/pids.max pids.max) || { fail "no pids cgroup"; return 1; }
  upd --pids-limit 2 --memory 64m "$ID"
  assert_rc 0 "update --pids-limit 2 --memory 64m under harsh: $OUT" || return 1
  assert_eq 2 "$(<"$f")" "pids.max after lowering" || return 1
  upd --pids-limit 4 "$ID"
  assert_rc 0 "update back up to the floor's 4: $OUT" || return 1
  assert_eq 4 "$(<"$f")" "pids.max back at the floor" || return 1
  held "update lowering pids and memory (and back up to the floor)" "allowed: pids.max 2, then 4"
}

case_missing_floor_fails_closed() {
  # the issue's "a saved block that fails to re-parse is silently dropped, which fails open for
  # exec": the floor create recorded is never skipped, a missing or broken one refuses
  running ctl ""
  ex "$ID" true
  assert_rc 0 "control: exec without a floor" || return 1
  [ "$OURS" = 1 ] || return 0
  running harsh "$HARSH"
  [ -s "$STATE/$ID/floor.json" ] || { fail "no floor.json in the state dir of $ID"; return 1; }
  echo '{"policy": {' >"$STATE/$ID/floor.json"
  ex "$ID" true
  assert_ne 0 "$RC" "exec with a broken floor.json" || return 1
  rm "$STATE/$ID/floor.json"
  ex --user 0:0 "$ID" true
  assert_ne 0 "$RC" "exec with floor.json gone" || return 1
  assert_contains "$ERR" "read its floor" || return 1
  upd --pids-limit 1000 "$ID"
  assert_ne 0 "$RC" "update with floor.json gone" || return 1
  held "exec/update after floor.json is broken or gone" "refused: $(why "$ERR" "$ID")"
}

tcase "exec --user 0:0 is refused under harsh" case_exec_user_root
tcase "exec --cap CAP_SYS_ADMIN is refused under harsh" case_exec_cap_sys_admin
tcase "exec --user 0:0 --cap CAP_SYS_ADMIN is refused under harsh" case_exec_user_root_and_cap
tcase "exec --process with uid 0 and CAP_SYS_ADMIN is refused under harsh" case_exec_process_privileged_root
tcase "exec --process with another uid is refused under harsh" case_exec_process_other_user
tcase "exec --process noNewPrivileges false is forced on under harsh" case_exec_process_no_new_privs_off
tcase "exec --process RLIMIT_AS unlimited is refused under harsh" case_exec_process_rlimit_as
tcase "exec --process RLIMIT_NPROC 1000 is refused under harsh" case_exec_process_rlimit_nproc
tcase "exec --process without rlimits gets the floor's" case_exec_process_no_rlimits
tcase "exec --process oomScoreAdj -1000 is refused under harsh" case_exec_process_oom_immune
tcase "exec --process oomScoreAdj 0 below init's 500 is refused under harsh" case_exec_process_oom_below_init
tcase "exec --process SCHED_FIFO priority 1 is refused under harsh" case_exec_process_sched_fifo
tcase "exec --process ioPriority IOPRIO_CLASS_RT is refused under harsh" case_exec_process_ioprio_rt
tcase "a config's oomScoreAdj -997 is raised to 0 under harsh" case_create_oom_score_adj_held
tcase "a config's SCHED_FIFO is SCHED_OTHER under harsh" case_create_sched_fifo_held
tcase "a config's nice -5 and real-time I/O class are held under harsh" case_create_nice_and_ioprio_held
tcase "exec --process may give up priority (oomScoreAdj 500, SCHED_IDLE, idle I/O) under harsh" case_exec_process_lower_attrs_under_harsh
tcase "an ordinary exec still works under harsh" case_exec_ordinary_under_harsh
tcase "update --pids-limit 1000 --memory 8g is refused under harsh" case_update_pids_memory_flags
tcase "update --memory 8g is refused under harsh" case_update_memory_flag
tcase "update --resources with pids 1000 is refused under harsh" case_update_resources_json
tcase "update of the CPU period or quota alone is held to the floor's ratio" case_update_cpu_period_alone
tcase "update may lower limits under harsh" case_update_lowering_under_harsh
tcase "a broken or missing floor fails exec and update closed" case_missing_floor_fails_closed
adversary_finish
