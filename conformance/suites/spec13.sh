#!/usr/bin/env bash
# runtime-spec 1.3: ociVersion 1.3.x; linux.netDevices (a host interface moved into the
# container's network namespace, renamed, its permanent addresses kept, up; gone from the host
# while there; a virtual one destroyed with the namespace, as the kernel does); linux.memoryPolicy
# (set_mempolicy before execve, for init and exec: /proc/self/numa_maps shows it);
# process.execCPUAffinity (exec only: Cpus_allowed_list inside); linux.intelRdt refused on a
# host without resctrl; the matching `features` fields. Each seen from inside the container,
# each with a control. Debian's runc 1.1.5 and crun 1.8.1 predate 1.3: the cases for what they
# lack are marked known_fail for them.
. "$(dirname "$0")/../lib.sh"

status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }

# A virtual interface on the host with a unique name and a permanent address: a dummy, or where
# the kernel has no dummy driver one end of a veth pair (PEER, the other end, stays on the host).
# Removed (if the kernel has not destroyed it with a namespace) when the case ends.
DEV="" PEER=""
make_dummy() {
  DEV=s13d$$c$CASENUM
  PEER=""
  if ! ip link add "$DEV" type dummy 2>/dev/null; then
    PEER=s13p$$c$CASENUM
    ip link add "$DEV" type veth peer name "$PEER"
    echo "$PEER" >>"$CASEDIR/.devs"
  fi
  echo "$DEV" >>"$CASEDIR/.devs"
  ip addr add "10.213.$CASENUM.1/24" dev "$DEV"
}
drop_dummies() {
  local d
  [ -s "$CASEDIR/.devs" ] || return 0
  while read -r d; do ip link del "$d" 2>/dev/null || true; done <"$CASEDIR/.devs"
}

ex() {
  local n=$(( ${_NEX:-0} + 1 ))
  _NEX=$n
  RC=0
  rt exec "$@" >"$CASEDIR/exec$n.out" 2>"$CASEDIR/exec$n.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/exec$n.out")
  ERR=$(<"$CASEDIR/exec$n.err")
  return 0
}

# ---- ociVersion --------------------------------------------------------------------------

case_oci_version_1_3() {
  known_fail crun  # 1.8.1 refuses 1.3.0 ("unknown version specified"); 1.21 runs it
  local v
  for v in 1.3.0 1.3.1; do
    new_bundle "v${v//./}" sh -c 'echo ran' >/dev/null
    cfg "$B" --arg v "$v" '.ociVersion = $v'
    run_in "$B"
    assert_run_ok "ociVersion $v"
    assert_eq ran "$OUT" "ociVersion $v"
  done
  # Ours writes the version it implements, in `spec` and in the state.
  if [ "$OURS" = 1 ]; then
    mkdir -p "$CASEDIR/spec" && (cd "$CASEDIR/spec" && rt spec)
    assert_eq 1.3.0 "$(jq -r .ociVersion "$CASEDIR/spec/config.json")" "spec's ociVersion"
    local id; id=$(newid st)
    new_bundle st sleep 60 >/dev/null
    must_create "$B" "$id"
    assert_eq 1.3.0 "$(rt state "$id" | jq -r .ociVersion)" "state's ociVersion"
  fi
}
tcase "ociVersion 1.3.x runs; spec and state write 1.3.0" case_oci_version_1_3

# ---- netDevices --------------------------------------------------------------------------

case_netdevices_moved() {
  known_fail runc crun
  trap drop_dummies EXIT
  make_dummy
  local id; id=$(newid nd)
  new_bundle nd sleep 600 >/dev/null
  cfg "$B" --arg d "$DEV" '.linux.netDevices = {($d): {"name": "ctr0"}}'
  start_detached "$B" "$id"
  # Gone from the host, there inside under its new name, up, with its address.
  if ip link show "$DEV" >/dev/null 2>&1; then fail "$DEV is still on the host"; fi
  ex "$id" sh -c 'cat /sys/class/net/ctr0/flags; ip -o -4 addr show dev ctr0'
  assert_run_ok "exec in $id"
  local flags; flags=$(head -1 <<<"$OUT")
  (( (flags & 1) == 1 )) || fail "ctr0 is not up inside (flags $flags)"
  assert_contains "$OUT" "10.213.$CASENUM.1/24" "ctr0's permanent address inside"
  ex "$id" cat "/sys/class/net/$DEV/flags"
  [ "$RC" != 0 ] || fail "the host name $DEV still exists inside beside ctr0"
  # The spec: the runtime never moves it back; the kernel destroys a virtual device with its namespace.
  assert_ok rt delete --force "$id"
  local i gone=0
  for ((i = 0; i < 100; i++)); do
    if ! ip link show ctr0 >/dev/null 2>&1 && ! ip link show "$DEV" >/dev/null 2>&1 &&
      { [ -z "$PEER" ] || ! ip link show "$PEER" >/dev/null 2>&1; }; then gone=1; break; fi
    sleep 0.05
  done
  [ "$gone" = 1 ] || fail "after delete the virtual device (or its veth peer $PEER) is still on the host: $(ip -o link | grep -E "ctr0|$DEV|${PEER:-none}")"
}
tcase "netDevices: a host dummy interface is moved in, renamed, keeps its address, is up" case_netdevices_moved

