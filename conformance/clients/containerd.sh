#!/usr/bin/env bash
# containerd: `ctr` drives the runtime under test through containerd's runc v2 shim
# (io.containerd.runc.v2, `ctr run --runc-binary $SHARNESS_RUNTIME`), as a containerd user would.
#
# The suite starts its own containerd by hand (no systemd here): its own root, state, gRPC and
# ttrpc sockets and opt dir under the suite's temp dir, its pid recorded from $! (containerd has
# no pidfile flag). The runtime's state goes to a private --runc-root, ctr's FIFOs to a private
# --fifo-dir, containers' cgroups under this run's parent (lib.sh removes it), all in a namespace
# of our own. It imports a one-layer busybox OCI image (client-lib.bash), then runs:
# run (output, exit code, stdin), run -t under a real pty (script(1)), run -d then task exec
# (output, exit code), task ps, task kill (SIGTERM trapped, SIGKILL), task delete, container rm;
# failing containers (a missing executable, a bad config: a missing bind-mount source) whose
# error, as ctr shows it, is the runtime's own text, which the shim read from the runtime's JSON
# log (--log log.json --log-format json: the last "error" line); the policy annotation
# org.sharness.policy passed by `ctr run --annotation` (ours only: runc has no policies);
# `ctr task exec` under the operator's floor (--policy harsh): an ordinary exec runs as harsh's
# throwaway uid, another --user is refused with the runtime's error (ctr 1.6 has no task update);
# containerd's checkpoint: `ctr container checkpoint --task --rw` of a counter, then `ctr container
# restore --live --rw` as a new container that counts on (CRIU 4 from lib.sh's criu4: the guest's,
# or on this host Debian 13's fetched privately; skipped only when there is none);
# and the CRI config contrib/containerd/config.toml: a second containerd started with a copy of
# it; the handler "sharness" found in the configuration its CRI plugin reports through the CRI
# Status call (what `crictl info` shows), then a pod sandbox run through that handler
# (RunPodSandbox, runtime_handler "sharness", as the kubelet does for a pod of RuntimeClass
# sharness), and a pod whose org.sharness.policy annotation reaches our runtime. crictl is not
# in Debian 12: conformance/tools/cri.py makes the CRI calls with python3-grpcio.
#
# The last case deletes every task, container, snapshot, image and the namespace through ctr,
# stops containerd and its shims by pid, and checks nothing is left: no process, no mount under
# the temp dir, no runtime state, no shim socket. The EXIT trap does the same for an aborted run.
#
# On a host with systemd as PID 1 and pure cgroup v2 (the trixie guest and its containerd 1.7,
# docs/vm.md), every container runs under the systemd cgroup driver, as Kubernetes nodes run them:
# `ctr run --runc-systemd-cgroup` (the shim's SystemdCgroup option) with a cgroupsPath
# SLICE:sharness:ID in a slice of this run's own, and the CRI config's SystemdCgroup = true; a case
# checks the scope the runtime made with systemctl show. SHARNESS_CONTAINERD_CGROUP_DRIVER=
# cgroupfs|systemd overrides the choice.
# Not here: the shim's socket directory is hard-coded in containerd 1.6 (/run/containerd/s/, one
# socket per task named by a hash of our socket path, namespace and id); each socket goes with
# its task, and the directories are removed if this suite created them and they are empty.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/client-lib.bash"

ensure_pkgs containerd || { echo "cannot install containerd" >&2; exit 1; }
for t in containerd ctr containerd-shim-runc-v2 script; do
  command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done

CTD=$CLIENT_TMP/containerd             # everything of the main containerd
SOCK=$CTD/containerd.sock
NS=sharness-test-$$
IMAGE=sharness.test/busybox:latest
RUNC_ROOT=$CTD/runtime-root            # the runtime's --root (the shim adds /$NS)
PIDS=$CLIENT_TMP/daemon.pids           # pid of every containerd and shim this suite started
SHIM_SOCK_DIR=/run/containerd/s        # containerd 1.6 puts shim sockets there, whatever its config
PRE_RUN_CONTAINERD=$([ -d /run/containerd ] && echo 1 || echo 0)
PRE_SHIM_SOCK_DIR=$([ -d "$SHIM_SOCK_DIR" ] && echo 1 || echo 0)
mkdir -p "$CTD" "$RUNC_ROOT"
CTD_CGD=cgroupfs
systemd_v2_host && CTD_CGD=systemd
CTD_CGD=${SHARNESS_CONTAINERD_CGROUP_DRIVER:-$CTD_CGD}
CTD_SLICE=sharness_ctr_$$.slice  # the containers' slice under systemd (no '-': no parent slice implied)
echo "# $(containerd --version), cgroup driver $CTD_CGD"
# ctr_cg ID: the --cgroup of container ID; ctr_cgroup_dirs [ID]: the cgroup dirs (of container ID)
ctr_cg() { if [ "$CTD_CGD" = systemd ]; then echo "$CTD_SLICE:sharness:$1"; else echo "/$CGPARENT/$1"; fi; }
ctr_cgroup_dirs() { client_cgroup_dirs "$CTD_CGD" "$CTD_SLICE" sharness "$@"; }
: >"$PIDS"
: >"$CLIENT_TMP/ctr.ids"

