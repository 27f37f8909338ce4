#!/usr/bin/env bash
# conformance/clients/podman.sh: Podman running containers through the runtime under test, end to
# end: run (output, exit codes), run -t under a real pty, run -d, exec (output, exit codes), stop
# (also of a process that ignores SIGTERM), rm; with --network none and with the default bridge
# network; our error text reaching the user from the runtime's JSON log; and, for our runtime, a
# policy picked by the org.sharness.policy annotation.
#
# Two Podmans, two kinds of host, one suite (what differs is chosen from what the host has):
#   - Debian 12's 4.3 (this machine): the CNI network backend, cgroupfs (no systemd as PID 1);
#   - Debian 13's 5.4 (the trixie guest, docs/vm.md): netavark (Podman 5 has no CNI), and the
#     systemd cgroup manager, Podman's default on a systemd host with pure cgroup v2: every
#     container then goes into a slice of this run's own, and the runtime makes its scope
#     libpod-<id>.scope through systemd (a case checks it with systemctl show).
#     SHARNESS_PODMAN_CGROUP_MANAGER=cgroupfs|systemd overrides the choice.
#
# The runtime is SHARNESS_RUNTIME (ours by default under CTest; SHARNESS_RUNTIME=runc works too),
# registered by name in [engine.runtimes] and in runtime_supports_json, as a user would (see
# contrib/podman/containers.conf).
#
# Podman runs fully privately: its own --root, --runroot, --tmpdir, containers.conf
# (CONTAINERS_CONF), storage.conf (CONTAINERS_STORAGE_CONF), registries.conf, network config dir,
# hooks dir, file locks (not /dev/shm/libpod_lock), a file events log, cgroupfs with every
# container (and conmon) under this run's cgroup parent, and a private --root for the runtime.
# The machine's default stores are never used.
#
# What Podman's CNI backend leaves on the host by design (the cni-podman0 bridge, the CNI-FORWARD
# and CNI-ADMIN chains, net.ipv4.ip_forward=1, /var/lib/cni/networks/<net>, the shared bind mount
# of /run/netns, the image blob-info cache in /var/lib/containers/cache) is removed again if it was
# not there before; the last case asserts that the host looks as it did before the suite.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/client-lib.bash"

ensure_pkgs podman conmon iptables busybox-static || { echo "cannot install podman" >&2; exit 1; }
PM_VERSION=$(podman version --format '{{.Client.Version}}' 2>/dev/null)
# The network backend: CNI up to Podman 4 (Debian 12's 4.3 has no netavark), netavark from 5 on.
if [ "${PM_VERSION%%.*}" -ge 5 ] 2>/dev/null; then
  PM_NETBACKEND=netavark
  ensure_pkgs netavark nftables || { echo "cannot install netavark" >&2; exit 1; }
else
  PM_NETBACKEND=cni
  ensure_pkgs containernetworking-plugins || { echo "cannot install the CNI plugins" >&2; exit 1; }
fi
# The cgroup manager: systemd where systemd is PID 1 on pure cgroup v2 (Podman's own default there).
PM_CGM=cgroupfs
systemd_v2_host && PM_CGM=systemd
PM_CGM=${SHARNESS_PODMAN_CGROUP_MANAGER:-$PM_CGM}
echo "# podman $PM_VERSION, network backend $PM_NETBACKEND, cgroup manager $PM_CGM"

# The name Podman knows the runtime by (lib.sh's OURS says whether policy cases apply).
if [ "$OURS" = 1 ]; then
  PM_RT=sharness
else
  PM_RT=$(sed "s/[^A-Za-z0-9_-]/_/g" <<<"${RUNTIME_NAME%.*}")  # a bare TOML key
fi

PM=$TMP/podman
mkdir -p "$PM"/{root,run,tmp,net,hooks,rtstate,copytmp,policies}
PM_NET=sharness-$$                 # the default network's name (CNI's IPAM state is named after it)
PM_SUBNET=10.213.$(($$ % 250)).0/24  # private default subnet
PM_GW=${PM_SUBNET%.0/24}.1
# the default network's bridge, named by the backend
if [ "$PM_NETBACKEND" = cni ]; then PM_BRIDGE=cni-podman0; else PM_BRIDGE=podman0; fi
PM_IMAGE=localhost/sharness-busybox:test

# Without CAP_SYS_RESOURCE no runtime can raise a hard limit, and Podman 4.3 asks for nofile
# 1048576 and nproc above ours (DESIGN.md §7): default to the hard limits the runtime will have.
# Podman starts conmon (and so the runtime) with nproc 32768, whatever its own limit is.
_hard() { local v; v=$(ulimit "-H$1"); [ "$v" = unlimited ] && v=1048576; echo "$v"; }
HARD_NOFILE=$(_hard n)
HARD_NPROC=$(_hard u)
[ "$HARD_NPROC" -le 32768 ] || HARD_NPROC=32768