case_netdevices_keep_name() {
  known_fail runc crun
  trap drop_dummies EXIT
  make_dummy
  new_bundle nk sh -c "cat /sys/class/net/$DEV/ifindex >/dev/null && echo there" >/dev/null
  # Control: without netDevices the host's interface is not in the container.
  run_in "$B"
  assert_ne there "$OUT" "control: $DEV inside without netDevices"
  cfg "$B" --arg d "$DEV" '.linux.netDevices = {($d): {}}'
  run_in "$B"
  assert_run_ok
  assert_eq there "$OUT" "$DEV inside under its host name"
}
tcase "netDevices: without name the interface keeps its host name (control: absent without it)" case_netdevices_keep_name

case_netdevices_refused() {
  known_fail runc crun  # they predate 1.3 and ignore the field
  trap drop_dummies EXIT
  make_dummy
  # A name already taken inside (lo) fails create, and the device is not lost.
  local id; id=$(newid taken)
  new_bundle taken true >/dev/null
  cfg "$B" --arg d "$DEV" '.linux.netDevices = {($d): {"name": "lo"}}'
  create_in "$B" "$id"
  [ "$RC" != 0 ] || fail "create with netDevices renamed to lo succeeded"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "linux.netDevices.$DEV.name: an interface" "the error names the field"; assert_contains "$ERR" "already exists" "the error says the name is taken"; fi
  ip link show "$DEV" >/dev/null 2>&1 || fail "$DEV went away from the host after create refused the name lo"
  # A device the host does not have fails create (no silent drop).
  id=$(newid missing)
  new_bundle missing true >/dev/null
  cfg "$B" '.linux.netDevices = {"s13-nonexistent": {}}'
  create_in "$B" "$id"
  [ "$RC" != 0 ] || fail "create with a missing netDevice succeeded"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "linux.netDevices.s13-nonexistent" "the error names the field"; fi
  # Without a network namespace of its own there is nowhere to move it.
  id=$(newid hostns)
  new_bundle hostns true >/dev/null
  cfg "$B" --arg d "$DEV" '.linux.netDevices = {($d): {}} | .linux.namespaces |= map(select(.type != "network"))'
  create_in "$B" "$id"
  [ "$RC" != 0 ] || fail "create with netDevices and the host's network namespace succeeded"
  ip link show "$DEV" >/dev/null 2>&1 || fail "$DEV went away from the host after a refused create"
}
tcase "netDevices: taken name, missing device, host network namespace are refused" case_netdevices_refused

case_netdevices_unmovable() {
  known_fail runc crun  # they predate 1.3 and ignore the field
  trap drop_dummies EXIT
  make_dummy
  # A bridge cannot change namespace (netns-local); listed after DEV, which moves first.
  local br=s13z$$c$CASENUM id
  ip link add "$br" type bridge || skip "no bridge driver"
  echo "$br" >>"$CASEDIR/.devs"
  id=$(newid unmov)
  new_bundle unmov true >/dev/null
  cfg "$B" --arg d "$DEV" --arg b "$br" '.linux.netDevices = {($d): {}, ($b): {}}'
  create_in "$B" "$id"
  [ "$RC" != 0 ] || fail "create with a bridge in netDevices succeeded"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "linux.netDevices.$br" "the error names the field"; fi
  # The failed create gave back the device it had already moved.
  ip link show "$DEV" >/dev/null 2>&1 || fail "$DEV is not back on the host after the failed create"
  ip link show "$br" >/dev/null 2>&1 || fail "$br went away"
}
tcase "netDevices: an unmovable device (bridge) fails create; the one moved before it comes back" case_netdevices_unmovable

# ---- memoryPolicy ------------------------------------------------------------------------

# The policy of the reading process's own stack, as numa_maps prints it (default, bind:0, ...).
STACK_POLICY='grep " stack " /proc/self/numa_maps | cut -d" " -f2'

