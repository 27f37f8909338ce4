#!/usr/bin/env bash
# Pure cgroup v2 only (the other suites run on every layout): device rules as an eBPF program
# (attached to the container's cgroup, and refusing from inside), cgroup.kill taking the cgroups
# a container made below its own (kill --all, delete, the wall-clock watchdog), memory.oom.group
# killing the whole container, the freeze state in cgroup.events (for the cgroups below too), and
# what a cgroup namespace shows. On a host that is not pure v2 each case skips: the host lacks the
# kernel layout they are about (the suites that run everywhere cover the rest there).
. "$(dirname "$0")/../lib.sh"

MiB=1048576

host_is_v2() { [ "$(stat -f -c %T "$CGROOT" 2>/dev/null)" = cgroup2fs ]; }
need_v2() {
  host_is_v2 || skip "not a pure cgroup v2 host ($CGROOT is $(stat -f -c %T "$CGROOT" 2>/dev/null))"
}

# cgdir ID: the container's cgroup on the host.
cgdir() { echo "$CGROOT/$CGPARENT/$1"; }

# A cgroup namespace and a writable /sys/fs/cgroup: the container may make cgroups below its own
# (as systemd, or a runtime inside, does).
RWCG='.linux.namespaces += [{"type": "cgroup"}]
      | .mounts |= map(if .destination == "/sys/fs/cgroup" then .options = ((.options - ["ro"]) + ["rw"]) else . end)'

# bpf_query: the cgroup-bpf-query tool (the build's, else built here with cc).
bpf_query() {
  local q=${SHARNESS_CGROUP_BPF_QUERY:-$SHARNESS_SOURCE_DIR/build/cgroup-bpf-query}
  if [ -x "$q" ]; then echo "$q"; else static_tool cgroup_bpf_query.c; fi
}

# keyed FILE KEY: the value of "KEY VALUE" in a cgroup keyed file (cgroup.events, memory.events).
keyed() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }

# A container that makes /sys/fs/cgroup/inner, moves a sleeping child into it, says "nested" and
# sleeps itself (in its own cgroup).
NESTED='mkdir /sys/fs/cgroup/inner || exit 1
  sh -c "echo \$\$ > /sys/fs/cgroup/inner/cgroup.procs && exec sleep 1000" &
  while ! grep -q . /sys/fs/cgroup/inner/cgroup.procs; do sleep 0.05; done
  echo nested; exec sleep 1000'

# ---------------------------------------------------------------------------------------------
# Device rules: an eBPF program on the container's cgroup

case_device_program_attached() {
  need_v2
  local b id q n
  q=$(bpf_query)
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237 && echo made
                          (exec 3</dev/lc) && echo opened || echo open-refused
                          (exec 3</dev/null) && echo null-opened
                          sleep 1000')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"]) | del(.linux.resources.devices)'
  id=$(newid dev)
  start_detached "$b" "$id"
  wait_grep "$CASEDIR/$id.out" null-opened
  assert_eq $'made\nopen-refused\nnull-opened' "$(<"$CASEDIR/$id.out")" \
    "mknod of 10:237 (allowed: c *:* m), then its open (refused), /dev/null (allowed)"
  assert_contains "$(<"$CASEDIR/$id.err")" "Operation not permitted" "the open's error"
  [ ! -e "$(cgdir "$id")/devices.list" ] || fail "a devices.list on a pure v2 host?"
  n=$("$q" "$(cgdir "$id")") || fail "BPF_PROG_QUERY on $(cgdir "$id") failed"
  ((n >= 1)) || fail "no BPF_CGROUP_DEVICE program attached to $(cgdir "$id") (got $n)"
}

case_device_program_control() {
  # the same node, allowed by the config: it opens (the refusal above is the program's)
  need_v2
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237 && (exec 3</dev/lc) && echo opened || echo open-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"])
            | .linux.resources.devices = [{"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rwm"}]'
  run_in "$b"
  assert_eq opened "$OUT" "open of 10:237 once allowed"
}

case_device_program_access() {
  # allowed rwm, then w denied: an open for reading works, an open for writing is refused
  need_v2
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237
                          (exec 3</dev/lc) && echo read-opened || echo read-refused
                          (exec 3>/dev/lc) && echo write-opened || echo write-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"])
            | .linux.resources.devices = [{"allow": false, "access": "rwm"},
                {"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rwm"},
                {"allow": false, "type": "c", "major": 10, "minor": 237, "access": "w"}]'
  run_in "$b"
  assert_eq $'read-opened\nwrite-refused' "$OUT" "10:237 allowed rwm then denied w"
}

# ---------------------------------------------------------------------------------------------
# cgroup.kill and the cgroups a container makes below its own

