#!/usr/bin/env bash
# Cgroups: memory limit visible and enforced (OOM kill), pids limit (fork fails), cpu quota visible
# and throttling, cpu shares, /proc/self/cgroup path (and "/" in a cgroup namespace), `update`, and
# the cgroup removed on delete. Works on v1, v2 and hybrid hosts: each check reads the v1 file or
# the v2 one, whichever the runtime gave the container.
. "$(dirname "$0")/../lib.sh"

# In-container helper: cgread V1FILE V2FILE... prints the first readable /sys/fs/cgroup file.
CGREAD='cgread() { for f in "$@"; do [ -r /sys/fs/cgroup/$f ] && { cat /sys/fs/cgroup/$f; return 0; }; done; echo missing; }; '

# host_cg_file ID V1CONTROLLER/FILE V2FILE: the host path of a container cgroup file.
host_cg_file() {
  local id=$1 v1=$2 v2=$3 d
  for d in "$CGROOT/${v1%%/*}/$CGPARENT/$id/${v1#*/}" "$CGROOT/unified/$CGPARENT/$id/$v2" \
           "$CGROOT/$CGPARENT/$id/$v2"; do
    [ -e "$d" ] && { echo "$d"; return 0; }
  done
  return 1
}

MiB=1048576

case_memory_limit_visible() {
  local b id f
  b=$(new_bundle b sh -c "$CGREAD"'cgread memory/memory.limit_in_bytes memory.max; sleep 1000')
  cfg "$b" ".linux.resources.memory = {\"limit\": $((32 * MiB)), \"swap\": $((32 * MiB))}"
  id=$(newid mem)
  start_detached "$b" "$id"
  wait_file "$CASEDIR/$id.out"
  assert_eq $((32 * MiB)) "$(head -1 "$CASEDIR/$id.out")" "memory limit read inside"
  f=$(host_cg_file "$id" memory/memory.limit_in_bytes memory.max) || fail "no memory cgroup on the host for $id"
  assert_eq $((32 * MiB)) "$(<"$f")" "memory limit on the host ($f)"
}

case_memory_oom_kill() {
  # a child shell holding ~100 MB in a 32 MiB container is OOM-killed; the init shell reports it
  local b id f
  b=$(new_bundle b sh -c 'sh -c "x=\$(head -c 100000000 /dev/zero | tr \"\\0\" a); echo survived \${#x}"; echo "child exit $?"')
  cfg "$b" ".linux.resources.memory = {\"limit\": $((32 * MiB)), \"swap\": $((32 * MiB))}"
  id=$(newid oom)
  start_detached "$b" "$id"
  wait_status "$id" stopped 30
  local out; out=$(<"$CASEDIR/$id.out")
  assert_not_contains "$out" survived "the memory hog's fate"
  if f=$(host_cg_file "$id" memory/memory.oom_control memory.events); then
    assert_match "$(<"$f")" 'oom_kill [1-9]' "OOM kills counted in $f"
    # usually only the hog dies; under load the kernel may also take the init shell before the
    # hog's memory is freed, and then nothing is printed
    [[ $out == "child exit 137" || -z $out ]] || fail "expected 'child exit 137' (or nothing), got '$out'"
  else
    assert_eq "child exit 137" "$out" "the memory hog's fate"
  fi
}

case_memory_control() {
  # control for the OOM case: the same hog under a 512 MiB limit survives
  local b
  b=$(new_bundle b sh -c 'sh -c "x=\$(head -c 100000000 /dev/zero | tr \"\\0\" a); echo survived \${#x}"; echo "child exit $?"')
  cfg "$b" ".linux.resources.memory = {\"limit\": $((512 * MiB)), \"swap\": $((512 * MiB))}"
  run_in "$b"
  assert_rc 0
  assert_eq $'survived 100000000\nchild exit 0' "$OUT" "the hog under 512 MiB"
}

