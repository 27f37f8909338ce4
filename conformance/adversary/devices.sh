#!/usr/bin/env bash
# Adversarial suite (pure cgroup v2 most of all): the floor's device list must hold on every cgroup
# layout. A client binds a host block device (a loop device the suite makes) into the container,
# or asks `linux.resources.devices` for everything, under baseline (whose device list is exact:
# console, full, null, ptmx, pts, random, tty, urandom, zero) and reads it from inside. On v1 and
# hybrid hosts the devices controller refuses the open; on pure v2 only an eBPF device program
# can, and once none was attached there (a warning said so): the read went through while
# `policy explain` said "devices cgroup". Control: the same bundle without the floor, its rules
# allowing the disk, reads it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

BASELINE=$SHARNESS_SOURCE_DIR/policies/baseline.json

# A host block device the suite owns: a loop device over a 1 MiB file in its temp dir, detached
# on exit. host_disk prints "/dev/loopN MAJOR MINOR".
LOOP=""
_loop_off() { [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null; return 0; }
trap '_st=$?; [ "$BASHPID" = "$$" ] && _loop_off; (exit $_st); _cleanup' EXIT
host_disk() {
  if [ -z "$LOOP" ]; then
    dd if=/dev/zero of="$TMP/disk.img" bs=1M count=1 2>/dev/null || return 1
    LOOP=$(losetup -f --show "$TMP/disk.img") || return 1
  fi
  echo "$LOOP $(stat -c '%t %T' "$LOOP" | while read -r ma mi; do echo $((16#$ma)) $((16#$mi)); done)"
}

read -r DISK DISK_MAJ DISK_MIN < <(host_disk) || { echo "cannot make a loop device" >&2; exit 1; }
LOOP=$DISK

READ_DISK='head -c 512 /dev/hostdisk 2>/dev/null | wc -c; (exec 3</dev/hostdisk) 2>&1 | grep -o "Operation not permitted" || echo opened'

case_bound_host_disk() {
  local b disk=$DISK maj=$DISK_MAJ min=$DISK_MIN
  echo "host disk: $disk ($maj:$min)"
  b=$(new_bundle b sh -c "$READ_DISK") || return 1
  cfg "$b" --arg d "$disk" --argjson ma "$maj" --argjson mi "$min" \
    '.mounts += [{"destination": "/dev/hostdisk", "type": "bind", "source": $d, "options": ["bind"]}]
     | .linux.resources.devices = [{"allow": true, "type": "b", "major": $ma, "minor": $mi, "access": "rwm"}]'
  run_in "$b"
  assert_run_ok "control: the bundle without a floor ($ERR)" || return 1
  assert_eq $'512\nopened' "$OUT" "control: the disk is readable where nothing holds it" || return 1
  [ "$OURS" = 1 ] || return 0
  RT_EXTRA+=($(floor_args "$BASELINE"))
  run_in "$b"
  assert_run_ok "the same bundle under baseline ($ERR)" || return 1
  assert_eq $'0\nOperation not permitted' "$OUT" "reading $disk ($maj:$min) from inside under baseline" || return 1
  held "bind of the host disk $disk ($maj:$min) + devices rule allowing it, under baseline" \
    "the floor's device list ($( [ -f "$CGROOT/cgroup.controllers" ] && echo "eBPF device program" || echo "devices controller"))"
}

case_allow_all_rule() {
  # the config asks for every device (a privileged container's rule): the floor's list wins
  local b disk=$DISK
  b=$(new_bundle b sh -c "$READ_DISK") || return 1
  cfg "$b" --arg d "$disk" \
    '.mounts += [{"destination": "/dev/hostdisk", "type": "bind", "source": $d, "options": ["bind"]}]
     | .linux.resources.devices = [{"allow": true, "access": "rwm"}]'
  run_in "$b"
  assert_run_ok "control: without a floor ($ERR)" || return 1
  assert_eq $'512\nopened' "$OUT" "control: allow-all reads the disk" || return 1
  [ "$OURS" = 1 ] || return 0
  RT_EXTRA+=($(floor_args "$BASELINE"))
  run_in "$b"
  assert_run_ok "under baseline ($ERR)" || return 1
  assert_eq $'0\nOperation not permitted' "$OUT" "reading $disk under baseline with an allow-all rule" || return 1
  held "linux.resources.devices allow a *:* rwm + bind of $disk, under baseline" "the floor's exact device list"
}

tcase "a bound host disk is not readable under the floor's device list" case_bound_host_disk
tcase "an allow-all device rule does not widen the floor's list" case_allow_all_rule
adversary_finish
