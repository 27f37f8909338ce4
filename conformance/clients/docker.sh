#!/usr/bin/env bash
# conformance/clients/docker.sh: Docker (Debian's docker.io: 20.10 in Debian 12, 26 in Debian 13)
# driving the runtime under test.
#
# A private dockerd (own --data-root, --exec-root, socket, pidfile, daemon.json, and the
# containerd it starts under its exec root). Its daemon.json is contrib/docker/daemon.json, the
# file the README tells users to install, with the path replaced:
#   "sharness"        -> $SHARNESS_RUNTIME
#   "sharness-harsh"  -> the same binary with the file's "runtimeArgs": ["--policy", "harsh"]
#                        (only when the runtime under test is ours: runc has no --policy)
#   "sharness-python3" -> (ours) "runtimeArgs": ["--policy", "python3"], the workload profile
# The default bridge is a private one (a bridge of our own with its own subnet, passed as
# --bridge), so a host dockerd's docker0 is never touched; "ip-forward": false so the host's
# ip_forward sysctl and FORWARD policy are left alone. Containers go under our own cgroup parent
# ($CGPARENT, which lib.sh cleans up too). On a host with systemd as PID 1 and pure cgroup v2 (the
# trixie guest, docs/vm.md) dockerd uses its systemd cgroup driver, as it does by default there:
# the parent is then a slice of this run's own, the shim calls the runtime with --systemd-cgroup,
# and each container is a scope docker-<id>.scope that the runtime makes through systemd (a case
# checks it with systemctl show). SHARNESS_DOCKER_CGROUP_DRIVER=cgroupfs|systemd overrides it.
#
# The CLI is /usr/bin/docker, Debian's 20.10 client from the same package as the daemon (API
# 1.41). /usr/local/bin/docker on this machine is a newer CLI (28.x) that shadows it on PATH
# (DESIGN.md §7); the client that ships with the daemon is the one this suite pins.
# SHARNESS_DOCKER_CLI=/usr/local/bin/docker runs it with the other one (it passes too: it
# negotiates the API down to the daemon's 1.41).
#
# The last case tears everything down and checks the host is as found: dockerd and its
# containerd and shims stopped by pid, no mounts under our dirs, our bridge and the iptables
# chains and rules dockerd added gone (iptables-save before and after compared), no cgroup dirs.
#
# SHARNESS_RUNTIME=runc bash conformance/clients/docker.sh runs the same cases against runc.

# shellcheck disable=SC1091  # lib.sh: tcase/assert_*/finish, $TMP, $RUNTIME, $CGPARENT
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck disable=SC1091  # client-lib.bash: ensure_pkgs, busybox_rootfs_tar, wait_for, stop_pid
. "$(dirname "${BASH_SOURCE[0]}")/client-lib.bash"

if ! ensure_pkgs docker.io iptables busybox-static; then
  echo "cannot install docker.io" >&2
  exit 1
fi
# Debian 13 ships the CLI apart from the daemon
[ -x /usr/bin/docker ] || ensure_pkgs docker-cli || { echo "cannot install docker-cli" >&2; exit 1; }
DK_MAJOR=$(/usr/sbin/dockerd --version | sed -n 's/^Docker version \([0-9]*\)\..*/\1/p')
DK_CGD=cgroupfs
systemd_v2_host && DK_CGD=systemd
DK_CGD=${SHARNESS_DOCKER_CGROUP_DRIVER:-$DK_CGD}
DK_SLICE=sharness_docker_$$.slice  # the cgroup parent under systemd (no '-': no parent slice implied)
echo "# dockerd $DK_MAJOR, cgroup driver $DK_CGD"

DOCKER_BIN=${SHARNESS_DOCKER_CLI:-/usr/bin/docker}
DOCKERD_BIN=/usr/sbin/dockerd
IMAGE=sharness-busybox:test

DK=$TMP/docker                 # everything of this daemon lives here
SOCK=$DK/docker.sock
DK_PIDFILE=$DK/dockerd.pid
DK_LOG=$DK/dockerd.log
DK_EXEC=$DK/exec                # --exec-root: containerd state, runtime state (runtime-<name>), netns
DK_DATA=$DK/data                # --data-root: images, layers, containerd content
export DOCKER_CONFIG=$DK/cli   # the CLI's own config dir: never ~/.docker
mkdir -p "$DK" "$DK_EXEC" "$DK_DATA" "$DOCKER_CONFIG"