# write_config FILE DIR [INSERT]: a containerd config (version 2) whose every path is private:
# root, state, sockets and the opt dir under DIR, no debug or metrics listener. Without INSERT the
# CRI plugin is off. INSERT, a CRI config file of its own (with its `version = 2`), goes after the
# top-level keys and before the tables, where TOML lets it be; the CRI plugin then gets CNI dirs
# that hold nothing (pods use the host network), our busybox as its sandbox ("pause") image, and
# restrict_oom_score_adj: CRI gives a sandbox oom_score_adj -998, and lowering it takes
# CAP_SYS_RESOURCE, which no process has on this machine (DESIGN.md section 7).
write_config() {
  local f=$1 d=$2 insert=${3:-}
  mkdir -p "$d/cni/conf" "$d/cni/bin"
  {
    printf 'root = "%s"\nstate = "%s"\n' "$d/root" "$d/state"
    if [ -n "$insert" ]; then
      cat "$insert"
    else
      echo 'version = 2'
      echo 'disabled_plugins = ["io.containerd.grpc.v1.cri"]'
    fi
  } >"$f"
  cat >>"$f" <<EOF
[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
EOF
  [ -n "$insert" ] || return 0
  cat >>"$f" <<EOF
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
[plugins."io.containerd.grpc.v1.cri".cni]
  conf_dir = "$d/cni/conf"
  bin_dir = "$d/cni/bin"
EOF
}

# start_containerd CONFIG SOCKET LOG: start containerd in the background, record its pid, wait
# until it answers on SOCKET. Sets CTD_PID.
# XDG_RUNTIME_DIR: where containerd unpacks a checkpoint image for a restore (ctrd-checkpointN,
# the container's memory), which it never removes: under our temp dir, not in /tmp.
start_containerd() {
  mkdir -p -m 0700 "$CLIENT_TMP/xdg"
  XDG_RUNTIME_DIR=$CLIENT_TMP/xdg containerd --config "$1" </dev/null >"$3" 2>&1 &
  CTD_PID=$!
  echo "$CTD_PID" >>"$PIDS"
  if ! wait_for ctr --address "$2" version; then
    echo "containerd (pid $CTD_PID) did not answer on $2; its log:" >&2
    tail -20 "$3" >&2
    return 1
  fi
}

# ours PID: PID is alive and still one of our containerds or shims: its command line names our
# temp dir (--config FILE, -address SOCKET), so a recorded pid reused since is never signalled.
ours() {
  [ -n "$1" ] && [[ $(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") == *containerd*"$CLIENT_TMP/"* ]]
}

# our_procs: every process whose command line names our temp dir (daemons, shims, ctr calls).
our_procs() {
  local d cmd
  for d in /proc/[0-9]*; do
    cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
    [[ $cmd == *"$CLIENT_TMP/"* ]] && echo "${d#/proc/}: $cmd"
  done
  return 0
}

# c ARGS...: ctr on the main containerd, in our namespace.
c() { timeout -k 5 60 ctr --address "$SOCK" --namespace "$NS" "$@"; }

# ctr_run ID RUN_ARGS...: `ctr run` with the runtime under test, its private root and FIFO dir,
# and a cgroup under this run's parent (RUN_ARGS name the image, ID and the command). Sets OUT,
# ERR, RC.
RUNFLAGS=(--runc-binary "$RUNTIME" --runc-root "$RUNC_ROOT" --fifo-dir "$CTD/fifo")
[ "$CTD_CGD" != systemd ] || RUNFLAGS+=(--runc-systemd-cgroup)
ctr_run() {
  local id=$1; shift
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  RC=0
  c run "${RUNFLAGS[@]}" --cgroup "$(ctr_cg "$id")" "$@" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  OUT=$(tr -d '\r\0' <"$CASEDIR/$id.out")
  ERR=$(<"$CASEDIR/$id.err")
  echo "ctr run $id: exit $RC; stdout '$OUT'; stderr '$ERR'"
}

# shim_of ID: the pid of the shim serving task ID: the parent of the task's init (the shim is its
# subreaper), checked to be the runc v2 shim of our containerd, for this id. containerd 1.6 keeps
# no shim.pid for it.
shim_of() {
  local init pid
  init=$(<"$CTD/state/io.containerd.runtime.v2.task/$NS/$1/init.pid") || return 1
  pid=$(awk '/^PPid:/ { print $2 }' "/proc/$init/status") || return 1
  [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == *containerd-shim-runc-v2*" -id $1 -address $SOCK"* ]] || return 1
  echo "$pid"
}

# note_shim ID: record the pid of the shim serving ID, so it is stopped by pid if it outlives us.
note_shim() {
  local pid
  pid=$(shim_of "$1") || { fail "cannot find the shim of task $1"; return 1; }
  echo "$pid" >>"$PIDS"
}

# task_status ID: the STATUS column of `ctr task ls` for ID (empty if there is no task).
task_status() { c task ls | awk -v id="$1" '$1 == id { print $3 }'; }
task_pid() { c task ls | awk -v id="$1" '$1 == id { print $2 }'; }  # the task's host pid

# wait_task_status ID STATUS
wait_task_status() {
  wait_for sh -c "ctr --address '$SOCK' --namespace '$NS' task ls | awk '\$1 == \"$1\" { print \$3 }' | grep -qx '$2'" ||
    fail "task $1: expected status $2, got '$(task_status "$1")'"
}

# gone ID...: remove the tasks and the containers (a case's own cleanup; errors ignored).
gone() {
  local id
  for id in "$@"; do
    c task kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    c task delete --force "$id" >/dev/null 2>&1 || true
    c container rm "$id" >/dev/null 2>&1 || true
  done
}

# gone_at_exit ID...: `gone` them when the case ends, even when an assertion ends it early.
gone_at_exit() {
  # shellcheck disable=SC2064  # the ids are expanded now, on purpose
  trap "gone $*" EXIT
}

# shim_socket ID: the shim's socket for task ID, as containerd 1.6 names it
# (sha256 of "<containerd address>/<namespace>/<id>" in /run/containerd/s).
shim_socket() { echo "$SHIM_SOCK_DIR/$(printf '%s' "$SOCK/$NS/$1" | sha256sum | cut -d' ' -f1)"; }

# The runtime's own error text (not runc's) for the failing-container cases: what the runtime
# writes as the last "error" line of its JSON log, which the shim puts after "OCI runtime create
# failed: ". Runtime-aware: runc says it its own way.
case $RUNTIME_NAME in
  runc) ERR_NOEXEC='stat /bin/nonexistent-binary: no such file or directory'
        ERR_BINDSRC='stat /nonexistent-bind-source: no such file or directory' ;;
  *)    ERR_NOEXEC='exec: "/bin/nonexistent-binary": ENOENT (No such file or directory)'
        ERR_BINDSRC='open_tree /nonexistent-bind-source: ENOENT (No such file or directory)' ;;
esac

# The CRI containerd: started with a copy of contrib/containerd/config.toml, the runtime under test
# in place of the installed BinaryName and a private Root, the rest of its config private.
CRI=$CLIENT_TMP/cri
CRI_SOCK=$CRI/containerd.sock
CRI_PID=""
CRI_TOOL=$SHARNESS_SOURCE_DIR/conformance/tools/cri.py
start_cri_containerd() {
  mkdir -p "$CRI"
  ensure_pkgs python3-grpcio || return 1
  sed -e "s|^\( *BinaryName = \).*|\1\"$RUNTIME\"|" -e "s|^\( *Root = \).*|\1\"$CRI/sharness-root\"|" \
    -e "s|^\( *SystemdCgroup = \).*|\1$([ "$CTD_CGD" = systemd ] && echo true || echo false)|" \
    "$SHARNESS_SOURCE_DIR/contrib/containerd/config.toml" >"$CRI/contrib.toml"
  write_config "$CRI/config.toml" "$CRI" "$CRI/contrib.toml"
  start_containerd "$CRI/config.toml" "$CRI_SOCK" "$CRI/containerd.log" || return 1
  CRI_PID=$CTD_PID
  # the sandbox image, where CRI looks for it
  ctr --address "$CRI_SOCK" --namespace k8s.io image import "$CLIENT_TMP/busybox-oci.tar" >"$CRI/import.log" 2>&1
}

# cri ARGS...: conformance/tools/cri.py (Debian's python3, which has python3-grpcio)
cri() { timeout -k 5 150 /usr/bin/python3 "$CRI_TOOL" "$@"; }

# ---------------------------------------------------------------------------------------------
# Setup (in the suite's shell, so the pid stays known to every case and to the EXIT trap)

_containerd_cleanup() {
  local pid id ids
  if [ -n "${CRI_PID:-}" ] && kill -0 "$CRI_PID" 2>/dev/null; then
    pods_gone
  fi
  if [ -n "${CTD_PID:-}" ] && kill -0 "$CTD_PID" 2>/dev/null; then
    ids=$(c task ls -q 2>/dev/null; c container ls -q 2>/dev/null)
    for id in $(sort -u <<<"$ids"); do gone "$id"; done
    c image rm --sync "$IMAGE" >/dev/null 2>&1 || true
    ctr --address "$SOCK" namespace rm "$NS" >/dev/null 2>&1 || true
  fi
  while read -r pid; do
    ours "$pid" && stop_pid "$pid"
  done < <(tac "$PIDS" 2>/dev/null)
  _umount_tmp
  [ "$CTD_CGD" != systemd ] || systemctl stop "$CTD_SLICE" >/dev/null 2>&1 || true
  [ "$PRE_SHIM_SOCK_DIR" = 1 ] || rmdir "$SHIM_SOCK_DIR" 2>/dev/null || true
  # ctr makes its client fifos' directory there too (/run/containerd/fifo), whatever the config.
  [ "$PRE_RUN_CONTAINERD" = 1 ] || rmdir /run/containerd/fifo /run/containerd 2>/dev/null || true
}
# shellcheck disable=SC2154  # _rc is set inside the trap
trap '_rc=$?; _containerd_cleanup; (exit $_rc); _cleanup' EXIT

write_config "$CTD/config.toml" "$CTD"
start_containerd "$CTD/config.toml" "$SOCK" "$CTD/containerd.log" || exit 1
busybox_oci_archive "$CLIENT_TMP/busybox-oci.tar" "$IMAGE" || { echo "cannot build the busybox image" >&2; exit 1; }
c image import "$CLIENT_TMP/busybox-oci.tar" >"$CTD/import.log" 2>&1 ||
  { echo "ctr image import failed: $(<"$CTD/import.log")" >&2; exit 1; }
MAIN_PID=$CTD_PID
# its failure is the CRI cases' to report
start_cri_containerd || echo "# the CRI containerd did not start: the CRI cases will fail" >&2
CTD_PID=$MAIN_PID

# ---------------------------------------------------------------------------------------------
# Cases

case_setup() {
  local v
  v=$(ctr --address "$SOCK" version)
  echo "$v"
  assert_match "$v" 'Server:' "ctr talks to our containerd"
  assert_line "$(c image ls -q)" "^$IMAGE\$" "the busybox image is imported in $NS"
  # the snapshot was unpacked: the image is usable without a pull
  assert_match "$(c image check)" "$IMAGE.*complete" "image check"
}

case_run_output_exit() {
  local id=run-$CASENUM
  gone_at_exit "$id" "run0-$CASENUM"
  ctr_run "$id" --rm "$IMAGE" "$id" sh -c 'echo "hello from pid $$"; echo to-stderr >&2; exit 7'
  assert_rc 7 "exit code of the container's process"
  assert_eq "hello from pid 1" "$OUT" "stdout (pid 1: in a pid namespace of its own)"
  assert_contains "$ERR" to-stderr "the container's stderr"
  assert_eq "" "$(c container ls -q | grep -x "$id" || true)" "--rm left no container"
  id=run0-$CASENUM
  ctr_run "$id" --rm "$IMAGE" "$id" true
  assert_rc 0 "exit code of true"
}

case_run_stdin() {
  local id=stdin-$CASENUM
  gone_at_exit "$id"
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  RC=0
  # one line, not EOF: ctr 1.6 does not close the task's stdin when its own reaches EOF
  printf 'line one\n' |
    c run "${RUNFLAGS[@]}" --cgroup "$(ctr_cg "$id")" --rm "$IMAGE" "$id" sh -c 'read -r l; echo "got: $l"; exit 3' \
      >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" || RC=$?
  OUT=$(<"$CASEDIR/$id.out")
  assert_rc 3
  assert_eq "got: line one" "$OUT" "the line read from stdin"
}

case_run_tty() {
  local id=tty-$CASENUM cmd
  # script(1) gives ctr a real pty as its stdin/stdout; -e returns the child's exit code.
  cmd="ctr --address $SOCK --namespace $NS run ${RUNFLAGS[*]} --cgroup $(ctr_cg "$id") --rm -t $IMAGE $id"
  gone_at_exit "$id"
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  cmd+=" sh -c 'tty; for fd in 0 1 2; do [ -t \$fd ] && echo fd\$fd=tty; done; exit 4'"
  RC=0
  timeout -k 5 60 script -qec "$cmd" /dev/null >"$CASEDIR/tty.out" 2>&1 </dev/null || RC=$?
  # the pty shows a NUL that ctr writes first as ^@ (echoctl)
  OUT=$(tr -d '\r\0' <"$CASEDIR/tty.out" | sed 's/\^@//g')
  echo "exit $RC; output: $OUT"
  assert_rc 4 "exit code through the terminal"
  assert_line "$OUT" '^/dev/pts/[0-9]+$' "the process's stdin is a pty inside the container"
  assert_contains "$OUT" fd0=tty
  assert_contains "$OUT" fd1=tty
  assert_contains "$OUT" fd2=tty
}

# sleeping_task ID: `ctr run -d` of a container ID that sleeps, its shim noted, waited to RUNNING.
sleeping_task() {
  ctr_run "$1" -d "$IMAGE" "$1" sleep 100000
  assert_rc 0 "run -d"
  note_shim "$1"
  wait_task_status "$1" RUNNING
}

case_detach_exec() {
  local id=det-$CASENUM pid
  gone_at_exit "$id"
  sleeping_task "$id"
  pid=$(task_pid "$id")
  assert_match "$pid" '^[0-9]+$' "task ls pid"
  assert_eq sleep "$(cat "/proc/$pid/comm")" "the task's host pid runs the container's process"
  # exec: output and exit code
  RC=0
  c task exec --fifo-dir "$CTD/fifo" --exec-id e1 "$id" sh -c 'echo "exec in pid $$"; cat /proc/1/comm; exit 5' \
    >"$CASEDIR/e1.out" 2>&1 </dev/null || RC=$?
  OUT=$(<"$CASEDIR/e1.out")
  echo "exec: exit $RC, output: $OUT"
  assert_rc 5 "exit code of the exec'd process"
  assert_line "$OUT" '^exec in pid [0-9]+$' "exec output"
  assert_line "$OUT" '^sleep$' "exec sees the container's pid 1"
  RC=0
  c task exec --fifo-dir "$CTD/fifo" --exec-id e2 "$id" true >"$CASEDIR/e2.out" 2>&1 </dev/null || RC=$?
  assert_rc 0 "exec true"
  # exec of a missing program: an error, and the task keeps running
  RC=0
  c task exec --fifo-dir "$CTD/fifo" --exec-id e3 "$id" /bin/nonexistent-binary >"$CASEDIR/e3.out" 2>&1 </dev/null || RC=$?
  ERR=$(<"$CASEDIR/e3.out")
  echo "exec of a missing program: exit $RC: $ERR"
  assert_ne 0 "$RC" "exec of a missing program"
  assert_contains "$ERR" "OCI runtime exec failed" "ctr shows the shim's exec error"
  assert_contains "$ERR" "$ERR_NOEXEC" "the runtime's own error text"
  assert_eq RUNNING "$(task_status "$id")" "the task after a failed exec"
  gone "$id"
}

case_task_ps() {
  local id=ps-$CASENUM init ps pids n
  gone_at_exit "$id"
  sleeping_task "$id"
  init=$(task_pid "$id")
  ps=$(c task ps "$id")
  echo "$ps"
  assert_line "$ps" "^${init}[[:space:]]" "task ps lists the init pid"
  # a detached exec shows up as a second process, a host pid in the container's pid namespace
  # (ctr leaves a detached exec's FIFOs behind: they go to the case's dir, not to $CTD/fifo)
  c task exec -d --fifo-dir "$CASEDIR/fifo" --exec-id bg "$id" sh -c 'exec sleep 100001' </dev/null >/dev/null 2>&1
  wait_for sh -c "[ \$(ctr --address '$SOCK' --namespace '$NS' task ps '$id' | tail -n +2 | wc -l) -ge 2 ]" ||
    fail "task ps never showed the exec'd process: $(c task ps "$id")"
  pids=$(c task ps "$id" | awk 'NR > 1 { print $1 }')
  n=0
  for p in $pids; do
    n=$((n + 1))
    assert_eq "$(readlink "/proc/$init/ns/pid")" "$(readlink "/proc/$p/ns/pid")" "pid $p is in the container's pid namespace"
  done
  assert_eq 2 "$n" "processes listed by task ps"
  gone "$id"
}

case_task_kill() {
  local id=kill-$CASENUM
  gone_at_exit "$id" "killall-$CASENUM"
  # SIGTERM (the default of task kill) to an init that traps it
  ctr_run "$id" -d "$IMAGE" "$id" sh -c 'trap "exit 42" TERM; while :; do sleep 0.1; done'
  assert_rc 0 "run -d"
  note_shim "$id"
  wait_task_status "$id" RUNNING
  assert_ok c task kill "$id"
  wait_task_status "$id" STOPPED
  _run_cmd c task delete "$id"
  echo "task delete: exit $CMD_RC: $CMD_OUT"
  assert_contains "$CMD_OUT" "exit code 42" "the exit status after SIGTERM"
  assert_ok c container rm "$id"
  # SIGKILL, with --all (runtime kill --all)
  id=killall-$CASENUM
  sleeping_task "$id"
  assert_ok c task kill --all -s SIGKILL "$id"
  wait_task_status "$id" STOPPED
  _run_cmd c task delete "$id"
  assert_contains "$CMD_OUT" "exit code 137" "the exit status after SIGKILL"
  assert_ok c container rm "$id"
}

case_task_delete_container_rm() {
  local id=del-$CASENUM shimpid sock
  gone_at_exit "$id"
  sleeping_task "$id"
  shimpid=$(shim_of "$id")
  sock=$(shim_socket "$id")
  [ -S "$sock" ] || fail "no shim socket at $sock (the naming assumed for containerd 1.6)"
  [ -d "$RUNC_ROOT/$NS/$id" ] || fail "no runtime state at $RUNC_ROOT/$NS/$id (--runc-root not passed on?)"
  # a running task is not deleted without --force
  assert_fail c task delete "$id"
  assert_eq RUNNING "$(task_status "$id")" "task after a refused delete"
  assert_ok c task kill -s SIGKILL "$id"
  wait_task_status "$id" STOPPED
  assert_ok c task delete "$id"
  assert_eq "" "$(task_status "$id")" "task ls after task delete"
  [ ! -e "$RUNC_ROOT/$NS/$id" ] || fail "runtime state left after task delete: $RUNC_ROOT/$NS/$id"
  wait_for sh -c "! kill -0 $shimpid" || fail "the shim (pid $shimpid) still runs after task delete"
  [ ! -e "$sock" ] || fail "shim socket left: $sock"
  [ -z "$(ctr_cgroup_dirs "$id")" ] || fail "cgroup left after task delete: $(ctr_cgroup_dirs "$id")"
  assert_line "$(c container ls -q)" "^$id\$" "the container outlives its task"
  assert_line "$(c snapshot ls)" "^${id}[[:space:]]" "and so does its snapshot"
  assert_ok c container rm "$id"
  assert_eq "" "$(c container ls -q | grep -x "$id" || true)" "container ls after container rm"
  assert_eq "" "$(c snapshot ls | awk -v id="$id" '$1 == id')" "container rm removed the snapshot"
}

# The systemd driver (SystemdCgroup = true in the shim's options, what --runc-systemd-cgroup sets):
# the shim calls the runtime with --systemd-cgroup, the runtime makes the scope through systemd.
case_systemd_scope() {
  [ "$CTD_CGD" = systemd ] || skip "cgroup driver $CTD_CGD: systemd is not PID 1 on pure cgroup v2 here"
  local id=sd-$CASENUM unit pid
  gone_at_exit "$id"
  ctr_run "$id" -d --memory-limit 67108864 "$IMAGE" "$id" sleep 100000
  assert_rc 0 "run -d under the systemd driver"
  note_shim "$id"
  wait_task_status "$id" RUNNING
  unit=sharness-$id.scope
  pid=$(task_pid "$id")
  assert_scope "$unit" "$CTD_SLICE" "$pid" "$id" MemoryMax=67108864
  # (read on the host: ctr's default spec mounts no cgroup file system in the container)
  assert_eq 67108864 "$(cat "/sys/fs/cgroup/$CTD_SLICE/$unit/memory.max")" "the scope's memory.max"
  assert_ok c task kill -s SIGKILL "$id"
  wait_task_status "$id" STOPPED
  assert_ok c task delete "$id"
  assert_eq ActiveState=inactive "$(systemctl show "$unit" -p ActiveState)" "the scope after task delete"
  assert_eq "" "$(ctr_cgroup_dirs "$id")" "the scope's cgroup after task delete"
}

case_missing_executable() {
  local id=noexec-$CASENUM
  gone_at_exit "$id"
  ctr_run "$id" --rm "$IMAGE" "$id" /bin/nonexistent-binary
  assert_ne 0 "$RC" "ctr run of a missing executable"
  # the shim's message: "OCI runtime create failed: <last error line of the runtime's JSON log>"
  assert_contains "$ERR" "OCI runtime create failed: " "ctr shows the shim's create error"
  assert_contains "$ERR" "$ERR_NOEXEC" "the runtime's own error text"
  assert_eq "" "$(c container ls -q | grep -x "$id" || true)" "--rm after a failed start"
  [ -z "$(ls -A "$RUNC_ROOT/$NS" 2>/dev/null)" ] || fail "runtime state left: $(ls -A "$RUNC_ROOT/$NS")"
  [ -z "$(ctr_cgroup_dirs "$id")" ] || fail "cgroup left: $(ctr_cgroup_dirs "$id")"
}

case_bad_config() {
  local id=badcfg-$CASENUM
  gone_at_exit "$id"
  # containerd passes the mount through; the runtime refuses the config at create
  ctr_run "$id" --rm --mount type=bind,src=/nonexistent-bind-source,dst=/x,options=rbind:ro "$IMAGE" "$id" true
  assert_ne 0 "$RC" "ctr run with a missing bind source"
  assert_contains "$ERR" "OCI runtime create failed: " "ctr shows the shim's create error"
  assert_contains "$ERR" "$ERR_BINDSRC" "the runtime's own error text"
  assert_eq "" "$(c container ls -q | grep -x "$id" || true)" "--rm after a failed create"
  [ -z "$(ls -A "$RUNC_ROOT/$NS" 2>/dev/null)" ] || fail "runtime state left: $(ls -A "$RUNC_ROOT/$NS")"
}

case_policy_annotation_refused() {
  # Policies are ours: runc runs the container and ignores the annotation.
  known_fail runc crun
  local id=polbad-$CASENUM
  gone_at_exit "$id"
  ctr_run "$id" --rm --annotation org.sharness.policy=/etc/passwd "$IMAGE" "$id" true
  assert_ne 0 "$RC" "a policy annotation holding a path"
  assert_contains "$ERR" "OCI runtime create failed: " "ctr shows the shim's create error"
  assert_contains "$ERR" 'annotation org.sharness.policy: "/etc/passwd" is not a policy name' "the runtime's own error text"
}

case_policy_annotation_applied() {
  known_fail runc crun
  local id=pol-$CASENUM wrap=$CASEDIR/runtime-with-config
  gone_at_exit "$id"
  # As an operator would install it: a runtime config naming the policy directory. The shim
  # calls BinaryName with fixed arguments, so a wrapper adds --config (the CRI config's
  # BinaryName may point at such a wrapper too).
  printf '{"policyDirs": ["%s"]}\n' "$(installed_policies)" >"$CASEDIR/runtime.json"
  printf '#!/bin/sh\nexec %q --config %q "$@"\n' "$RUNTIME" "$CASEDIR/runtime.json" >"$wrap"
  chmod 0755 "$wrap"
  RC=0
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  c run --runc-binary "$wrap" --runc-root "$RUNC_ROOT" --fifo-dir "$CTD/fifo" --cgroup "$(ctr_cg "$id")" \
    --rm --annotation org.sharness.policy=harsh "$IMAGE" "$id" \
    sh -c 'echo "policy=$SHARNESS_POLICY_ID"; grep -E "^(NoNewPrivs|Seccomp|CapEff):" /proc/self/status; id -u' \
    >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/$id.out") ERR=$(<"$CASEDIR/$id.err")
  echo "exit $RC; stdout: $OUT; stderr: $ERR"
  assert_rc 0 "ctr run under the harsh policy"
  assert_line "$OUT" '^policy=harsh$' "SHARNESS_POLICY_ID inside"
  assert_line "$OUT" '^NoNewPrivs:[[:space:]]+1$'
  assert_line "$OUT" '^Seccomp:[[:space:]]+2$'
  assert_line "$OUT" '^CapEff:[[:space:]]+0+$'
  assert_ne 0 "$(tail -n1 <<<"$OUT")" "uid inside (harsh: a throwaway uid)"
}

# task_exec EXEC_ID [EXEC_ARGS...] ID CMD...: `ctr task exec` (foreground); sets OUT (stdout and
# stderr, as ctr shows them) and RC.
task_exec() {
  local eid=$1; shift
  RC=0
  c task exec --fifo-dir "$CTD/fifo" --exec-id "$eid" "$@" >"$CASEDIR/$eid.out" 2>&1 </dev/null || RC=$?
  OUT=$(tr -d '\r' <"$CASEDIR/$eid.out")
  echo "task exec $eid: exit $RC: $OUT"
}

case_exec_held_to_the_floor() {
  # The operator's floor (--policy harsh, as Docker's runtimeArgs or a BinaryName wrapper set it)
  # holds `ctr task exec`: the shim hands the runtime a process document copied from the
  # container's spec (uid 0, containerd's default capabilities), which runs as harsh's throwaway
  # uid without a capability; another uid is refused, with the runtime's error shown by ctr.
  known_fail runc crun
  local ctl=floorctl-$CASENUM id=floor-$CASENUM wrap=$CASEDIR/runtime-harsh uid show
  show='id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status'
  gone_at_exit "$ctl" "$id"
  # control: without a floor, --user 1234 and --user 0 are what they say
  sleeping_task "$ctl"
  task_exec c1 --user 1234 "$ctl" id -u
  assert_rc 0 "control: task exec --user 1234 without a floor"
  assert_eq 1234 "$OUT" "control: uid inside"
  task_exec c0 --user 0 "$ctl" id -u
  assert_eq 0 "$OUT" "control: --user 0 without a floor"
  gone "$ctl"
  printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$RUNTIME" "$(installed_policies)/harsh.json" >"$wrap"
  chmod 0755 "$wrap"
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  RC=0
  c run --runc-binary "$wrap" --runc-root "$RUNC_ROOT" --fifo-dir "$CTD/fifo" --cgroup "$(ctr_cg "$id")" \
    -d "$IMAGE" "$id" sleep 50 >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  assert_rc 0 "ctr run -d under --policy harsh: $(<"$CASEDIR/$id.err")"
  note_shim "$id"
  wait_task_status "$id" RUNNING
  task_exec ok "$id" sh -c "$show"
  assert_rc 0 "an ordinary ctr task exec under harsh"
  uid=$(head -1 <<<"$OUT")
  assert_match "$uid" '^[0-9]+$' "uid inside"
  assert_ne 0 "$uid" "uid of an ordinary exec under harsh (the throwaway uid)"
  assert_line "$OUT" '^CapEff:[[:space:]]+0+$' "no capability (containerd's defaults were asked for)"
  assert_line "$OUT" '^NoNewPrivs:[[:space:]]+1$'
  task_exec u1234 --user 1234 "$id" id -u
  assert_ne 0 "$RC" "ctr task exec --user 1234 under harsh"
  assert_contains "$OUT" "OCI runtime exec failed" "ctr shows the shim's exec error"
  assert_contains "$OUT" "exec: user 1234:" "the runtime's own error text"
  assert_contains "$OUT" "is not the floor's user (harsh: $uid:$uid)" "the bound and the floor's value"
  # --user 0 is the container's own create-time user, which ctr sends anyway: never root
  task_exec u0 --user 0 "$id" id -u
  if [ "$RC" = 0 ]; then
    assert_eq "$uid" "$OUT" "ctr task exec --user 0 under harsh runs as the floor's uid"
  else
    assert_contains "$OUT" "is not the floor's user (harsh: " "ctr task exec --user 0 under harsh"
  fi
  assert_eq RUNNING "$(task_status "$id")" "the task after the refused execs"
  gone "$id"
}

# rootfs_count ID: the counter of task ID, read from its root file system where the shim mounted
# it (0 before the first write, or while it is being rewritten and empty for a moment).
rootfs_count() {
  local v
  v=$(cat "$CTD/state/io.containerd.runtime.v2.task/$NS/$1/rootfs/cnt" 2>/dev/null) || true
  echo "${v:-0}"
}

# wait_count_past ID N: until the counter of task ID is above N (15 s).
wait_count_past() {
  wait_for sh -c "v=\$(cat '$CTD/state/io.containerd.runtime.v2.task/$NS/$1/rootfs/cnt' 2>/dev/null); [ \"\${v:-0}\" -gt $2 ]" ||
    fail "task $1: counter at $(rootfs_count "$1"), expected above $2"
}

# containerd's checkpoint (docs/checkpoint.md, "Clients"): `ctr container checkpoint --task --rw`
# pauses the task, has the shim call the runtime's `checkpoint --image-path TMP --work-path W
# --file-locks --leave-running`, stores the image, the rw layer, the spec and the runtime's
# options as an image REF, and resumes the task; `ctr container restore --live --rw NEW REF` makes
# a container NEW from it, and the shim calls the runtime's `restore --detach --pid-file F
# -no-subreaper --image-path DIR --bundle B NEW` at task start. The counter goes on from its count.
case_checkpoint_restore() {
  local id=ckpt-$CASENUM new=rest-$CASENUM ref=sharness.test/checkpoint-$CASENUM:latest
  local wrap=$CASEDIR/runtime-criu criu n m calls
  criu=$(criu4) || skip "no CRIU 4.0 or later on this host (scripts/criu-trixie.sh failed)"
  gone_at_exit "$id" "$new"
  # The shim calls BinaryName with fixed arguments: a wrapper names CRIU (runc takes --criu too)
  # and records each call.
  printf '#!/bin/sh\necho "$*" >>%q\nexec %q --criu %q "$@"\n' "$CASEDIR/calls" "$RUNTIME" "$criu" >"$wrap"
  chmod 0755 "$wrap"
  echo "$id" >>"$CLIENT_TMP/ctr.ids"
  echo "$new" >>"$CLIENT_TMP/ctr.ids"
  RC=0
  # RUNFLAGS with the wrapper for the binary (the rest: root, FIFOs, the cgroup driver)
  c run --runc-binary "$wrap" "${RUNFLAGS[@]:2}" --cgroup "$(ctr_cg "$id")" \
    -d "$IMAGE" "$id" sh -c 'i=0; while :; do i=$((i+1)); echo $i > /cnt; sleep 0.1; done' \
    >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  assert_rc 0 "ctr run -d of the counter: $(<"$CASEDIR/$id.err")"
  note_shim "$id"
  wait_task_status "$id" RUNNING
  # past 30 (3 s of counting): a counter started afresh at the restore is read below that
  wait_count_past "$id" 30
  n=$(rootfs_count "$id")
  echo "counting past $n; ctr container checkpoint at $(date +%T)"
  RC=0
  c container checkpoint --task --rw "$id" "$ref" >"$CASEDIR/ckpt.out" 2>&1 || RC=$?
  assert_rc 0 "ctr container checkpoint --task --rw: $(<"$CASEDIR/ckpt.out")"
  assert_line "$(c image ls -q)" "^$ref\$" "the checkpoint image"
  assert_eq RUNNING "$(task_status "$id")" "the task after the checkpoint (the shim asks for --leave-running)"
  # the original goes, so that only the restored counter writes
  gone "$id"
  echo "ctr container restore at $(date +%T)"
  RC=0
  c container restore --live --rw "$new" "$ref" >"$CASEDIR/restore.out" 2>&1 </dev/null || RC=$?
  calls=$(<"$CASEDIR/calls")
  echo "the runtime's calls:"; grep -E '(^| )(checkpoint|restore) ' <<<"$calls" || true
  assert_rc 0 "ctr container restore --live --rw: $(<"$CASEDIR/restore.out")"
  assert_line "$calls" ' checkpoint .*--image-path .*--leave-running' "the shim's checkpoint call"
  assert_line "$calls" ' restore .*--image-path .*--bundle .* '"$new"'$' "the shim's restore call"
  note_shim "$new"
  wait_task_status "$new" RUNNING
  m=$(rootfs_count "$new")
  # the rw layer came back with the checkpoint's count; the restored process writes past it
  wait_count_past "$new" "$m"
  m=$(rootfs_count "$new")
  [ "$m" -gt "$n" ] || fail "the restored counter is at $m, below the $n it had passed before the checkpoint: started afresh"
  echo "count before the checkpoint $n, after the restore $m"
  assert_ok c task kill -s SIGKILL "$new"
  wait_task_status "$new" STOPPED
  assert_ok c task delete "$new"
  assert_ok c container rm "$new"
  assert_ok c image rm --sync "$ref"
}

# cri_running: the CRI containerd is up (its start is in the suite's setup)
cri_running() {
  [ -n "$CRI_PID" ] && kill -0 "$CRI_PID" 2>/dev/null && return 0
  fail "the containerd started with the CRI config is not running; its log: $(tail -20 "$CRI/containerd.log" 2>/dev/null || true)"
}

case_cri_config() {
  local js rt
  diff "$SHARNESS_SOURCE_DIR/contrib/containerd/config.toml" "$CRI/contrib.toml" || true
  [ "$(grep -c "BinaryName = \"$RUNTIME\"" "$CRI/contrib.toml")" = 1 ] || fail "BinaryName not replaced in the copy"
  cri_running
  assert_line "$(ctr --address "$CRI_SOCK" plugins ls)" '^io\.containerd\.grpc\.v1[[:space:]]+cri[[:space:]].*[[:space:]]ok[[:space:]]*$' \
    "the CRI plugin loaded"
  js=$(cri status "$CRI_SOCK")
  rt=$(jq -c '.containerd.runtimes.sharness' <<<"$js")
  echo "CRI config, handler sharness: $rt"
  assert_eq io.containerd.runc.v2 "$(jq -r .runtimeType <<<"$rt")" "runtime_type"
  assert_eq "$RUNTIME" "$(jq -r .options.BinaryName <<<"$rt")" "options.BinaryName"
  assert_eq "$CRI/sharness-root" "$(jq -r .options.Root <<<"$rt")" "options.Root"
  assert_eq '["org.sharness.policy"]' "$(jq -c .PodAnnotations <<<"$rt")" "pod_annotations"
  assert_eq '["org.sharness.policy"]' "$(jq -c .ContainerAnnotations <<<"$rt")" "container_annotations"
  # runc stays the default handler: pods without a RuntimeClass are not moved to us
  assert_eq runc "$(jq -r .containerd.defaultRuntimeName <<<"$js")" "default_runtime_name"
  assert_eq io.containerd.runc.v2 "$(jq -r .containerd.runtimes.runc.runtimeType <<<"$js")" "the runc handler"
}

# run_pod NAME [POLICY]: RunPodSandbox with handler sharness; sets POD (its id), RC and ERR.
run_pod() {
  RC=0
  # under systemd a pod's parent is a slice (the kubelet's kubepods-...-pod<uid>.slice): our own
  local parent=/$CGPARENT/pod-$1
  [ "$CTD_CGD" != systemd ] || parent=$CTD_SLICE
  POD=$(cri runp "$CRI_SOCK" sharness "$1" "$parent" "${@:2}" 2>"$CASEDIR/runp.err") || RC=$?
  ERR=$(<"$CASEDIR/runp.err")
  echo "RunPodSandbox $1: exit $RC, id '$POD', error '$ERR'"
  [ -z "$POD" ] || echo "$POD" >>"$CRI/pods"
}

# pods_gone: stop and remove every pod sandbox of the suite, and the empty pod-level cgroups
# (errors ignored).
pods_gone() {
  local id d
  for id in $(cat "$CRI/pods" 2>/dev/null); do
    cri stopp "$CRI_SOCK" "$id" >/dev/null 2>&1 || true
    cri rmp "$CRI_SOCK" "$id" >/dev/null 2>&1 || true
  done
  for d in $(cgroup_dirs); do
    find "$d" -mindepth 1 -maxdepth 1 -type d -name 'pod-*' -exec rmdir {} \; 2>/dev/null || true
  done
}

# remove_pod ID NAME: StopPodSandbox and RemovePodSandbox, both must succeed; then, as the
# kubelet does, remove the pod-level cgroup, which the runtime must have emptied of the
# sandbox's own (rmdir fails on a cgroup with children).
remove_pod() {
  local d
  cri stopp "$CRI_SOCK" "$1" >"$CASEDIR/stopp.out" 2>&1 ||
    fail "StopPodSandbox $1: $(<"$CASEDIR/stopp.out"); the CRI containerd's log: $(tail -n 30 "$CRI/containerd.log")"
  assert_ok cri rmp "$CRI_SOCK" "$1"
  # under systemd the sandbox was the scope cri-containerd-<id>.scope in our slice
  [ "$CTD_CGD" != systemd ] || [ ! -d "/sys/fs/cgroup/$CTD_SLICE/cri-containerd-$1.scope" ] ||
    fail "the sandbox's scope is left: /sys/fs/cgroup/$CTD_SLICE/cri-containerd-$1.scope"
  for d in $(cgroup_dirs "pod-$2"); do
    rmdir "$d" || fail "the sandbox's cgroup is left under $d: $(find "$d" -mindepth 1 -type d)"
  done
}

case_cri_pod() {
  cri_running
  trap pods_gone EXIT
  # a pod sandbox (the "pause" container: our busybox's sh, which exits at once) through the
  # handler: CRI -> runc v2 shim -> BinaryName --root Root/k8s.io create ...
  run_pod p1
  assert_rc 0 "RunPodSandbox with the sharness handler"
  assert_match "$POD" '^[0-9a-f]{64}$' "sandbox id"
  [ -d "$CRI/sharness-root/k8s.io" ] || fail "the runtime never got the handler's Root: no $CRI/sharness-root/k8s.io"
  remove_pod "$POD" p1
  assert_eq "" "$(awk -v t="$CRI/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)" "the pod's mounts after RemovePodSandbox"
}

