#!/usr/bin/env bash
# CVE-2024-45310 and CVE-2026-41579: the runtime creates files or directories ON THE HOST while it
# prepares the container's /dev and mount points, because a path in the image is a symlink
# (/dev itself, /dev/shm, a mount destination's parent) or is raced into one (mkdir racing a
# symlink swap). Every case checks that the target host directory stays empty and that nothing is
# mounted on it; a create may succeed (everything landed inside the rootfs) or fail cleanly.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

RACE_ROUNDS=${SHARNESS_RACE_ROUNDS:-25}

# try_bundle BUNDLE HOSTDIR WHAT: create (and delete) once, then check the host dir.
try_bundle() {
  local b=$1 h=$2 what=$3 id
  id=$(newid try)
  create_in "$b" "$id"
  echo "$what: create exit $RC${ERR:+: ${ERR:0:240}}"
  rt delete --force "$id" >/dev/null 2>&1 || true
  [ "$RC" = 0 ] || assert_nothing_left "$id"
  assert_host_dir_untouched "$h" "$what"
}

case_dev_symlink_with_dev_tmpfs() {
  local b h
  # runc 1.1.5 creates /dev/fd, /dev/ptmx, /dev/std{in,out,err} symlinks in the HOST directory
  known_fail runc
  h=$(host_dir dev)
  b=$(new_bundle b true)
  assert_control_runs "$b"
  rm -rf "${b:?}/rootfs/dev"
  ln -s "$h" "$b/rootfs/dev"
  try_bundle "$b" "$h" "/dev -> host dir (tmpfs on /dev)"
}

case_dev_symlink_image_dev() {
  # no tmpfs: devices, /dev/fd, /dev/ptmx, /dev/pts, /dev/shm, /dev/mqueue go into the image's /dev
  local b h
  # runc 1.1.5 creates /dev/fd, /dev/ptmx, /dev/std{in,out,err} symlinks in the HOST directory
  known_fail runc
  h=$(host_dir dev)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  assert_control_runs "$b"
  rm -rf "${b:?}/rootfs/dev"
  ln -s "$h" "$b/rootfs/dev"
  try_bundle "$b" "$h" "/dev -> host dir (image /dev)"
}

case_dev_relative_escape() {
  local b h
  # runc 1.1.5 creates /dev/fd, /dev/ptmx, /dev/std{in,out,err} symlinks in the HOST directory
  known_fail runc
  h=$(host_dir dev)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  rm -rf "${b:?}/rootfs/dev"
  ln -s "../../../../../../../../../..$h" "$b/rootfs/dev"
  try_bundle "$b" "$h" "/dev -> ../../..host dir"
}

case_dev_shm_symlink() {
  local b h
  h=$(host_dir shm)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  assert_control_runs "$b"
  ln -s "$h" "$b/rootfs/dev/shm"
  try_bundle "$b" "$h" "/dev/shm -> host dir"
}

case_dev_pts_and_mqueue_symlinks() {
  local b h
  h=$(host_dir pts)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  ln -s "$h" "$b/rootfs/dev/pts"
  ln -s "$h" "$b/rootfs/dev/mqueue"
  try_bundle "$b" "$h" "/dev/pts and /dev/mqueue -> host dir"
}

case_configured_device_parent_symlink() {
  # linux.devices: /dev/sub/mynull, /dev/sub -> host dir
  local b h
  h=$(host_dir devsub)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  cfg "$b" '.linux.devices = [{"path": "/dev/sub/mynull", "type": "c", "major": 1, "minor": 3, "fileMode": 438}]'
  assert_control_runs "$b"
  rm -rf "${b:?}/rootfs/dev/sub"
  ln -s "$h" "$b/rootfs/dev/sub"
  try_bundle "$b" "$h" "device under /dev/sub -> host dir"
}

case_mount_parent_symlink() {
  # destination /data/deep/point, /data -> host dir: bind (file and dir) and tmpfs
  local b h src=$CASEDIR/src
  h=$(host_dir data)
  mkdir -p "$src" && echo x >"$CASEDIR/srcfile"
  b=$(new_bundle b true)
  cfg "$b" '.mounts += [
      {"destination": "/data/deep/dir", "type": "bind", "source": $s, "options": ["rbind"]},
      {"destination": "/data/deep/file", "type": "bind", "source": $f, "options": ["bind"]},
      {"destination": "/data/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]}]' \
    --arg s "$src" --arg f "$CASEDIR/srcfile"
  assert_control_runs "$b"
  rm -rf "${b:?}/rootfs/data"
  ln -s "$h" "$b/rootfs/data"
  try_bundle "$b" "$h" "mount destinations under /data -> host dir"
}

case_racing_mkdir_dev() {
  # the image's /dev flips between a directory and a symlink to the host dir while creates run
  local b h i id ok=0
  h=$(host_dir dev)
  b=$(new_bundle b true)
  no_dev_tmpfs "$b"
  rm -rf "${b:?}/rootfs/dev"
  start_flip_racer "$b/rootfs/dev" "$h"
  for ((i = 0; i < RACE_ROUNDS; i++)); do
    id=$(newid race$i)
    create_in "$b" "$id"
    [ "$RC" = 0 ] && ok=$((ok + 1))
    rt delete --force "$id" >/dev/null 2>&1 || true
    assert_host_dir_untouched "$h" "round $i (create exit $RC: ${ERR:0:160})" || break
  done
  stop_racer
  echo "$RACE_ROUNDS creates while /dev flips: $ok succeeded"
  assert_host_dir_untouched "$h" "after the race"
}

case_racing_mkdir_mount_parent() {
  # the parent of deep mount destinations flips while the runtime mkdirs the missing components
  local b h i id ok=0
  h=$(host_dir mnt)
  b=$(new_bundle b true)
  cfg "$b" '.mounts += [{"destination": "/race/a/b/c", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]},
                        {"destination": "/race/d/e", "type": "tmpfs", "source": "tmpfs", "options": ["size=64k"]}]'
  start_flip_racer "$b/rootfs/race" "$h"
  for ((i = 0; i < RACE_ROUNDS; i++)); do
    id=$(newid race$i)
    create_in "$b" "$id"
    [ "$RC" = 0 ] && ok=$((ok + 1))
    rt delete --force "$id" >/dev/null 2>&1 || true
    # the racer rmdir()s only empty dirs: clean what a create left inside the rootfs
    rm -rf "${b:?}/rootfs/race" 2>/dev/null || true
    assert_host_dir_untouched "$h" "round $i (create exit $RC: ${ERR:0:160})" || break
  done
  stop_racer
  echo "$RACE_ROUNDS creates while /race flips: $ok succeeded"
  assert_host_dir_untouched "$h" "after the race"
}

tcase "/dev -> host dir, tmpfs on /dev: host untouched" case_dev_symlink_with_dev_tmpfs
tcase "/dev -> host dir, image /dev: host untouched" case_dev_symlink_image_dev
tcase "/dev -> ../../..<host dir>: host untouched" case_dev_relative_escape
tcase "/dev/shm -> host dir: host untouched" case_dev_shm_symlink
tcase "/dev/pts and /dev/mqueue -> host dir: host untouched" case_dev_pts_and_mqueue_symlinks
tcase "configured device under a symlinked /dev/sub: host untouched" case_configured_device_parent_symlink
tcase "bind and tmpfs destinations under a symlinked /data: host untouched" case_mount_parent_symlink
tcase "racing mkdir: /dev flips to a host symlink during create" case_racing_mkdir_dev
tcase "racing mkdir: a mount destination's parent flips during create" case_racing_mkdir_mount_parent
finish