# A private default bridge: a short name of our own and a /24 no route on the host uses yet.
BRIDGE=shdk$$
BRIDGE=${BRIDGE:0:15}
pick_subnet() {
  local i n
  for ((i = 0; i < 50; i++)); do
    n=$(( (RANDOM % 200) + 20 ))
    ip -4 route show | grep -q "^10\.231\.$n\." || ip -4 addr show | grep -q "10\.231\.$n\." || {
      echo "$n"; return 0; }
  done
  return 1
}
NET=$(pick_subnet) || { echo "no free 10.231.x.0/24 subnet" >&2; exit 1; }
SUBNET=10.231.$NET
GATEWAY=$SUBNET.1

# the policies as installed on this host (their pins: this host's busybox, the image's)
POLICIES=$(installed_policies)
HARSH=$POLICIES/harsh.json   # what "--policy harsh" resolves to here

# ---------------------------------------------------------------------------------------------
# Host snapshot (to compare with after the teardown)

# table<TAB>line for every chain policy, chain and rule, counters stripped (client-lib.bash).
ipt_lines() { iptables-save | ipt_parse; }
# What dockerd may add: its chains and any rule naming them, our bridge or our subnet; and
# the built-in chains' policies (dockerd sets FORWARD to DROP when it turns on ip_forward).
IPT_RE="DOCKER|$BRIDGE|${SUBNET//./\\.}\\.|^[a-z]+"$'\t'":(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) "
ipt_ours() { ipt_lines | grep -E "$IPT_RE" || true; }
links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }

ipt_ours >"$DK/iptables.before"
links >"$DK/links.before"
RUN_DOCKER_EXISTED=0
[ -e /run/docker ] && RUN_DOCKER_EXISTED=1
# dockerd's containerd (1.6) puts shim sockets in /run/containerd/s whatever its root says.
RUN_CONTAINERD_EXISTED=0
[ -e /run/containerd ] && RUN_CONTAINERD_EXISTED=1

# ---------------------------------------------------------------------------------------------
# The daemon

# daemon.json: contrib/docker/daemon.json (what the README tells users to install) with the runtime
# path replaced, then our private settings. "sharness-harsh" keeps the file's runtimeArgs
# (--policy harsh, a name) and gets --config pointing at a runtime.json of ours whose policyDirs
# is $POLICIES (installed as `make install` does), so the name resolves without touching /etc/sharness. With
# another runtime (runc has no --policy) that entry is dropped.
CONTRIB_DAEMON_JSON=$SHARNESS_SOURCE_DIR/contrib/docker/daemon.json
# "sharness-python3" (ours only) runs Python under the python3 profile, pinned from the image the
# suite imports ($DK/policies, looked in first).
write_daemon_json() {
  jq -n --arg mine "$DK/policies" --arg d "$POLICIES" '{policyDirs: [$mine, $d]}' >"$DK/runtime.json"
  jq --arg p "$RUNTIME" --arg cfg "$DK/runtime.json" --argjson ours "$OURS" \
    --arg br "$BRIDGE" --arg cg "$(dk_parent)" --arg key "$DK/key.json" --arg cgd "$DK_CGD" \
    --argjson major "${DK_MAJOR:-20}" '
    .runtimes |= with_entries(.value.path = $p) |
    if $ours == 1 then .runtimes["sharness-harsh"].runtimeArgs |= ["--config", $cfg] + .
      | .runtimes["sharness-python3"] = {path: $p, runtimeArgs: ["--config", $cfg, "--policy", "python3"]}
    else del(.runtimes["sharness-harsh"]) end |
    . + { bridge: $br, "ip-forward": false, "cgroup-parent": $cg,
          "exec-opts": ["native.cgroupdriver=" + $cgd], "storage-driver": "overlay2" } |
    # dockerd 25 dropped key.json and its flag; 20.10 writes /etc/docker/key.json without it
    if $major < 25 then . + { "deprecated-key-path": $key } else . end' \
    "$CONTRIB_DAEMON_JSON" >"$DK/daemon.json"
}

# dk_parent: the cgroup parent dockerd is given; dk_cgroup_dirs [ID]: its cgroup dirs (of container ID)
dk_parent() { if [ "$DK_CGD" = systemd ]; then echo "$DK_SLICE"; else echo "/$CGPARENT"; fi; }
dk_cgroup_dirs() { client_cgroup_dirs "$DK_CGD" "$DK_SLICE" docker "$@"; }