case_cri_pod_annotation() {
  # the pod annotation reaches the runtime through pod_annotations: ours refuses a policy that is
  # not installed, naming it; runc ignores annotations and runs the pod
  known_fail runc crun
  local d
  cri_running
  trap pods_gone EXIT
  run_pod p2 no-such-policy
  assert_ne 0 "$RC" "RunPodSandbox of a pod naming a policy that is not installed"
  assert_contains "$ERR" "OCI runtime create failed: " "the shim's create error"
  assert_contains "$ERR" 'annotation org.sharness.policy: policy "no-such-policy": not found in the policy directories' \
    "the runtime's own error text, through CRI"
  [ -z "$POD" ] || remove_pod "$POD" p2
  for d in $(cgroup_dirs pod-p2); do rmdir "$d" || fail "cgroup left after the refused pod: $d"; done
}

case_nothing_left() {
  local id m
  for id in $(c task ls -q); do fail "task left by an earlier case: $id"; gone "$id"; done
  for id in $(c container ls -q); do fail "container left by an earlier case: $id"; gone "$id"; done
  assert_ok c image rm --sync "$IMAGE"
  assert_eq "" "$(c image ls -q)" "images in $NS"
  assert_eq "" "$(c snapshot ls | tail -n +2)" "snapshots in $NS"
  assert_ok ctr --address "$SOCK" namespace rm "$NS"
  stop_pid "$CTD_PID"
  ! kill -0 "$CTD_PID" 2>/dev/null || fail "containerd (pid $CTD_PID) still runs"
  if [ -n "$CRI_PID" ]; then
    ctr --address "$CRI_SOCK" --namespace k8s.io image rm --sync "$IMAGE" >/dev/null 2>&1 || true
    assert_eq "" "$(ctr --address "$CRI_SOCK" --namespace k8s.io container ls -q)" "containers left by CRI"
    stop_pid "$CRI_PID"
    ! kill -0 "$CRI_PID" 2>/dev/null || fail "the CRI containerd (pid $CRI_PID) still runs"
  fi
  local pid
  while read -r pid; do
    [ -n "$pid" ] || continue
    if ours "$pid"; then fail "process $pid still runs: $(tr '\0' ' ' <"/proc/$pid/cmdline")"; stop_pid "$pid"; fi
  done <"$PIDS"
  # and no process at all (a shim this suite did not note, say) that names our sockets or dirs
  assert_eq "" "$(our_procs)" "processes naming $CLIENT_TMP"
  for id in $(sort -u "$CLIENT_TMP/ctr.ids"); do
    [ ! -e "$(shim_socket "$id")" ] || fail "shim socket of $id left: $(shim_socket "$id")"
  done
  m=$(awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)
  assert_eq "" "$m" "mounts under $TMP"
  # No container's state; the runtime's own per-root files stay: .uids (throwaway uid claims) and
  # .cache (compiled seccomp filters, pinned-file digests: docs/seccomp-cache.md).
  assert_eq "" "$(find "$RUNC_ROOT/$NS" -mindepth 1 -maxdepth 1 ! -name .uids ! -name .cache 2>/dev/null || true)" "runtime state under $RUNC_ROOT/$NS"
  assert_eq "" "$(ls -A "$RUNC_ROOT/$NS/.uids" 2>/dev/null || true)" "uid claims under $RUNC_ROOT/$NS/.uids"
  assert_eq "" "$(ls -A "$CTD/fifo" 2>/dev/null || true)" "FIFOs"
  assert_eq "" "$(for m in $(cgroup_dirs); do find "$m" -mindepth 1 -type d; done)" "container cgroups under $CGPARENT"
  assert_eq "" "$(for m in $(ctr_cgroup_dirs); do find "$m" -mindepth 1 -type d; done)" "container scopes under $CTD_SLICE"
}