case_tmpfs_counts() {
  # tmpfs pages are charged to the writer's cgroup: 100 MB into a tmpfs inside 32 MiB cannot stay
  local b
  b=$(new_bundle b sh -c 'sh -c "dd if=/dev/zero of=/big/fill bs=1M count=100 2>/dev/null"; echo "dd exit $?"')
  cfg "$b" ".linux.resources.memory = {\"limit\": $((32 * MiB)), \"swap\": $((32 * MiB))}
            | .mounts += [{\"destination\": \"/big\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=200m\"]}]"
  run_in "$b"
  assert_rc 0 "the container's init (the shell) is not the one killed"
  assert_match "$OUT" '^dd exit [0-9]+$' "the container ran dd"
  assert_ne "dd exit 0" "$OUT" "dd of 100 MB into tmpfs under a 32 MiB limit"
}

case_pids_limit() {
  local b
  b=$(new_bundle b sh -c "$CGREAD"'cgread pids/pids.max pids.max; for i in 1 2 3 4 5 6 7 8; do sleep 5 & done; echo spawned')
  cfg "$b" '.linux.resources.pids = {"limit": 4}'
  run_in "$b"
  assert_eq 4 "$(head -1 <<<"$OUT")" "pids.max read inside"
  assert_match "$ERR" "can't fork|Resource temporarily unavailable" "fork beyond the pids limit"
  # control: the same with a limit of 100 spawns all
  cfg "$b" '.linux.resources.pids = {"limit": 100}'
  run_in "$b"
  assert_contains "$OUT" spawned "eight background sleeps under a limit of 100"
  assert_not_contains "$ERR" "can't fork" "fork under a limit of 100"
}

case_pids_count_exact() {
  # pids.max 4: pid 1 plus three children fit, the fourth child (fifth fork) does not
  local b
  b=$(new_bundle b sh -c 'n=0; for i in 1 2 3 4 5 6; do sleep 5 & n=$((n+1)); echo $n; done')
  cfg "$b" '.linux.resources.pids = {"limit": 4}'
  run_in "$b"
  assert_eq "3" "$(tail -1 <<<"$OUT")" "background children started under pids.max 4"
}

case_cpu_quota() {
  local b
  b=$(new_bundle b sh -c "$CGREAD"'cgread cpu/cpu.cfs_quota_us cpu.max; cgread cpu/cpu.cfs_period_us cpu.max')
  cfg "$b" '.linux.resources.cpu = {"quota": 50000, "period": 100000}'
  run_in "$b"
  assert_rc 0
  assert_match "$(tr '\n' ' ' <<<"$OUT")" '^(50000 100000 |50000 100000 50000 100000 )$' "cfs quota and period (v1) or cpu.max (v2)"
}

case_cpu_throttled() {
  # with a 10% quota, half a second of busy loop gets throttled
  local b
  b=$(new_bundle b sh -c "$CGREAD"'yes > /dev/null & sleep 0.5; kill $!; cgread cpu/cpu.stat cpu.stat')
  cfg "$b" '.linux.resources.cpu = {"quota": 10000, "period": 100000}'
  run_in "$b"
  assert_rc 0
  assert_match "$OUT" 'nr_throttled [1-9]' "cpu.stat after a busy loop under a 10% quota"
}

case_cpu_shares() {
  local b
  b=$(new_bundle b sh -c "$CGREAD"'cgread cpu/cpu.shares cpu.weight')
  cfg "$b" '.linux.resources.cpu = {"shares": 512}'
  run_in "$b"
  assert_rc 0
  # v1: 512; v2: weight converted from shares (1 + ((512 - 2) * 9999) / 262142 = 20)
  assert_match "$OUT" '^(512|20)$' "cpu.shares (v1) or cpu.weight (v2)"
}

case_proc_self_cgroup() {
  local b
  b=$(new_bundle b cat /proc/self/cgroup)
  cfg "$b" '.linux.namespaces |= map(select(.type != "cgroup"))'
  local id; id=$(newid path)
  run_in "$b" "$id"
  assert_rc 0
  echo "$OUT"
  grep -qxE "[0-9]+:([^:]*,)?memory(,[^:]*)?:/$CGPARENT/$id|0::/$CGPARENT/$id" <<<"$OUT" ||
    fail "no memory (v1) or unified (v2) line with /$CGPARENT/$id in: $OUT"
}

case_cgroup_namespace() {
  local b line bad=""
  b=$(new_bundle b cat /proc/self/cgroup)
  cfg "$b" '.linux.namespaces += [{"type": "cgroup"}]'
  run_in "$b"
  assert_rc 0
  echo "$OUT"
  # every hierarchy the container was placed in is its root, "/"
  while IFS= read -r line; do
    [[ $line == *:/ ]] || bad+=" $line"
  done < <(grep -E ':(memory|pids|cpu[^:]*|devices|freezer)?:' <<<"$OUT" | grep -v '^[0-9]*:name=' || true)
  assert_eq "" "$bad" "cgroup lines that are not / inside a cgroup namespace"
  assert_match "$OUT" '(memory|0::)' "the memory or unified line is present"
}

case_cgroup_on_host_and_removed() {
  local b id d
  b=$(new_bundle b sleep 1000)
  cfg "$b" ".linux.resources.memory = {\"limit\": $((64 * MiB))} | .linux.resources.pids = {\"limit\": 20}"
  id=$(newid rm)
  start_detached "$b" "$id"
  d=$(cgroup_dirs "$id")
  [ -n "$d" ] || fail "no cgroup dir for $id under $CGROOT/*/$CGPARENT"
  echo "dirs: $d"
  grep -qx "$(<"$CASEDIR/$id.pid")" $(for x in $d; do echo "$x/cgroup.procs"; done) ||
    fail "init pid not in its cgroup"
  assert_ok rt delete --force "$id"
  assert_eq "" "$(cgroup_dirs "$id")" "cgroup dirs after delete"
}

case_client_parent_survives() {
  # A client's parent cgroup (a Kubernetes pod's, with the pod's memory limit) outlives the
  # delete of its last container, as with runc and crun: a container created later under a
  # re-made parent would escape the pod's limit.
  local b id pod=pod-$CASENUM d lim
  if [ -d "$CGROOT/memory" ]; then
    d=$CGROOT/memory/$CGPARENT/$pod lim=memory.limit_in_bytes
  else
    d=$CGROOT/$CGPARENT/$pod lim=memory.max
    [ -f "$CGROOT/cgroup.controllers" ] || d=$CGROOT/unified/$CGPARENT/$pod
    echo +memory >"$(dirname "$d")/cgroup.subtree_control" 2>/dev/null || true
  fi
  mkdir -p "$d" && echo $((256 * MiB)) >"$d/$lim" || fail "cannot make the pod cgroup $d"
  b=$(new_bundle b true)
  id=$(newid pod)
  cfg "$b" ".linux.cgroupsPath = \"/$CGPARENT/$pod/$id\""
  assert_ok rt run --bundle "$b" "$id"
  assert_ok rt delete --force "$id"
  [ ! -d "$d/$id" ] || fail "the container's own cgroup is left: $d/$id"
  [ -d "$d" ] || fail "the pod's cgroup $d was removed with its last container"
  assert_eq $((256 * MiB)) "$(cat "$d/$lim" 2>/dev/null)" "the pod's memory limit"
}

case_update_resources() {
  local b id f
  b=$(new_bundle b sleep 1000)
  cfg "$b" ".linux.resources.memory = {\"limit\": $((64 * MiB))} | .linux.resources.pids = {\"limit\": 20}"
  id=$(newid upd)
  start_detached "$b" "$id"
  rt update --resources - "$id" <<<"{\"memory\": {\"limit\": $((48 * MiB))}, \"pids\": {\"limit\": 10}}" ||
    fail "update --resources - failed"
  f=$(host_cg_file "$id" memory/memory.limit_in_bytes memory.max) || fail "no memory cgroup"
  assert_eq $((48 * MiB)) "$(<"$f")" "memory limit after update"
  f=$(host_cg_file "$id" pids/pids.max pids.max) || fail "no pids cgroup"
  assert_eq 10 "$(<"$f")" "pids.max after update"
}

case_ps_lists_pids() {
  local b id pid js
  b=$(new_bundle b sleep 1000)
  id=$(newid ps)
  start_detached "$b" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  js=$(rt ps --format json "$id")
  assert_eq "[$pid]" "$(jq -c . <<<"$js")" "ps --format json"
}

case_pause_resume() {
  local b id pid f
  b=$(new_bundle b sleep 1000)
  id=$(newid pause)
  start_detached "$b" "$id"
  pid=$(<"$CASEDIR/$id.pid")
  assert_ok rt pause "$id"
  assert_eq paused "$(status_of "$id")" "status after pause"
  if f=$(host_cg_file "$id" freezer/freezer.state cgroup.freeze); then
    assert_match "$(<"$f")" '^(FROZEN|1)$' "freezer state on the host"
  fi
  assert_ok rt resume "$id"
  assert_eq running "$(status_of "$id")" "status after resume"
}

tcase "memory limit visible inside and on the host" case_memory_limit_visible
tcase "memory limit enforced: a 100 MB hog under 32 MiB is OOM-killed" case_memory_oom_kill
tcase "memory control: the same hog under 512 MiB survives" case_memory_control
tcase "memory limit covers tmpfs writes" case_tmpfs_counts
tcase "pids limit 4: fork fails (and not under 100)" case_pids_limit
tcase "pids limit 4: exactly three children fit" case_pids_count_exact
tcase "cpu quota/period visible" case_cpu_quota
tcase "cpu quota throttles a busy loop" case_cpu_throttled
tcase "cpu shares visible" case_cpu_shares
tcase "/proc/self/cgroup shows the configured path" case_proc_self_cgroup
tcase "cgroup namespace: /proc/self/cgroup shows /" case_cgroup_namespace
tcase "cgroup dirs exist while running, gone after delete" case_cgroup_on_host_and_removed
tcase "a client's parent cgroup and its limit survive its last container" case_client_parent_survives
tcase "update --resources - changes limits" case_update_resources
tcase "ps --format json lists the container's pids" case_ps_lists_pids
tcase "pause freezes, resume thaws" case_pause_resume
finish