start_dockerd() {
  write_daemon_json
  ip link add "$BRIDGE" type bridge || return 1
  ip addr add "$GATEWAY/24" dev "$BRIDGE" || return 1
  # setsid: its own session, so no signal meant for this suite's shell reaches it; stopped by pid.
  setsid "$DOCKERD_BIN" --data-root "$DK_DATA" --exec-root "$DK_EXEC" -H "unix://$SOCK" \
    --pidfile "$DK_PIDFILE" --config-file "$DK/daemon.json" </dev/null >"$DK_LOG" 2>&1 &
  echo $! >"$DK/dockerd.spawned"
  wait_for dk version
}

# dk ARGS...: Debian's docker CLI talking to our daemon only.
dk() { timeout -k 5 120 "$DOCKER_BIN" -H "unix://$SOCK" "$@"; }

# pids of processes whose command line names our private dir (containerd, shims) but dockerd's.
our_procs() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
    { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF -- "$DK/" && echo "$p"
  done
  return 0
}

# Stop everything this suite started, by pid, and put the host back. Safe to run twice.
teardown_docker() {
  local pid p
  if [ -S "$SOCK" ] && dk version >/dev/null 2>&1; then
    dk ps -aq --no-trunc 2>/dev/null | while read -r p; do dk rm -f "$p" >/dev/null 2>&1; done
    dk rmi -f "$IMAGE" >/dev/null 2>&1
  fi
  pid=$(cat "$DK_PIDFILE" 2>/dev/null || cat "$DK/dockerd.spawned" 2>/dev/null)
  stop_pid "$pid"
  # dockerd stops its managed containerd; anything of ours still running goes by pid.
  for p in $(our_procs); do stop_pid "$p"; done
  # deepest first; dockerd bind-mounts its data root onto itself, hence the lazy second try
  while read -r p; do
    umount "$p" 2>/dev/null || umount -l "$p" 2>/dev/null
  done < <(awk -v t="$DK/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  ipt_undo
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
  [ "$DK_CGD" != systemd ] || systemctl stop "$DK_SLICE" >/dev/null 2>&1
  if [ "$RUN_DOCKER_EXISTED" = 0 ] && [ -d /run/docker ]; then
    rmdir /run/docker/plugins /run/docker 2>/dev/null
  fi
  if [ "$RUN_CONTAINERD_EXISTED" = 0 ] && [ -d /run/containerd ]; then
    rmdir /run/containerd/s /run/containerd 2>/dev/null
  fi
  return 0
}

# Delete what dockerd added to iptables (what is there now and was not before): rules first,
# then its chains.
ipt_undo() {
  local t line new
  new=$(comm -13 "$DK/iptables.before" <(ipt_ours))
  while IFS=$'\t' read -r t line; do
    [[ $line == -A* ]] || continue
    eval "iptables -t $t -D ${line#-A }" 2>/dev/null
  done <<<"$new"
  while IFS=$'\t' read -r t line; do
    [[ $line == :* ]] || continue
    line=${line#:}; line=${line%% *}
    case $line in INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) continue ;; esac
    iptables -t "$t" -F "$line" 2>/dev/null && iptables -t "$t" -X "$line" 2>/dev/null
  done <<<"$new"
  # a built-in chain whose policy differs goes back to what it was: ACCEPT when its table was not
  # there before (dockerd's first start made it)
  while IFS=$'\t' read -r t line; do
    [[ $line =~ ^:(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING)\ [A-Z]+$ ]] || continue
    iptables -t "$t" -P "${BASH_REMATCH[1]}" "$(ipt_policy_in "$DK/iptables.before" "$t" "${BASH_REMATCH[1]}")"
  done < <(ipt_compare "$DK/iptables.before" <(ipt_ours) | sed -n 's/^[<>] //p')
  return 0
}

# Our teardown first (a safety net: the last case does it too), then lib.sh's, with the exit code.
_docker_exit() {
  local rc=$?
  teardown_docker
  (exit "$rc")
  _cleanup
}
trap _docker_exit EXIT

# ---------------------------------------------------------------------------------------------
# Helpers for the cases

# dk_run ARGS...: `docker run` (output to files); sets OUT, ERR, RC.
dk_run() {
  RC=0
  dk run "$@" >"$CASEDIR/dk.out" 2>"$CASEDIR/dk.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/dk.out")
  ERR=$(<"$CASEDIR/dk.err")
  return 0
}