cat >"$PM/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$PM/root"
runroot = "$PM/run"
EOF

cat >"$PM/registries.conf" <<EOF
unqualified-search-registries = []
EOF

# containers.conf: contrib/podman/containers.conf (the ready config users get) with the runtime
# under test in place of sharness-runtime's installed path, plus this suite's private settings.
CONTRIB_CONF=$SHARNESS_SOURCE_DIR/contrib/podman/containers.conf
[ -r "$CONTRIB_CONF" ] || { echo "missing $CONTRIB_CONF" >&2; exit 1; }
cat >"$PM/engine.conf" <<EOF
cgroup_manager = "$PM_CGM"
events_logger = "file"
events_logfile_path = "$PM/events.log"
tmp_dir = "$PM/tmp"
static_dir = "$PM/root/libpod"
volume_path = "$PM/root/volumes"
image_copy_tmp_dir = "$PM/copytmp"
hooks_dir = ["$PM/hooks"]
lock_type = "file"
EOF
sed -e "s|^sharness = \[.*\]\$|$PM_RT = [\"$PM/runtime\"]|" -e "s|\"sharness\"|\"$PM_RT\"|g" \
  -e "/^\[engine\]\$/r $PM/engine.conf" "$CONTRIB_CONF" >"$PM/containers.conf"
grep -qxF "$PM_RT = [\"$PM/runtime\"]" "$PM/containers.conf" ||
  { echo "could not register the runtime in $PM/containers.conf" >&2; exit 1; }
cat >>"$PM/containers.conf" <<EOF

[containers]
default_ulimits = ["nofile=$HARD_NOFILE:$HARD_NOFILE", "nproc=$HARD_NPROC:$HARD_NPROC"]

[network]
network_backend = "$PM_NETBACKEND"
network_config_dir = "$PM/net"
default_network = "$PM_NET"
default_subnet = "$PM_SUBNET"
EOF
[ "$PM_NETBACKEND" = cni ] && echo 'cni_plugin_dirs = ["/usr/lib/cni"]' >>"$PM/containers.conf"

# Our runtime's operator config: the shipped policies may be named by the annotation (harsh and
# baseline pinned to this host's busybox; python3 pinned from the image the suite imports).
cp "$(installed_policies)"/{harsh,baseline}.json "$PM/policies/"
PY_CASE="policy by annotation: python3 on Debian 12's python3 (a job runs, a socket is refused)"
if [ "$OURS" = 1 ] && case_selected "$PY_CASE"; then python_image "$PM" >/dev/null 2>"$PM/python.err" || rm -f "$PM/python.tar"; fi
printf '{"policyDirs": ["%s"]}\n' "$PM/policies" >"$PM/runtime.json"

# The runtime as Podman sees it: the binary under test with a private --root (and, for ours, the
# operator config above). A two-line shim rather than --runtime-flag, because Podman 4.3 calls
# `delete --force` without its runtime flags: with --runtime-flag root=... that call would go to
# the runtime's default store (/run/runc for runc), which a test must never touch.
{
  echo '#!/bin/sh'
  printf 'exec %q --root %q' "$RUNTIME" "$PM/rtstate"
  [ "$OURS" = 1 ] && printf ' --config %q' "$PM/runtime.json"
  echo ' "$@"'
} >"$PM/runtime"
chmod +x "$PM/runtime"

# pm: podman with every private setting. A file, so `script -c` can run it under a pty.
{
  echo '#!/bin/sh'
  echo "export CONTAINERS_CONF='$PM/containers.conf' CONTAINERS_STORAGE_CONF='$PM/storage.conf'"
  echo "export CONTAINERS_REGISTRIES_CONF='$PM/registries.conf' TMPDIR='$PM/copytmp'"
  # --foreground: under script(1)'s pty, timeout must not move podman into a background process
  # group, where podman's tcsetattr on its terminal would stop it with SIGTTOU.
  printf 'exec timeout --foreground -k 5 %s podman --root %q --runroot %q --tmpdir %q --cgroup-manager %s --events-backend file --runtime %q "$@"\n' \
    "$RT_TIMEOUT" "$PM/root" "$PM/run" "$PM/tmp" "$PM_CGM" "$PM_RT"
} >"$PM/pm"
chmod +x "$PM/pm"
pm() { "$PM/pm" "$@"; }