case_memory_policy() {
  known_fail runc crun
  [ -e /proc/self/numa_maps ] || skip "the kernel has no NUMA (no /proc/self/numa_maps)"
  new_bundle mp sh -c "$STACK_POLICY" >/dev/null
  run_in "$B"
  assert_run_ok "control"
  assert_eq default "$OUT" "control: the policy without memoryPolicy"
  local mode want
  for mode in MPOL_BIND:bind:0 MPOL_PREFERRED:prefer:0 MPOL_INTERLEAVE:interleave:0; do
    want=${mode#*:}
    cfg "$B" --arg m "${mode%%:*}" '.linux.memoryPolicy = {"mode": $m, "nodes": "0"}'
    run_in "$B"
    assert_run_ok "${mode%%:*}"
    assert_eq "$want" "$OUT" "${mode%%:*} seen in numa_maps"
  done
  cfg "$B" '.linux.memoryPolicy = {"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES"]}'
  run_in "$B"
  assert_eq "bind=static:0" "$OUT" "MPOL_BIND with MPOL_F_STATIC_NODES"
}
tcase "memoryPolicy: bind, preferred, interleave, static flag, seen in numa_maps (control: default)" case_memory_policy

case_memory_policy_exec() {
  known_fail runc crun
  [ -e /proc/self/numa_maps ] || skip "the kernel has no NUMA (no /proc/self/numa_maps)"
  local id; id=$(newid mpx)
  new_bundle mpx sleep 600 >/dev/null
  cfg "$B" '.linux.memoryPolicy = {"mode": "MPOL_BIND", "nodes": "0"}'
  start_detached "$B" "$id"
  ex "$id" sh -c "$STACK_POLICY"
  assert_run_ok
  assert_eq bind:0 "$OUT" "an exec'd process has the container's memory policy"
}
tcase "memoryPolicy: an exec'd process has it too" case_memory_policy_exec

case_memory_policy_refused() {
  known_fail runc crun  # they predate 1.3 and ignore the field
  new_bundle mpr true >/dev/null
  assert_control_runs "$B"
  local n; n=$(( $(ls -d /sys/devices/system/node/node* | sed 's/.*node//' | sort -n | tail -1) + 1 ))
  cfg "$B" --arg n "$n" '.linux.memoryPolicy = {"mode": "MPOL_BIND", "nodes": $n}'
  run_in "$B"
  [ "$RC" != 0 ] || fail "MPOL_BIND to node $n, which this host does not have, ran"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "linux.memoryPolicy" "the error names the field"; fi
  cfg "$B" '.linux.memoryPolicy = {"mode": "MPOL_NOSUCH", "nodes": "0"}'
  run_in "$B"
  [ "$RC" != 0 ] || fail "an unknown memory policy mode ran"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "linux.memoryPolicy.mode" "the error names the field"; fi
}
tcase "memoryPolicy: a node the host lacks and an unknown mode fail (control: runs without)" case_memory_policy_refused

# ---- execCPUAffinity ---------------------------------------------------------------------

case_exec_cpu_affinity() {
  known_fail runc crun
  [ "$(nproc --all)" -ge 2 ] || skip "needs two CPUs"
  local id all; id=$(newid aff)
  all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  new_bundle aff sleep 600 >/dev/null
  start_detached "$B" "$id"
  local proc; proc=$(jq -c '.process | .args = ["sh", "-c", "grep Cpus_allowed_list /proc/self/status"]' "$B/config.json")
  # Control: without execCPUAffinity the exec'd process may use every CPU we may.
  jq -n --argjson p "$proc" '$p' >"$CASEDIR/p0.json"
  ex --process "$CASEDIR/p0.json" "$id"
  assert_run_ok "control"
  assert_eq "$all" "$(status_field "$OUT" Cpus_allowed_list)" "control: no affinity"
  jq -n --argjson p "$proc" '$p | .execCPUAffinity = {"final": "1"}' >"$CASEDIR/p1.json"
  ex --process "$CASEDIR/p1.json" "$id"
  assert_run_ok "final 1"
  assert_eq 1 "$(status_field "$OUT" Cpus_allowed_list)" "final: 1"
  jq -n --argjson p "$proc" '$p | .execCPUAffinity = {"initial": "0", "final": "1"}' >"$CASEDIR/p2.json"
  ex --process "$CASEDIR/p2.json" "$id"
  assert_eq 1 "$(status_field "$OUT" Cpus_allowed_list)" "initial 0, final 1"
  # Only initial: it is the runtime's part's; the process gets every CPU the cgroup allows.
  jq -n --argjson p "$proc" '$p | .execCPUAffinity = {"initial": "1"}' >"$CASEDIR/p3.json"
  ex --process "$CASEDIR/p3.json" "$id"
  assert_eq "$all" "$(status_field "$OUT" Cpus_allowed_list)" "initial only"
  # Not for init: the container's own process keeps every CPU.
  local pid; pid=$(<"$CASEDIR/$id.pid")
  assert_eq "$all" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")" "init's CPUs"
}
tcase "execCPUAffinity: final, initial+final, initial only, in exec's --process (control: none)" case_exec_cpu_affinity

case_exec_cpu_affinity_from_config() {
  known_fail runc crun
  [ "$(nproc --all)" -ge 2 ] || skip "needs two CPUs"
  local id all; id=$(newid affc)
  all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  new_bundle affc sleep 600 >/dev/null
  cfg "$B" '.process.execCPUAffinity = {"final": "0"}'
  start_detached "$B" "$id"
  local pid; pid=$(<"$CASEDIR/$id.pid")
  assert_eq "$all" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")" "init is not bound by it"
  ex "$id" grep Cpus_allowed_list /proc/self/status
  assert_run_ok
  assert_eq 0 "$(status_field "$OUT" Cpus_allowed_list)" "exec gets the config's execCPUAffinity"
}
tcase "execCPUAffinity in config.json applies to exec, not to init" case_exec_cpu_affinity_from_config

case_exec_cpu_affinity_refused() {
  known_fail runc crun  # they predate 1.3 and ignore the field
  local id; id=$(newid affr)
  new_bundle affr sleep 600 >/dev/null
  start_detached "$B" "$id"
  jq '.process | .args = ["true"] | .execCPUAffinity = {"final": "1-0"}' "$B/config.json" >"$CASEDIR/bad.json"
  ex --process "$CASEDIR/bad.json" "$id"
  [ "$RC" != 0 ] || fail "exec with execCPUAffinity.final 1-0 succeeded"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "execCPUAffinity.final" "the error names the field"; fi
  jq '.process | .args = ["true"]' "$B/config.json" >"$CASEDIR/ok.json"
  ex --process "$CASEDIR/ok.json" "$id"
  assert_run_ok "control: the same process file without it runs"
}
tcase "execCPUAffinity: a malformed list fails exec (control: runs without)" case_exec_cpu_affinity_refused

# ---- intelRdt ----------------------------------------------------------------------------

case_intel_rdt_refused() {
  known_fail runc crun  # runc 1.1.5 and crun 1.8.1 run closID/schemata without resctrl, against the spec; crun 1.21 refuses
  if grep -q resctrl /proc/filesystems && mountpoint -q /sys/fs/resctrl; then
    skip "this host has resctrl: the case is for a host without RDT"
  fi
  new_bundle rdt true >/dev/null
  assert_control_runs "$B"
  cfg "$B" '.linux.intelRdt = {"closID": "s13", "schemata": ["L3:0=1"]}'
  run_in "$B"
  [ "$RC" != 0 ] || fail "linux.intelRdt ran on a host without resctrl"
  if [ "$OURS" = 1 ]; then
    assert_contains "$ERR" "linux.intelRdt.closID" "the error names the field"
    assert_contains "$ERR" "resctrl" "the error says what the host lacks"
  fi
  cfg "$B" '.linux.intelRdt = {"enableMonitoring": true}'
  run_in "$B"
  [ "$RC" != 0 ] || fail "linux.intelRdt.enableMonitoring ran on a host without resctrl"
}
tcase "intelRdt (1.3 fields) is a clear error on a host without RDT (control: runs without)" case_intel_rdt_refused

# ---- features ----------------------------------------------------------------------------

case_features() {
  known_fail runc crun
  local f; f=$(rt features)
  assert_eq true "$(jq -r '.linux.netDevices.enabled' <<<"$f")" "netDevices.enabled"
  jq -e '.linux.memoryPolicy.modes | index("MPOL_BIND") and index("MPOL_PREFERRED") and index("MPOL_LOCAL")' \
    <<<"$f" >/dev/null || fail "memoryPolicy.modes: $(jq -c .linux.memoryPolicy <<<"$f")"
  jq -e '.linux.memoryPolicy.flags | index("MPOL_F_STATIC_NODES")' <<<"$f" >/dev/null ||
    fail "memoryPolicy.flags: $(jq -c .linux.memoryPolicy <<<"$f")"
  # Refused here (no resctrl, and not implemented): nothing of it is claimed.
  assert_eq "false false false" "$(jq -r '.linux.intelRdt | "\(.enabled) \(.schemata) \(.monitoring)"' <<<"$f")" "intelRdt"
  jq -e '.linux.mountExtensions.idmap | has("enabled")' <<<"$f" >/dev/null || fail "mountExtensions.idmap missing"
  assert_match "$(jq -r .ociVersionMax <<<"$f")" '^1\.3\.' "ociVersionMax"
}
tcase "features: netDevices, memoryPolicy modes and flags, intelRdt, mountExtensions.idmap" case_features

finish