tcase "private containerd answers, busybox image imported" case_setup
tcase "ctr run: output and exit code" case_run_output_exit
tcase "ctr run: stdin reaches the process" case_run_stdin
tcase "ctr run -t under a pty: a terminal inside, exit code" case_run_tty
tcase "ctr run -d, task exec: output, exit code, missing program" case_detach_exec
tcase "task ps: init and an exec'd process" case_task_ps
tcase "task kill: SIGTERM trapped (42), --all SIGKILL (137)" case_task_kill
tcase "task delete, container rm: state, shim, socket, cgroup, snapshot gone" case_task_delete_container_rm
tcase "systemd driver: the task is the scope sharness-ID.scope with MemoryMax, gone after delete" case_systemd_scope
tcase "missing executable: ctr shows the runtime's error" case_missing_executable
tcase "bad config (missing bind source): ctr shows the runtime's error" case_bad_config
tcase "policy annotation holding a path: ctr shows the runtime's refusal" case_policy_annotation_refused
tcase "policy annotation harsh through ctr run --annotation" case_policy_annotation_applied
tcase "task exec under the harsh floor: ordinary works, another uid refused" case_exec_held_to_the_floor
tcase "ctr container checkpoint --task --rw, restore --live --rw: the counter goes on" case_checkpoint_restore
tcase "contrib/containerd/config.toml: containerd's CRI plugin loads the sharness handler" case_cri_config
tcase "CRI: a pod sandbox runs through the sharness handler" case_cri_pod
tcase "CRI: the pod's org.sharness.policy reaches the runtime" case_cri_pod_annotation
tcase "nothing left: tasks, containers, images, namespace, daemons, shims, mounts" case_nothing_left
finish