# dk_cmd ARGS...: any other docker command, same contract.
dk_cmd() {
  RC=0
  dk "$@" >"$CASEDIR/dk.out" 2>"$CASEDIR/dk.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/dk.out")
  ERR=$(<"$CASEDIR/dk.err")
  return 0
}

# The runtime's state dir (--root) as the shim passes it: <exec-root>/runtime-<name>/moby, where
# Docker 20.10 names it after the default runtime (runc) whichever runtime a container uses.
rt_state_dir() { local d; for d in "$DK_EXEC"/runtime-*/moby; do [ -d "$d" ] && echo "$d" && return 0; done; }

# The OCI bundle of a running container (containerd's v2 task dir).
bundle_of() { echo "$DK_EXEC/containerd/daemon/io.containerd.runtime.v2.task/moby/$1"; }

# The text a failed container shows the user comes from the runtime's JSON log: the shim passes
# --log <bundle>/log.json --log-format json and quotes the last "error" line's msg after "OCI
# runtime create failed: "; only without such a line does it fall back to the runtime's exit
# status and output ("... did not terminate successfully: exit status 1: ...").
assert_runtime_error() {  # SUBSTRING_OURS SUBSTRING_RUNC
  assert_contains "$ERR" "OCI runtime create failed: " "docker's error wrapper"
  assert_not_contains "$ERR" "did not terminate successfully" "the shim's fallback (no JSON error line)"
  if [ "$OURS" = 1 ]; then
    assert_contains "$ERR" "$1" "our error text"
  else
    assert_contains "$ERR" "$2" "$RUNTIME_NAME's error text"
  fi
}

# After a failed `docker run --rm`: Docker keeps the container record ("created"; --rm acts on
# exit only), but the runtime must have nothing of it: no state, no cgroup, nothing running. Then
# `docker rm` removes the record.
assert_no_runtime_leftovers() {
  local id
  id=$(dk ps -aq --no-trunc -l)
  [ -n "$id" ] || return 0
  assert_eq "" "$(dk ps -q --no-trunc)" "running containers after a failed create"
  assert_not_contains "$("$RUNTIME" --root "$(rt_state_dir)" list -q 2>/dev/null)" "$id" "runtime list"
  assert_eq "" "$(dk_cgroup_dirs "$id")" "cgroup dirs of the failed container"
  assert_ok dk rm "$id"
}

# ---------------------------------------------------------------------------------------------
# Cases

case_daemon() {
  local info
  dk version >/dev/null || { tail -20 "$DK_LOG" >&2; fail "dockerd did not come up"; }
  info=$(dk info --format '{{json .Runtimes}}')
  echo "$info"
  assert_eq "$DK_DATA $DK_CGD" "$(dk info --format '{{.DockerRootDir}} {{.CgroupDriver}}')" "private data root, cgroup driver"
  # (Docker 26 adds each runtime's "status", the features document it read from it)
  assert_eq "$RUNTIME" "$(jq -r .sharness.path <<<"$info")" "runtime registered by name"
  if [ "$OURS" = 1 ]; then
    assert_eq "$RUNTIME"' ["--config","'"$DK/runtime.json"'","--policy","harsh"]' \
      "$(jq -r '.["sharness-harsh"] | "\(.path) \(.runtimeArgs | tojson)"' <<<"$info")" "harsh runtime name with runtimeArgs"
  fi
  # imported (at start-up) from the busybox-static rootfs
  assert_eq '["sh"]' "$(dk image inspect -f '{{json .Config.Cmd}}' "$IMAGE")" "the imported image"
}

case_run_output_exit() {
  dk_run --rm --runtime sharness --network none "$IMAGE" sh -c 'echo to-stdout; echo to-stderr >&2; exit 3'
  assert_eq 3 "$RC" "exit code of docker run"
  assert_eq to-stdout "$OUT" "stdout"
  assert_contains "$ERR" to-stderr "stderr"
  dk_run --rm --runtime sharness --network none "$IMAGE" true
  assert_eq 0 "$RC" "exit 0"
  # stdin piped through -i
  RC=0
  OUT=$(echo piped-in | dk run --rm -i --runtime sharness --network none "$IMAGE" cat) || RC=$?
  assert_eq 0 "$RC" "run -i"
  assert_eq piped-in "$OUT" "stdin through -i"
}

