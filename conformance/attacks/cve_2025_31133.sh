#!/usr/bin/env bash
# CVE-2025-31133: maskedPaths are masked by bind-mounting the container's /dev/null over them.
# If /dev/null in the image is a symlink to a procfs file (/proc/sys/kernel/core_pattern), a
# runtime that follows it binds core_pattern over the masked path: the container then reads and
# WRITES the host's core_pattern through a path that was meant to be empty.
#
# The image's own /dev is used (no tmpfs on /dev), so what the image planted is what the runtime
# meets. Expectation: create fails, or every masked file is the real null device (char 1:3,
# empty); the host's core_pattern is unchanged.
#
# Writes are attempted only with the value the host already has (a write that got through would
# change nothing): the check that decides is whether the masked path shows the procfs file.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

CORE=/proc/sys/kernel/core_pattern
CORE_BEFORE=$(cat $CORE)

# The probe: for each masked file, its device numbers, its size, and whether it shows the
# procfs target; then a write-back of the value read (never a new value).
MASK_PROBE='for p in /proc/keys /proc/timer_list /proc/kcore /etc/masked-file; do
    [ -e $p ] || continue
    v=$(head -c 200 $p 2>/dev/null)
    echo "$p dev=$(stat -c %t:%T $p) size=$(printf %s "$v" | wc -c) fs=$(stat -f -c %T $p)"
    [ -n "$v" ] && [ "$v" = "$(cat /proc/sys/kernel/core_pattern)" ] && echo "MASKED-THROUGH $p"
    [ -n "$v" ] && { printf "%s\n" "$v" > $p 2>/dev/null && echo "write-back to $p accepted"; }
  done; true'

check_host_core_pattern() {
  assert_eq "$CORE_BEFORE" "$(cat $CORE)" "host core_pattern"
}

# masked_run BUNDLE: run the probe, check the result.
masked_run() {
  local b=$1
  run_in "$b"
  echo "exit $RC"; echo "$OUT"; echo "${ERR:0:300}"
  check_host_core_pattern
  if [ "$RC" = 0 ]; then
    assert_not_contains "$OUT" MASKED-THROUGH "masked paths"
    assert_not_contains "$OUT" fs=proc "a masked path shows a procfs file"
    assert_line "$OUT" '^/etc/masked-file dev=1:3 ' "the custom masked file is /dev/null"
  fi
  [ ! -e "$CASEDIR/.failed" ]
}

new_masked_bundle() {
  B=$(new_bundle b sh -c "$MASK_PROBE")
  echo secret >"$B/rootfs/etc/masked-file"
  no_dev_tmpfs "$B"
  cfg "$B" '.linux.maskedPaths += ["/etc/masked-file"]'
}

case_control() {
  # the probe sees a real /dev/null on every masked path
  new_masked_bundle
  mknod -m 666 "$B/rootfs/dev/null" c 1 3
  run_in "$B"
  assert_rc 0
  echo "$OUT"
  assert_line "$OUT" '^/etc/masked-file dev=1:3 size=0 ' "control: masked file is /dev/null"
  check_host_core_pattern
}

case_dev_null_to_core_pattern() {
  new_masked_bundle
  ln -s $CORE "$B/rootfs/dev/null"
  known_fail runc  # 1.1.5 follows the symlink: masked paths show core_pattern (fixed in 1.2.8)
  masked_run "$B"
}

case_dev_null_relative_to_proc() {
  new_masked_bundle
  ln -s ../proc/sys/kernel/core_pattern "$B/rootfs/dev/null"
  known_fail runc
  masked_run "$B"
}

case_dev_null_to_file_inside() {
  # /dev/null -> a regular file of the image: the masked file must not show its content
  new_masked_bundle
  known_fail runc  # binds the image file over every masked path (its content shows there)
  echo image-file >"$B/rootfs/etc/not-null"
  ln -s /etc/not-null "$B/rootfs/dev/null"
  run_in "$B"
  echo "exit $RC: $OUT ${ERR:0:200}"
  if [ "$RC" = 0 ]; then
    assert_line "$OUT" '^/etc/masked-file dev=1:3 ' "masked file"
  fi
  check_host_core_pattern
}

case_dev_null_wrong_device() {
  # /dev/null is a character device, but not 1:3 (it is /dev/zero's 1:5)
  new_masked_bundle
  known_fail runc  # does not check the device numbers: masks with a 1:5 (zero) device
  mknod -m 666 "$B/rootfs/dev/null" c 1 5
  run_in "$B"
  echo "exit $RC: $OUT ${ERR:0:200}"
  if [ "$RC" = 0 ]; then
    assert_line "$OUT" '^/etc/masked-file dev=1:3 ' "masked file"
  fi
  check_host_core_pattern
}

case_masked_path_is_symlink() {
  # the masked path itself is a symlink to core_pattern: masking must not follow it
  new_masked_bundle
  mknod -m 666 "$B/rootfs/dev/null" c 1 3
  rm "$B/rootfs/etc/masked-file"
  ln -s $CORE "$B/rootfs/etc/masked-file"
  # runc 1.1.5 follows it inside the root and binds /dev/null over the container's core_pattern
  known_fail runc
  set_args "$B" sh -c 'grep -E " /proc/sys/kernel/core_pattern " /proc/self/mountinfo; cat /proc/sys/kernel/core_pattern; true'
  run_in "$B"
  echo "exit $RC: $OUT ${ERR:0:200}"
  check_host_core_pattern
  if [ "$RC" = 0 ]; then
    assert_not_contains "$OUT" "/proc/sys/kernel/core_pattern " "a mount on core_pattern inside"
  fi
  return 0
}

case_dev_tmpfs_hides_image_symlink() {
  # With the usual tmpfs on /dev, the image's /dev/null symlink is not even seen.
  B=$(new_bundle b sh -c "$MASK_PROBE")
  echo secret >"$B/rootfs/etc/masked-file"
  cfg "$B" '.linux.maskedPaths += ["/etc/masked-file"]'
  ln -s $CORE "$B/rootfs/dev/null"
  masked_run "$B"
  assert_rc 0
}

tcase "control: masked paths are the real /dev/null" case_control
tcase "/dev/null -> /proc/sys/kernel/core_pattern: never masked through" case_dev_null_to_core_pattern
tcase "/dev/null -> ../proc/sys/kernel/core_pattern: never masked through" case_dev_null_relative_to_proc
tcase "/dev/null -> an image file: masked files stay empty" case_dev_null_to_file_inside
tcase "/dev/null is char 1:5: refused or replaced" case_dev_null_wrong_device
tcase "a masked path that is a symlink to core_pattern is not followed" case_masked_path_is_symlink
tcase "with a /dev tmpfs the image's /dev/null symlink is irrelevant" case_dev_tmpfs_hides_image_symlink
finish