case_kill_all_takes_nested() {
  need_v2
  local b id inner pid
  b=$(new_bundle b sh -c "$NESTED")
  cfg "$b" "$RWCG"
  id=$(newid kill)
  start_detached "$b" "$id"
  wait_grep "$CASEDIR/$id.out" nested
  inner=$(<"$(cgdir "$id")/inner/cgroup.procs")
  pid=$(<"$CASEDIR/$id.pid")
  [ -n "$inner" ] && alive "$inner" || fail "control: no live process in $(cgdir "$id")/inner"
  assert_eq "$(printf '%s\n' "$pid" "$inner" | sort -n)" "$(rt ps --format json "$id" | jq -r '.[]' | sort -n)" \
    "ps lists the process in the container's own cgroup and the one below it"
  assert_ok rt kill --all "$id" KILL
  wait_status "$id" stopped 10
  for ((i = 0; i < 100; i++)); do alive "$inner" || break; sleep 0.05; done
  alive "$inner" && fail "the process in $(cgdir "$id")/inner survived kill --all KILL"
  assert_eq 0 "$(keyed "$(cgdir "$id")/cgroup.events" populated)" "cgroup.events populated after kill --all"
  assert_ok rt delete "$id"
  assert_eq "" "$(cgroup_dirs "$id")" "cgroup dirs after delete"
}

case_delete_removes_nested() {
  need_v2
  local b id inner
  b=$(new_bundle b sh -c "$NESTED")
  cfg "$b" "$RWCG"
  id=$(newid del)
  start_detached "$b" "$id"
  wait_grep "$CASEDIR/$id.out" nested
  inner=$(<"$(cgdir "$id")/inner/cgroup.procs")
  [ -d "$(cgdir "$id")/inner" ] || fail "control: the container made no cgroup below its own"
  assert_ok rt delete --force "$id"
  alive "$inner" && fail "the process in the nested cgroup survived delete --force"
  assert_eq "" "$(cgroup_dirs "$id")" "cgroup dirs after delete --force (the nested one too)"
}

case_watchdog_kills_nested() {
  [ "$OURS" = 1 ] || skip "the wall-clock watchdog is sharness-runtime's"
  need_v2
  local b id p inner
  p=$CASEDIR/wall.json
  jq '.id = "baseline-wall" | .wallClock.seconds = 2' "$SHARNESS_SOURCE_DIR/policies/baseline.json" >"$p"
  b=$(new_bundle b sh -c "$NESTED")
  cfg "$b" "$RWCG"
  id=$(newid wall)
  RT_EXTRA+=(--policy "$p")
  start_detached "$b" "$id"
  wait_grep "$CASEDIR/$id.out" nested
  inner=$(<"$(cgdir "$id")/inner/cgroup.procs")
  alive "$inner" || fail "control: the nested process is not running"
  wait_status "$id" stopped 10
  for ((i = 0; i < 100; i++)); do alive "$inner" || break; sleep 0.05; done
  alive "$inner" && fail "the process in the nested cgroup outlived the wall clock"
  assert_eq 0 "$(keyed "$(cgdir "$id")/cgroup.events" populated)" "cgroup.events populated after the watchdog"
}

# ---------------------------------------------------------------------------------------------
# memory.oom.group

OOM_HOG='sh -c "exec dd if=/dev/zero of=/dev/null bs=100M count=1 2>/dev/null"; echo "child exit $?"'