case_run_tty() {
  local cmd
  printf -v cmd '%q ' "$DOCKER_BIN" -H "unix://$SOCK" run --rm -t --runtime sharness --network none "$IMAGE" \
    sh -c 'tty; [ -t 0 ] && [ -t 1 ] && echo both-ttys; exit 5'
  RC=0
  # script(1) gives docker a real pty of its own: -e returns the child's exit code
  script -qec "$cmd" /dev/null </dev/null >"$CASEDIR/tty.out" 2>&1 || RC=$?
  OUT=$(tr -d '\r' <"$CASEDIR/tty.out")
  echo "$OUT"
  assert_eq 5 "$RC" "exit code through the pty"
  assert_line "$OUT" '^/dev/pts/[0-9]+$'
  assert_line "$OUT" '^both-ttys$'
}

case_detach_exec() {
  local id cmd
  dk_run -d --runtime sharness --network none "$IMAGE" sleep 600
  assert_eq 0 "$RC" "run -d: $ERR"
  id=$OUT
  assert_eq running "$(dk inspect -f '{{.State.Status}}' "$id")" "status"
  # the runtime itself knows the container, in the state dir dockerd gave it
  assert_contains "$("$RUNTIME" --root "$(rt_state_dir)" state "$id")" '"running"' "runtime state"
  dk_cmd exec "$id" sh -c 'echo exec-out; echo exec-err >&2; exit 7'
  assert_eq 7 "$RC" "exec exit code"
  assert_eq exec-out "$OUT" "exec stdout"
  assert_contains "$ERR" exec-err "exec stderr"
  dk_cmd exec "$id" true
  assert_eq 0 "$RC" "exec exit 0"
  # exec joins the container: same pid namespace (init is pid 1 = sleep)
  dk_cmd exec "$id" sh -c 'tr "\0" " " </proc/1/cmdline'
  assert_eq "sleep 600 " "$OUT" "exec sees the container's pid 1"
  # exec -t under a real pty
  printf -v cmd '%q ' "$DOCKER_BIN" -H "unix://$SOCK" exec -t "$id" sh -c 'tty; exit 4'
  RC=0
  script -qec "$cmd" /dev/null </dev/null >"$CASEDIR/tty.out" 2>&1 || RC=$?
  OUT=$(tr -d '\r' <"$CASEDIR/tty.out")
  assert_eq 4 "$RC" "exec -t exit code"
  assert_line "$OUT" '^/dev/pts/[0-9]+$'
  dk rm -f "$id" >/dev/null
}