# Every container goes under this run's cgroup parent; conmon lands in <parent>/conmon. lib.sh
# kills what is left there (by pid) and removes the directories on exit. Under systemd the parent
# is a slice of this run's own (a name without '-', so it implies no parent slice), stopped by its
# name at teardown.
PM_SLICE=sharness_podman_$$.slice
if [ "$PM_CGM" = systemd ]; then
  RUN_OPTS=(--cgroup-parent "$PM_SLICE")
else
  RUN_OPTS=(--cgroup-parent "/$CGPARENT")
fi
# pm_cgroup_dirs: the cgroup dirs our containers are under
pm_cgroup_dirs() {
  if [ "$PM_CGM" = systemd ]; then  # the slice and the scopes in it
    [ ! -d "/sys/fs/cgroup/$PM_SLICE" ] || find "/sys/fs/cgroup/$PM_SLICE" -type d
  else
    cgroup_dirs
  fi
}

# ---------------------------------------------------------------------------------------------
# The host before: what Podman and its network backend may touch outside our private dirs.

# What the backend names its own: iptables chains, bridges, network namespaces in /run/netns.
if [ "$PM_NETBACKEND" = cni ]; then
  PM_CHAIN=CNI- PM_LINKS=cni- PM_NETNS=cni-
else
  PM_CHAIN=NETAVARK PM_LINKS=podman PM_NETNS=netns-
fi

_ipt_net() {  # the iptables rules and chains the backend creates (its chains, or on our subnet)
  local t
  for t in filter nat; do
    iptables-save -t "$t" 2>/dev/null | sed 's/ \[[0-9]*:[0-9]*\]$//' |
      grep -E -- "$PM_CHAIN|${PM_SUBNET%/24}|$PM_BRIDGE" | sed "s/^/$t /"
  done
  # netavark's nftables driver: one table of its own
  [ "$PM_NETBACKEND" = cni ] || nft list tables 2>/dev/null | grep -w netavark | sed 's/^/nft /'
  return 0
}