case_oom_group_kills_all() {
  need_v2
  local b id f
  b=$(new_bundle b sh -c "$OOM_HOG")
  cfg "$b" ".linux.resources.memory = {\"limit\": $((32 * MiB)), \"swap\": $((32 * MiB))}
            | .linux.resources.unified = {\"memory.oom.group\": \"1\"}"
  id=$(newid oomg)
  start_detached "$b" "$id"
  assert_eq 1 "$(<"$(cgdir "$id")/memory.oom.group")" "memory.oom.group on the host"
  wait_status "$id" stopped 30
  assert_eq "" "$(<"$CASEDIR/$id.out")" "the container's output (the whole group is killed: init prints nothing)"
  f=$(cgdir "$id")/memory.events
  assert_match "$(keyed "$f" oom_group_kill)" '^[1-9]' "oom_group_kill in $f"
}

case_oom_group_control() {
  # without memory.oom.group only the hog dies and init reports it
  need_v2
  local b
  b=$(new_bundle b sh -c "$OOM_HOG")
  cfg "$b" ".linux.resources.memory = {\"limit\": $((32 * MiB)), \"swap\": $((32 * MiB))}"
  run_in "$b"
  assert_eq "child exit 137" "$OUT" "the hog's fate without oom.group"
}

# ---------------------------------------------------------------------------------------------
# The freezer: cgroup.freeze and cgroup.events

case_freeze_in_cgroup_events() {
  need_v2
  local b id d
  b=$(new_bundle b sh -c "$NESTED")
  cfg "$b" "$RWCG"
  id=$(newid frz)
  start_detached "$b" "$id"
  wait_grep "$CASEDIR/$id.out" nested
  d=$(cgdir "$id")
  assert_eq 0 "$(keyed "$d/cgroup.events" frozen)" "cgroup.events frozen before pause (control)"
  assert_ok rt pause "$id"
  assert_eq 1 "$(<"$d/cgroup.freeze")" "cgroup.freeze after pause"
  assert_eq 1 "$(keyed "$d/cgroup.events" frozen)" "cgroup.events frozen after pause"
  assert_eq 1 "$(keyed "$d/inner/cgroup.events" frozen)" "the nested cgroup is frozen with it"
  assert_eq paused "$(status_of "$id")" "status after pause"
  assert_ok rt resume "$id"
  assert_eq 0 "$(keyed "$d/cgroup.events" frozen)" "cgroup.events frozen after resume"
  assert_eq 0 "$(keyed "$d/inner/cgroup.events" frozen)" "the nested cgroup after resume"
  assert_eq running "$(status_of "$id")" "status after resume"
}

# ---------------------------------------------------------------------------------------------
# What the container sees of cgroup v2

case_cgroupns_shows_own_limits() {
  need_v2
  local b
  b=$(new_bundle b sh -c 'cat /proc/self/cgroup; cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max
                          ls /sys/fs/cgroup | grep -c "\.slice$\|\.scope$\|^sharness-test-" || true')
  cfg "$b" ".linux.namespaces += [{\"type\": \"cgroup\"}]
            | .linux.resources.memory = {\"limit\": $((48 * MiB))} | .linux.resources.pids = {\"limit\": 33}"
  run_in "$b"
  assert_rc 0
  assert_eq $'0::/\n'"$((48 * MiB))"$'\n33\n0' "$OUT" \
    "/proc/self/cgroup, memory.max, pids.max, and no host cgroup (slice, scope, this run's parent) in /sys/fs/cgroup"
  # control: the host's /sys/fs/cgroup does show this run's parent
  [ -d "$CGROOT/$CGPARENT" ] || fail "control: no $CGROOT/$CGPARENT on the host"
}

case_subtree_delegation() {
  # the controllers a limit needs are enabled in every ancestor, and the container's own
  # cgroup.controllers lists them
  need_v2
  local b id c
  b=$(new_bundle b sh -c 'cat /sys/fs/cgroup/cgroup.controllers; sleep 1000')
  cfg "$b" ".linux.namespaces += [{\"type\": \"cgroup\"}]
            | .linux.resources.memory = {\"limit\": $((64 * MiB))} | .linux.resources.pids = {\"limit\": 20}
            | .linux.resources.cpu = {\"quota\": 50000, \"period\": 100000}"
  id=$(newid deleg)
  start_detached "$b" "$id"
  wait_file "$CASEDIR/$id.out"
  for c in memory pids cpu; do
    assert_match " $(<"$CASEDIR/$id.out") " " $c " "controller $c seen inside"
    assert_match " $(<"$CGROOT/$CGPARENT/cgroup.subtree_control") " " $c " "$c delegated by $CGROOT/$CGPARENT"
  done
  assert_eq "50000 100000" "$(<"$(cgdir "$id")/cpu.max")" "cpu.max on the host"
}

tcase "v2 devices: an eBPF device program is attached; mknod works, open refused, /dev/null opens" case_device_program_attached
tcase "v2 devices: the same node opens once allowed (control)" case_device_program_control
tcase "v2 devices: allowed rwm then denied w: read opens, write refused" case_device_program_access
tcase "v2 cgroup.kill: kill --all KILL takes the cgroups below the container's" case_kill_all_takes_nested
tcase "v2 delete --force kills and removes the cgroups below the container's" case_delete_removes_nested
tcase "v2 watchdog: the wall clock kills the cgroups below the container's too" case_watchdog_kills_nested
tcase "v2 memory.oom.group=1: an OOM kills the whole container" case_oom_group_kills_all
tcase "v2 memory.oom.group control: without it only the hog dies" case_oom_group_control
tcase "v2 pause: cgroup.freeze and cgroup.events frozen 1, nested too; resume: 0" case_freeze_in_cgroup_events
tcase "v2 cgroup namespace: 0::/, its own limits, no host cgroup visible" case_cgroupns_shows_own_limits
tcase "v2 delegation: the controllers limits need are enabled above and seen inside" case_subtree_delegation
finish
