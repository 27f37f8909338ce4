#!/usr/bin/env bash
# CVE-2021-30465: a mount destination is swapped for a symlink into the host between the
# runtime's check and its mount(2). A racing process on the host flips rootfs/mnt between an
# empty directory and a symlink to a host directory while many creates run; after each create,
# the host directory must have no mount and no new file (the mount lands inside the rootfs, or
# the create fails cleanly).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

RACE_ROUNDS=${SHARNESS_RACE_ROUNDS:-25}

# race_creates BUNDLE HOSTDIR: create+delete RACE_ROUNDS times while rootfs/mnt flips.
race_creates() {
  local b=$1 h=$2 i id ok=0 refused=0
  start_flip_racer "$b/rootfs/mnt" "$h"
  for ((i = 0; i < RACE_ROUNDS; i++)); do
    id=$(newid race$i)
    create_in "$b" "$id"
    if [ "$RC" = 0 ]; then ok=$((ok + 1)); else refused=$((refused + 1)); fi
    rt delete --force "$id" >/dev/null 2>&1 || true
    assert_host_dir_untouched "$h" "round $i (create exit $RC: ${ERR:0:160})" || break
  done
  stop_racer
  echo "$RACE_ROUNDS creates under the race: $ok succeeded, $refused refused"
  rm -rf "${b:?}/rootfs/mnt"
  assert_host_dir_untouched "$h" "after the race"
}

case_tmpfs_destination_race() {
  local b h
  h=$(host_dir target)
  b=$(new_bundle b true)
  mkdir -p "$b/rootfs/mnt"
  cfg "$b" '.mounts += [{"destination": "/mnt/t", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]}]'
  assert_control_runs "$b"
  race_creates "$b" "$h"
}

case_bind_destination_race() {
  local b h src=$CASEDIR/bind-src
  h=$(host_dir target)
  mkdir -p "$src" && echo from-bind >"$src/file"
  b=$(new_bundle b true)
  mkdir -p "$b/rootfs/mnt"
  cfg "$b" '.mounts += [{"destination": "/mnt/b", "type": "bind", "source": $s, "options": ["rbind", "ro"]}]' --arg s "$src"
  assert_control_runs "$b"
  race_creates "$b" "$h"
}

case_mount_on_flipping_leaf() {
  # the destination itself flips (rootfs/mnt is the mount point)
  local b h
  h=$(host_dir target)
  b=$(new_bundle b true)
  mkdir -p "$b/rootfs/mnt"
  cfg "$b" '.mounts += [{"destination": "/mnt", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]}]'
  assert_control_runs "$b"
  race_creates "$b" "$h"
}

case_static_symlink_control() {
  # Without a race, /mnt -> host dir: the mount must land inside the rootfs (and the host dir
  # stays empty); the same check as under the race, so a runtime that follows symlinks on the
  # host fails here deterministically.
  local b h
  h=$(host_dir target)
  # inside the container the symlink resolves within its root: the tmpfs is at <host dir>/t there
  b=$(new_bundle b sh -c "grep -q ' $h/t ' /proc/self/mountinfo && echo mounted-inside; true")
  ln -s "$h" "$b/rootfs/mnt"
  cfg "$b" '.mounts += [{"destination": "/mnt/t", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]}]'
  run_in "$b"
  echo "exit $RC: $OUT $ERR"
  assert_rc 0
  assert_contains "$OUT" mounted-inside "the tmpfs, seen from inside"
  assert_host_dir_untouched "$h" "/mnt -> host dir"
}

tcase "tmpfs at /mnt/t while /mnt flips to a host symlink: host untouched" case_tmpfs_destination_race
tcase "bind at /mnt/b while /mnt flips to a host symlink: host untouched" case_bind_destination_race
tcase "tmpfs at /mnt while /mnt itself flips: host untouched" case_mount_on_flipping_leaf
tcase "no race: /mnt -> host dir, the mount stays inside" case_static_symlink_control
finish