host_snapshot() {
  local p
  # the backend's links: its bridges and the veths on them (other links belong to whoever else runs here)
  echo "links: $(ip -o link show | grep -E "^[0-9]+: $PM_LINKS|master $PM_LINKS" | awk -F': ' '{print $2}' | sed 's/@.*//' | sort | tr '\n' ' ')"
  _ipt_net | sort
  echo "ip_forward $(cat /proc/sys/net/ipv4/ip_forward)"
  for p in /run/netns /run/runc /run/containers /run/libpod /var/lib/containers /var/lib/cni \
    /dev/shm/libpod_lock /etc/containers/networks "/var/lib/cni/networks/$PM_NET"; do
    [ -e "$p" ] && echo "exists $p"
  done
  ls /etc/cni/net.d 2>/dev/null | sed 's/^/cni conf /'
  mountpoint -q /run/netns 2>/dev/null && echo "mountpoint /run/netns"
  ls -d /sys/fs/cgroup/*/libpod_parent 2>/dev/null || true
}
BEFORE=$(host_snapshot)
BEFORE_FORWARD=$(cat /proc/sys/net/ipv4/ip_forward)
had() { grep -qxF "$1" <<<"$BEFORE"; }

# ---------------------------------------------------------------------------------------------
# Teardown: containers, stores, mounts, network leftovers. Idempotent; the last case runs it and
# checks the result, the EXIT trap runs it again in case the suite stopped early.

_umount_under() {  # unmount everything mounted under DIR, deepest first
  local m
  for m in $(awk -v t="$1/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

_ipt_drop_chain() {  # TABLE CHAIN: remove every jump to CHAIN, then flush and delete it
  local t=$1 c=$2 rule
  while read -r rule; do
    # shellcheck disable=SC2086  # the rule is iptables-save's own quoting, re-split by eval
    eval "iptables -t $t ${rule/#-A /-D }" 2>/dev/null || true
  done < <(iptables -t "$t" -S 2>/dev/null | { grep -E -- "-j $c( |$)" || true; })
  iptables -t "$t" -F "$c" 2>/dev/null || true
  iptables -t "$t" -X "$c" 2>/dev/null || true
}

podman_teardown() {  # (a file marks it done: the last case runs it in a subshell)
  local pid c t
  [ -e "$PM/.torn-down" ] && return 0
  if [ -x "$PM/pm" ]; then
    pm rm --all --force --time 0 >/dev/null 2>&1 || true
    pm system reset --force >/dev/null 2>&1 || true
  fi
  # conmon (and any cleanup process) still alive: only ours live under our cgroup parent, or in
  # our slice (stopped by its name)
  _kill_cgroup_procs
  [ "$PM_CGM" != systemd ] || systemctl stop "$PM_SLICE" >/dev/null 2>&1 || true
  if [ -s "$PM/conmon.pids" ]; then
    while read -r pid; do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = conmon ] && kill -KILL "$pid" 2>/dev/null
    done <"$PM/conmon.pids"
  fi
  _umount_under "$PM"
  # Runtime state dir: anything left is a container Podman lost track of.
  if [ -d "$PM/rtstate" ]; then
    for c in $("$RUNTIME" --root "$PM/rtstate" list -q 2>/dev/null); do
      "$RUNTIME" --root "$PM/rtstate" delete --force "$c" >/dev/null 2>&1 || true
    done
  fi
  # Network leftovers of CNI, only those that were not here before.
  if ! grep -q " $PM_BRIDGE " <<<" $(grep '^links:' <<<"$BEFORE") " && ip link show "$PM_BRIDGE" >/dev/null 2>&1; then
    ip link del "$PM_BRIDGE" 2>/dev/null || true
  fi
  for t in filter nat; do
    for c in $(iptables-save -t "$t" 2>/dev/null | sed -n "s/^:\($PM_CHAIN[^ ]*\) .*/\1/p"); do
      grep -q "^$t :$c " <<<"$BEFORE" || _ipt_drop_chain "$t" "$c"
    done
  done
  if [ "$PM_NETBACKEND" = netavark ] && ! grep -q '^nft ' <<<"$BEFORE"; then
    nft delete table inet netavark 2>/dev/null || true
  fi
  # rules CNI put on our subnet into built-in chains (masquerade) without a chain of their own
  for t in filter nat; do
    while read -r rule; do
      eval "iptables -t $t ${rule/#-A /-D }" 2>/dev/null || true
    done < <(iptables -t "$t" -S 2>/dev/null | { grep -E -- "^-A .*${PM_SUBNET%/24}" || true; })
  done
  [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$BEFORE_FORWARD" ] ||
    echo "$BEFORE_FORWARD" >/proc/sys/net/ipv4/ip_forward
  rm -rf "/var/lib/cni/networks/$PM_NET"
  had "exists /var/lib/cni" || rm -rf /var/lib/cni
  had "exists /var/lib/containers" || rm -rf /var/lib/containers
  had "exists /run/containers" || rm -rf /run/containers  # netavark's run dir (its IPAM, its lock)
  had "exists /dev/shm/libpod_lock" || rm -f /dev/shm/libpod_lock
  had "exists /run/runc" || rmdir /run/runc 2>/dev/null || true
  if ! had "mountpoint /run/netns"; then
    while mountpoint -q /run/netns 2>/dev/null && umount /run/netns 2>/dev/null; do :; done
  fi
  had "exists /run/netns" || rmdir /run/netns 2>/dev/null || true
  : >"$PM/.torn-down"
  return 0
}
# shellcheck disable=SC2154  # _st is assigned inside the trap string
trap '_st=$?; podman_teardown; (exit $_st); _cleanup' EXIT

# ---------------------------------------------------------------------------------------------
# Helpers for cases

# prun ARGS...: `podman run` with our cgroup parent. Sets OUT (stdout+stderr) and RC.
prun() {
  local f=$CASEDIR/.prun.out
  RC=0
  pm run "${RUN_OPTS[@]}" "$@" >"$f" 2>&1 </dev/null || RC=$?
  OUT=$(<"$f")
}

# pexec ARGS...: `podman exec`. Sets OUT and RC.
pexec() {
  local f=$CASEDIR/.pexec.out
  RC=0
  pm exec "$@" >"$f" 2>&1 </dev/null || RC=$?
  OUT=$(<"$f")
}

# pdetach NAME NET ARGS...: `podman run -d --name NAME --network NET IMAGE ARGS...`, waits until
# it runs and records conmon's pid (so teardown can find it even if Podman lost it).
pdetach() {
  local name=$1 net=$2; shift 2
  prun -d --name "$name" --network "$net" "$PM_IMAGE" "$@"
  [ "$RC" = 0 ] || { fail "run -d $name failed (exit $RC): $OUT"; return 1; }
  pm inspect --format '{{.State.ConmonPid}}' "$name" >>"$PM/conmon.pids" 2>/dev/null || true
  wait_for sh -c "[ \"\$('$PM/pm' inspect --format '{{.State.Status}}' '$name')\" = running ]" ||
    { fail "$name is not running: $(pm inspect --format '{{.State.Status}} {{.State.Error}}' "$name" 2>&1)"; return 1; }
}

state_of() { pm inspect --format '{{.State.Status}}' "$1" 2>&1; }
exit_of() { pm inspect --format '{{.State.ExitCode}}' "$1" 2>&1; }

# ---------------------------------------------------------------------------------------------
# Setup

case_setup() {
  local tar=$PM/busybox.tar info
  info=$(pm info --format '{{.Host.OCIRuntime.Name}} {{.Host.OCIRuntime.Path}} {{.Host.NetworkBackend}} {{.Store.GraphRoot}} {{.Store.RunRoot}}')
  echo "podman info: $info"
  assert_eq "$PM_RT $PM/runtime $PM_NETBACKEND $PM/root $PM/run" "$info" "podman's runtime, network backend and stores"
  busybox_rootfs_tar "$tar"
  assert_ok pm import --change 'CMD ["sh"]' --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
    "$tar" "$PM_IMAGE"
  assert_ok pm image exists "$PM_IMAGE"
}
tcase "setup: private podman with $PM_RT registered, busybox imported" case_setup

# ---------------------------------------------------------------------------------------------
# run / exec / stop / rm, once per network mode

for NET in none bridge; do
  eval "case_run_$NET() { _case_run $NET; }"
  eval "case_exec_$NET() { _case_exec $NET; }"
  eval "case_stop_$NET() { _case_stop $NET; }"
done

_case_run() {
  local net=$1
  prun --rm --network "$net" "$PM_IMAGE" sh -c 'echo "hello from $(hostname)"; echo to-stderr >&2'
  assert_rc 0 "run --network $net"
  assert_line "$OUT" '^hello from [0-9a-f]{12}$' "stdout"
  assert_line "$OUT" '^to-stderr$' "stderr"
  prun --rm --network "$net" "$PM_IMAGE" sh -c 'exit 3'
  assert_rc 3 "exit 3"
  prun --rm --network "$net" "$PM_IMAGE" false
  assert_rc 1 "false"
  prun --rm --network "$net" "$PM_IMAGE" cat /proc/net/dev
  assert_rc 0 "reading /proc/net/dev"
  if [ "$net" = none ]; then
    assert_eq "lo" "$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' <<<"$OUT" | sort | tr '\n' ' ' | sed 's/ $//')" \
      "interfaces with --network none"
  else
    assert_line "$OUT" '^ *eth0:' "an interface besides lo on the bridge"
    # (busybox ping needs a raw socket: Podman 5 no longer gives NET_RAW by default)
    prun --rm --network "$net" --cap-add NET_RAW "$PM_IMAGE" sh -c "ip -4 -o addr show eth0; ping -c 1 -W 5 $PM_GW"
    assert_rc 0 "address on eth0 and the bridge's gateway answers"
    assert_match "$OUT" "inet ${PM_SUBNET%.0/24}\.[0-9]+/24" "eth0's address is on the default network's subnet"
  fi
}
tcase "run --network none: output, exit codes, only lo" case_run_none
tcase "run (default bridge): output, exit codes, eth0 on the subnet" case_run_bridge

_case_exec() {
  local net=$1 name
  name=ex-$net-$$
  pdetach "$name" "$net" sh -c 'echo started >/tmp/marker; exec sleep 1000'
  pexec "$name" cat /tmp/marker
  assert_rc 0 "exec cat"
  assert_eq started "$OUT" "exec sees the container's files"
  pexec "$name" sh -c 'exit 5'
  assert_rc 5 "exec exit code"
  pexec "$name" sh -c 'echo $$ >/dev/null; ps -o pid,comm | grep -c sleep'
  assert_eq 1 "$OUT" "exec joins the container's pid namespace (sees its sleep)"
  pexec "$name" /no/such/binary
  assert_ne 0 "$RC" "exec of a missing binary"
  assert_eq running "$(state_of "$name")" "the container after the execs"
  assert_ok pm rm --force --time 0 "$name"
  assert_fail pm container exists "$name"
}
tcase "run -d + exec --network none: output and exit codes" case_exec_none
tcase "run -d + exec (default bridge): output and exit codes" case_exec_bridge

_case_stop() {
  local net=$1 name pid
  name=st-$net-$$
  # a process that exits on SIGTERM: stop sends it, the container exits 143 (128 + TERM)
  pdetach "$name" "$net" sh -c 'trap "exit 143" TERM; while :; do sleep 0.2; done'
  assert_ok pm stop --time 30 "$name"
  assert_eq exited "$(state_of "$name")" "state after stop"
  assert_eq 143 "$(exit_of "$name")" "exit code after SIGTERM"
  assert_ok pm rm "$name"
  assert_fail pm container exists "$name"
  # one that ignores SIGTERM: stop -t 1 has to SIGKILL it
  pdetach "$name" "$net" sh -c 'trap "" TERM; while :; do sleep 0.2; done'
  pid=$(pm inspect --format '{{.State.Pid}}' "$name")
  assert_match "$pid" '^[1-9][0-9]*$' "the container's host pid"
  assert_ok pm stop --time 1 "$name"
  assert_eq exited "$(state_of "$name")" "state after stop -t 1"
  assert_eq 137 "$(exit_of "$name")" "exit code after SIGKILL"
  [ ! -d "/proc/$pid" ] || [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] ||
    fail "process $pid still alive after stop"
  assert_ok pm rm "$name"
  assert_fail pm container exists "$name"
}
tcase "stop + rm --network none (also of a process ignoring SIGTERM)" case_stop_none
tcase "stop + rm (default bridge; also of a process ignoring SIGTERM)" case_stop_bridge

# ---------------------------------------------------------------------------------------------
# The systemd cgroup manager: Podman passes --systemd-cgroup and cgroupsPath SLICE:libpod:ID; the
# runtime makes the container's scope through systemd, with the limits as unit properties.

case_systemd_scope() {
  [ "$PM_CGM" = systemd ] || skip "cgroup manager $PM_CGM: systemd is not PID 1 on pure cgroup v2 here"
  local name=sd-$$ id unit show pid
  prun -d --name "$name" --network none --memory 64m --pids-limit 50 "$PM_IMAGE" sleep 1000
  assert_rc 0 "run -d under the systemd manager: $OUT"
  pm inspect --format '{{.State.ConmonPid}}' "$name" >>"$PM/conmon.pids" 2>/dev/null || true
  id=$(pm inspect --format '{{.Id}}' "$name")
  pid=$(pm inspect --format '{{.State.Pid}}' "$name")
  unit=libpod-$id.scope
  assert_scope "$unit" "$PM_SLICE" "$pid" "$id" MemoryMax=67108864 TasksMax=50
  pexec "$name" cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max
  assert_eq "67108864"$'\n'"50" "$OUT" "the limits from inside"
  assert_ok pm rm --force --time 0 "$name"
  show=$(systemctl show "$unit" -p ActiveState)
  assert_eq ActiveState=inactive "$show" "the scope after rm"
  [ ! -d "/sys/fs/cgroup/$PM_SLICE/$unit" ] || fail "the scope's cgroup is left"
}
tcase "systemd cgroup manager: the container is the scope libpod-ID.scope with MemoryMax and TasksMax" case_systemd_scope

# ---------------------------------------------------------------------------------------------
# A real terminal

case_tty() {
  local out rc=0
  out=$(script -qec "$PM/pm run --rm -t ${RUN_OPTS[*]} --network none $PM_IMAGE sh -c 'tty; test -t 0 && test -t 1 && echo IS-A-TTY; stty size; exit 7'" /dev/null </dev/null 2>&1) || rc=$?
  out=${out//$'\r'/}
  echo "$out"
  assert_eq 7 "$rc" "exit code through the pty"
  assert_line "$out" '^/dev/pts/[0-9]+$' "tty inside the container"
  assert_line "$out" '^IS-A-TTY$' "stdin and stdout are terminals"
  # without -t, the same container has no terminal
  prun --rm --network none "$PM_IMAGE" sh -c 'test -t 1 && echo IS-A-TTY || echo no-tty'
  assert_eq no-tty "$OUT" "without -t"
}
tcase "run -t under a real pty: the container sees a terminal" case_tty

case_exec_tty() {
  local name=tty-$$ out rc=0
  pdetach "$name" none sleep 1000
  out=$(script -qec "$PM/pm exec -t $name sh -c 'tty; exit 4'" /dev/null </dev/null 2>&1) || rc=$?
  out=${out//$'\r'/}
  assert_eq 4 "$rc" "exec -t exit code"
  assert_line "$out" '^/dev/pts/[0-9]+$' "exec -t gets a terminal"
  assert_ok pm rm --force --time 0 "$name"
}
tcase "exec -t under a real pty" case_exec_tty

# ---------------------------------------------------------------------------------------------
# Errors: the user sees the runtime's own message, which Podman read from the JSON log.

case_err_missing_exe() {
  prun --rm --network none "$PM_IMAGE" /no/such/exe
  assert_ne 0 "$RC" "run of a missing executable"
  echo "podman said: $OUT"
  # The runtime's own words (Podman only prefixes "Error: <runtime name>:" and appends its hint).
  if [ "$OURS" = 1 ]; then
    assert_contains "$OUT" 'exec: "/no/such/exe": ENOENT (No such file or directory)' "our message"
  else
    assert_contains "$OUT" 'stat /no/such/exe: no such file or directory' "runc's message"
  fi
  # Podman parsed the JSON lines (runtime_supports_json): no raw JSON reaches the user.
  assert_not_contains "$OUT" '"level"' "raw JSON log line in the message"
  assert_eq "" "$(pm ps -aq)" "containers left after the failed run --rm"
  # Kept (no --rm), the container shows where the text came from: the runtime's --log file, one
  # JSON object per line, whose error "msg" is what the user was shown.
  prun --name "err-$$" --network none "$PM_IMAGE" /no/such/exe
  assert_ne 0 "$RC" "run of a missing executable"
  local id log msg
  id=$(pm inspect --format '{{.Id}}' "err-$$")
  log=$PM/run/overlay-containers/$id/userdata/oci-log
  [ -s "$log" ] || { fail "no runtime log at $log"; return 1; }
  echo "runtime log: $(<"$log")"
  msg=$(jq -r 'select(.level == "error") | .msg' "$log" | tail -n 1)
  assert_contains "$msg" '/no/such/exe' "the error line of the JSON log"
  assert_contains "$OUT" "$msg" "what podman showed, against the JSON log's error msg"
  assert_ok pm rm "err-$$"
}
tcase "missing executable: the runtime's error text reaches the user" case_err_missing_exe

case_err_bad_config() {
  # a sysctl the kernel does not have: Podman passes it through, only the runtime can fail it
  prun --rm --network none --sysctl net.ipv4.sharness_no_such_knob=1 "$PM_IMAGE" true
  assert_ne 0 "$RC" "run with a bogus sysctl"
  echo "podman said: $OUT"
  if [ "$OURS" = 1 ]; then
    assert_contains "$OUT" 'sysctl net.ipv4.sharness_no_such_knob: open /proc/sys/net/ipv4/sharness_no_such_knob: ENOENT' "our message"
  else
    assert_contains "$OUT" 'open /proc/sys/net/ipv4/sharness_no_such_knob: no such file or directory' "runc's message"
  fi
  assert_not_contains "$OUT" '"level"' "raw JSON log line in the message"
  # a hard limit no runtime can set: above ours without CAP_SYS_RESOURCE (this machine, DESIGN.md
  # section 7), above the kernel's fs.nr_open with it (the guests' root)
  # (any --ulimit replaces default_ulimits: nproc is given again, within bounds)
  local nofile=$((HARD_NOFILE + 1)) capres=0
  (( 0x$(awk '/^CapEff:/ { print $2 }' /proc/self/status) >> 24 & 1 )) && capres=1
  [ "$capres" = 0 ] || nofile=$(($(cat /proc/sys/fs/nr_open) + 1))
  prun --rm --network none --ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$HARD_NPROC:$HARD_NPROC" "$PM_IMAGE" true
  assert_ne 0 "$RC" "run with nofile $nofile (above the hard limit, or fs.nr_open)"
  echo "podman said: $OUT"
  if [ "$OURS" = 1 ]; then
    assert_contains "$OUT" "setrlimit RLIMIT_NOFILE (soft $nofile, hard $nofile): EPERM" "our message"
    [ "$capres" = 1 ] || assert_contains "$OUT" "raising a hard limit needs CAP_SYS_RESOURCE" "our hint"
  else
    assert_contains "$OUT" 'error setting rlimit type 7: operation not permitted' "runc's message"
  fi
  assert_not_contains "$OUT" '"level"' "raw JSON log line in the message"
  assert_eq "" "$(pm ps -aq)" "containers left after the failed runs"
}
tcase "bad config (bogus sysctl, rlimit above the hard limit): the runtime's error reaches the user" case_err_bad_config

# ---------------------------------------------------------------------------------------------
# Policies by annotation (ours only): the operator's config names the policy directory, the
# client picks a policy by name.

_case_policy() {
  local name=$1 want_hash
  [ "$OURS" = 1 ] || skip "policies are sharness-runtime's; $RUNTIME_NAME ignores the annotation"
  want_hash=$("$RUNTIME" policy hash "$PM/policies/$name.json")
  assert_match "$want_hash" '^[0-9a-f]{64}$' "policy hash"
  prun --rm --network none --annotation "org.sharness.policy=$name" "$PM_IMAGE" \
    sh -c 'env; echo "uid=$(id -u)"; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status'
  assert_rc 0 "run under $name"
  echo "$OUT"
  assert_line "$OUT" "^SHARNESS_POLICY_ID=$name\$" "policy id in the environment"
  assert_line "$OUT" "^SHARNESS_POLICY_HASH=$want_hash\$" "policy hash in the environment"
  if [ "$name" = harsh ]; then
    assert_line "$OUT" '^uid=[1-9][0-9]*$' "harsh runs as a non-root uid"
    assert_line "$OUT" '^CapEff:[[:space:]]+0+$' "harsh: no effective capabilities"
    assert_line "$OUT" '^NoNewPrivs:[[:space:]]+1$' "harsh: no_new_privs"
    assert_line "$OUT" '^Seccomp:[[:space:]]+2$' "harsh: seccomp filter"
    # the read-only root: a write outside /tmp fails
    prun --rm --network none --annotation org.sharness.policy=harsh "$PM_IMAGE" sh -c 'echo x >/x'
    assert_ne 0 "$RC" "write to / under harsh"
  fi
  # without the annotation: no policy
  prun --rm --network none "$PM_IMAGE" env
  assert_not_contains "$OUT" SHARNESS_POLICY_ID "env without the annotation"
  # a path instead of a name is refused, with our message
  prun --rm --network none --annotation "org.sharness.policy=$PM/policies/$name.json" "$PM_IMAGE" true
  assert_ne 0 "$RC" "annotation with a path"
  assert_contains "$OUT" 'is not a policy name' "refusal of a path in the annotation"
}
case_policy_harsh() { _case_policy harsh; }
case_policy_baseline() { _case_policy baseline; }
tcase "policy by annotation: harsh (env id/hash = policy hash, bounds visible inside)" case_policy_harsh
tcase "policy by annotation: baseline" case_policy_baseline

# The python3 workload profile (docs/learn.md) by annotation, on Debian 12's python3 image: a job
# runs, a socket is refused (the profile's seccomp allowlist); control: the same without it.
PY_IMAGE=localhost/sharness-python3:test
case_policy_python3() {
  [ "$OURS" = 1 ] || skip "policies are sharness-runtime's; $RUNTIME_NAME ignores the annotation"
  [ -s "$PM/python.tar" ] || fail "no python image (scripts/rootfs.sh workloads): $(cat "$PM/python.err" 2>/dev/null)"
  assert_ok pm import --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' "$PM/python.tar" "$PY_IMAGE"
  local job='import hashlib, json, os; print(json.dumps({"id": os.environ.get("SHARNESS_POLICY_ID"), "h": hashlib.sha256(b"x").hexdigest()[:8]}))'
  prun --rm --network none --annotation org.sharness.policy=python3 "$PY_IMAGE" python3 -c "$job"
  assert_rc 0 "a Python job under python3"
  assert_eq '{"id": "python3", "h": "2d711642"}' "$OUT" "its output"
  prun --rm --network none --annotation org.sharness.policy=python3 "$PY_IMAGE" \
    python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("made a socket")'
  assert_ne 0 "$RC" "a socket under python3"
  assert_contains "$OUT" "Operation not permitted" "refused by seccomp (EPERM)"
  prun --rm --network none "$PY_IMAGE" python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("made a socket")'
  assert_eq "made a socket" "$OUT" "control: no policy"
}
tcase "$PY_CASE" case_policy_python3

# ---------------------------------------------------------------------------------------------
# Leftovers

case_rm_leaves_nothing() {
  local c
  assert_ok pm rm --all --force --time 0
  assert_eq "" "$(pm ps -aq)" "podman ps -a after rm --all"
  assert_eq "" "$("$RUNTIME" --root "$PM/rtstate" list -q 2>&1)" "containers in the runtime's state dir"
  assert_eq "" "$(ip -o link show master "$PM_BRIDGE" 2>/dev/null || true)" "veths left on $PM_BRIDGE"
  # CNI makes chains per container (netavark only for published ports): none may be left
  [ "$PM_NETBACKEND" != cni ] ||
    assert_eq "" "$(_ipt_net | grep -vE ':CNI-(FORWARD|ADMIN) |-j CNI-(FORWARD|ADMIN)|CNI firewall plugin admin' || true)" \
      "per-container iptables rules and chains"
  assert_eq "" "$(find /run/netns -maxdepth 1 -name "$PM_NETNS*" 2>/dev/null)" "network namespaces in /run/netns"
  assert_eq "" "$(awk -v t="$PM/" 'index($5, t) == 1 && $5 ~ /merged$|shm$/ { print $5 }' /proc/self/mountinfo)" \
    "container rootfs or shm mounts left"
  for c in $(pm_cgroup_dirs); do
    [ -z "$(find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null)" ] ||
      fail "processes left in $c: $(find "$c" -name cgroup.procs -exec cat {} + | tr '\n' ' ')"
  done
}
tcase "rm: no container, veth, netns, iptables chain, mount or process left" case_rm_leaves_nothing

case_teardown() {
  local after
  podman_teardown
  after=$(host_snapshot)
  if [ "$after" != "$BEFORE" ]; then
    diff <(echo "$BEFORE") <(echo "$after") >&2 || true
    fail "the host differs from before the suite (see diff above)"
  fi
  assert_eq "" "$(awk -v t="$PM/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)" "mounts under $PM"
}
tcase "teardown: the host is as it was (links, CNI iptables, ip_forward, /run/netns, stores)" case_teardown

finish