case_stop_ignores_term() {
  local id i st
  dk_run -d --runtime sharness --network none "$IMAGE" \
    sh -c 'trap "echo got-TERM" TERM; echo ready; while :; do sleep 1; done'
  assert_eq 0 "$RC" "run -d: $ERR"
  id=$OUT
  for ((i = 0; i < 100; i++)); do
    dk logs "$id" 2>/dev/null | grep -q ready && break
    sleep 0.1
  done
  dk_cmd stop -t 2 "$id"
  assert_eq 0 "$RC" "docker stop: $ERR"
  st=$(dk inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$id")
  assert_eq "exited 137" "$st" "after stop -t 2 of a process that ignores SIGTERM"
  # SIGTERM reached it (and was ignored) before the SIGKILL
  assert_line "$(dk logs "$id" 2>&1)" '^got-TERM$'
  dk rm "$id" >/dev/null
}

case_rm() {
  local id cg
  dk_run -d --runtime sharness --network none "$IMAGE" sleep 600
  id=$OUT
  cg=$(dk_cgroup_dirs "$id")
  [ -n "$cg" ] || fail "no cgroup dir under $(dk_parent) for the container"
  # a running container: rm without -f is refused, with -f it goes
  assert_fail dk rm "$id"
  assert_ok dk rm -f "$id"
  assert_eq "" "$(dk ps -aq --filter "id=$id")" "docker ps -a after rm -f"
  assert_eq "" "$(dk_cgroup_dirs "$id")" "cgroup dirs after rm -f"
  assert_not_contains "$("$RUNTIME" --root "$(rt_state_dir)" list -q 2>/dev/null)" "$id" "runtime list"
  # a stopped one: plain rm
  dk_run --runtime sharness --network none "$IMAGE" true
  id=$(dk ps -aq --no-trunc -l)
  assert_eq exited "$(dk inspect -f '{{.State.Status}}' "$id")"
  assert_ok dk rm "$id"
  assert_eq "" "$(dk ps -aq --filter "id=$id")" "docker ps -a after rm"
  [ ! -e "$(rt_state_dir)/$id" ] || fail "runtime state of $id left"
}

case_network_none() {
  local id hooks
  dk_run -d --runtime sharness --network none "$IMAGE" sleep 600
  id=$OUT
  # Docker puts its libnetwork-setkey prestart hook in the config even with --network none
  hooks=$(jq -c '[.hooks.prestart[]?.args]' "$(bundle_of "$id")/config.json")
  echo "prestart: $hooks"
  assert_contains "$hooks" libnetwork-setkey "docker's prestart hook in config.json"
  dk_cmd exec "$id" sh -c 'ls /sys/class/net'
  assert_eq lo "$OUT" "interfaces with --network none"
  dk rm -f "$id" >/dev/null
}

case_network_bridge() {
  local id hooks veth
  dk_run -d --runtime sharness "$IMAGE" sleep 600
  assert_eq 0 "$RC" "run -d on the default bridge: $ERR"
  id=$OUT
  hooks=$(jq -c '[.hooks.prestart[]?.args]' "$(bundle_of "$id")/config.json")
  assert_contains "$hooks" libnetwork-setkey "docker's prestart hook in config.json"
  # eth0 exists and has its address only because the hook ran and called back into dockerd
  dk_cmd exec "$id" ip -o -4 addr show dev eth0
  echo "$OUT"
  assert_match "$OUT" "inet $SUBNET\\.[0-9]+/24" "eth0 address on our bridge"
  assert_eq "$(dk inspect -f '{{.NetworkSettings.IPAddress}}' "$id")" \
    "$(echo "$OUT" | sed -n 's|.*inet \([0-9.]*\)/.*|\1|p')" "address docker reports"
  # and the veth is plugged into our bridge: the gateway (the bridge's address) answers
  veth=$(ip -o link show master "$BRIDGE" | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }')
  [ -n "$veth" ] || fail "no veth on $BRIDGE"
  echo "$veth" >>"$DK/veths"
  dk_cmd exec "$id" ping -c 1 -W 5 "$GATEWAY"
  assert_eq 0 "$RC" "ping the bridge from inside: $OUT $ERR"
  dk rm -f "$id" >/dev/null
  [ -z "$(ip -o link show master "$BRIDGE")" ] || fail "veth left on $BRIDGE after rm"
}

case_error_missing_exe() {
  dk_run --rm --runtime sharness --network none "$IMAGE" /no/such-binary
  echo "$ERR"
  [ "$RC" != 0 ] || fail "docker run of a missing executable exited 0"
  assert_contains "$ERR" /no/such-binary "names the executable"
  assert_runtime_error 'exec: "/no/such-binary": ENOENT (No such file or directory)' \
    'runc create failed: unable to start container process: exec: "/no/such-binary"'
  assert_no_runtime_leftovers
  # exec of a missing executable in a running container
  local id
  dk_run -d --runtime sharness --network none "$IMAGE" sleep 600
  id=$OUT
  dk_cmd exec "$id" /no/exec-binary
  echo "$OUT$ERR"
  [ "$RC" != 0 ] || fail "docker exec of a missing executable exited 0"
  # (docker exec prints the runtime's error on stdout)
  assert_contains "$OUT$ERR" "OCI runtime exec failed" "docker's error wrapper"
  assert_contains "$OUT$ERR" /no/exec-binary "names the executable"
  dk rm -f "$id" >/dev/null
}

case_error_bad_config() {
  # Docker accepts the sysctl (an ipc-namespaced key); the runtime cannot write "abc" to it
  dk_run --rm --runtime sharness --network none --sysctl kernel.shm_rmid_forced=abc "$IMAGE" true
  echo "$ERR"
  [ "$RC" != 0 ] || fail "a container with an unwritable sysctl ran"
  assert_contains "$ERR" shm_rmid_forced "names the sysctl"
  # ours: the failing step, the file and the errno by name
  assert_runtime_error 'write /proc/sys/kernel/shm_rmid_forced: EINVAL (Invalid argument)' \
    'runc create failed: unable to start container process: error during container init: write /proc/sys/kernel/shm_rmid_forced'
  assert_no_runtime_leftovers
}

# The systemd driver: dockerd's shim calls the runtime with --systemd-cgroup and cgroupsPath
# SLICE:docker:ID; the runtime makes the scope through systemd, the limits its properties.
case_systemd_scope() {
  [ "$DK_CGD" = systemd ] || skip "cgroup driver $DK_CGD: systemd is not PID 1 on pure cgroup v2 here"
  local id unit pid
  dk_run -d --runtime sharness --network none --memory 64m --pids-limit 50 "$IMAGE" sleep 600
  assert_eq 0 "$RC" "run -d under the systemd driver: $ERR"
  id=$OUT
  unit=docker-$id.scope
  pid=$(dk inspect -f '{{.State.Pid}}' "$id")
  assert_scope "$unit" "$DK_SLICE" "$pid" "$id" MemoryMax=67108864 TasksMax=50
  dk_cmd exec "$id" cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max
  assert_eq "67108864"$'\n'"50" "$OUT" "the limits from inside"
  assert_ok dk rm -f "$id"
  assert_eq ActiveState=inactive "$(systemctl show "$unit" -p ActiveState)" "the scope after rm -f"
  assert_eq "" "$(dk_cgroup_dirs "$id")" "the scope's cgroup after rm -f"
}

case_policy_runtime_args() {
  [ "$OURS" = 1 ] || skip "policies (--policy in runtimeArgs) are sharness-runtime's own"
  local want_hash
  want_hash=$("$RUNTIME" policy hash "$HARSH")
  # shellcheck disable=SC2016  # expanded inside the container
  dk_run --rm --runtime sharness-harsh --network none "$IMAGE" \
    sh -c 'echo "id=$SHARNESS_POLICY_ID"; echo "hash=$SHARNESS_POLICY_HASH"; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status'
  echo "$OUT"; echo "$ERR" >&2
  assert_eq 0 "$RC" "run under sharness-harsh"
  assert_line "$OUT" '^id=harsh$'
  assert_line "$OUT" "^hash=$want_hash\$"
  assert_line "$OUT" '^CapEff:[[:space:]]+0+$'
  assert_line "$OUT" '^NoNewPrivs:[[:space:]]+1$'
  # control: the plain name, same image and flags, has Docker's default capabilities and no policy
  # shellcheck disable=SC2016
  dk_run --rm --runtime sharness --network none "$IMAGE" \
    sh -c 'echo "id=$SHARNESS_POLICY_ID"; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status'
  echo "$OUT"
  assert_line "$OUT" '^id=$'
  assert_line "$OUT" '^NoNewPrivs:[[:space:]]+0$'
  assert_not_contains "$OUT" "$(printf 'CapEff:\t0000000000000000')" "control CapEff"
}

# The python3 workload profile (docs/learn.md) as the floor through runtimeArgs, on Debian 12's
# python3 image: a job runs, a socket is refused (the profile's seccomp allowlist); control: the
# plain runtime name, where Docker's own profile allows it.
PY_IMAGE=sharness-python3:test
case_policy_python3_runtime_args() {
  [ "$OURS" = 1 ] || skip "policies (--policy in runtimeArgs) are sharness-runtime's own"
  [ -s "$DK/python.tar" ] || fail "no python image (scripts/rootfs.sh workloads): $(cat "$DK/python.err" 2>/dev/null)"
  dk_cmd import -c 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' "$DK/python.tar" "$PY_IMAGE"
  assert_eq 0 "$RC" "docker import of the python image: $ERR"
  local job='import hashlib, json, os; print(json.dumps({"id": os.environ.get("SHARNESS_POLICY_ID"), "h": hashlib.sha256(b"x").hexdigest()[:8]}))'
  dk_run --rm --runtime sharness-python3 --network none "$PY_IMAGE" python3 -c "$job"
  echo "$OUT"; echo "$ERR" >&2
  assert_eq 0 "$RC" "a Python job under sharness-python3"
  assert_eq '{"id": "python3", "h": "2d711642"}' "$OUT" "its output"
  dk_run --rm --runtime sharness-python3 --network none "$PY_IMAGE" \
    python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("made a socket")'
  assert_ne 0 "$RC" "a socket under python3"
  assert_contains "$ERR" "Operation not permitted" "refused by seccomp (EPERM)"
  dk_run --rm --runtime sharness --network none "$PY_IMAGE" \
    python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("made a socket")'
  assert_eq "made a socket" "$OUT" "control: the plain runtime name"
}

case_teardown() {
  local left
  teardown_docker
  assert_eq "" "$(our_procs | tr '\n' ' ')" "processes of ours still running"
  [ ! -e "/proc/$(cat "$DK/dockerd.spawned")" ] || fail "dockerd still running"
  left=$(awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)
  assert_eq "" "$left" "mounts under $TMP"
  # empty built-in chains of a table dockerd's first start made are no leftover (client-lib.bash)
  ipt_compare "$DK/iptables.before" <(ipt_ours) >&2 || fail "iptables differ from before (diff above)"
  # links: none new. veths are left out of that comparison (another tool on the host may make
  # some meanwhile); ours, recorded while they were on our bridge, must be gone.
  left=$(comm -13 "$DK/links.before" <(links) | grep -v '^veth' || true)
  assert_eq "" "$left" "network links that were not there before"
  if [ -e "$DK/veths" ]; then
    while read -r left; do
      ! ip link show "$left" >/dev/null 2>&1 || fail "veth $left left behind"
    done <"$DK/veths"
  fi
  ! ip link show "$BRIDGE" >/dev/null 2>&1 || fail "bridge $BRIDGE left"
  [ ! -e /etc/docker/key.json ] || [ -e "$DK/key.json" ] || fail "dockerd wrote /etc/docker/key.json"
  [ "$RUN_CONTAINERD_EXISTED" = 1 ] || [ ! -e /run/containerd ] || fail "/run/containerd left behind"
  # the cgroup parent dockerd used
  for left in $(cgroup_dirs); do rmdir "$left" 2>/dev/null || true; done
  assert_eq "" "$(cgroup_dirs)" "cgroup dirs under /$CGPARENT"
  assert_eq "" "$(dk_cgroup_dirs)" "cgroup dirs under $(dk_parent)"
}

# Start-up outside the cases (no case time limit on it): the daemon, then `docker import` of a
# rootfs tar of busybox-static (Docker 20.10 cannot `docker load` an OCI layout).
PY_CASE="runtimeArgs --policy python3 on Debian 12's python3: a job runs, a socket is refused"
if [ "$OURS" = 1 ] && case_selected "$PY_CASE"; then python_image "$DK" >/dev/null 2>"$DK/python.err" || rm -f "$DK/python.tar"; fi
if start_dockerd; then
  busybox_rootfs_tar "$DK/rootfs.tar"
  dk import -c 'CMD ["sh"]' "$DK/rootfs.tar" "$IMAGE" >/dev/null || echo "# docker import failed"
else
  echo "# dockerd did not start:"; sed 's/^/#   /' "$DK_LOG" | tail -30
fi
tcase "dockerd: private daemon, runtime registered by name, busybox imported" case_daemon
tcase "run: output and exit codes (3, 0), stdin with -i" case_run_output_exit
tcase "run -t under a real pty: a tty, exit code" case_run_tty
tcase "run -d + exec: output and exit codes, joins the container, exec -t" case_detach_exec
tcase "stop -t 2 of a process that ignores SIGTERM: killed (137)" case_stop_ignores_term
tcase "rm: running refused without -f, rm -f and rm leave nothing" case_rm
tcase "--network none: docker's prestart hook present, only lo" case_network_none
tcase "default bridge: prestart hook runs, eth0 has its address, gateway answers" case_network_bridge
tcase "missing executable: the user sees the runtime's error text" case_error_missing_exe
tcase "bad config (unwritable sysctl): the user sees the runtime's error text" case_error_bad_config
tcase "systemd cgroup driver: the container is the scope docker-ID.scope with MemoryMax and TasksMax" case_systemd_scope
tcase "runtimeArgs --policy harsh: SHARNESS_POLICY_ID, CapEff 0, NoNewPrivs 1" case_policy_runtime_args
tcase "$PY_CASE" case_policy_python3_runtime_args
tcase "teardown: dockerd, containerd, shims stopped by pid; no mounts, links, iptables left" case_teardown
finish
