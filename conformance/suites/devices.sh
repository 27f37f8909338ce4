#!/usr/bin/env bash
# Devices: the default nodes (null, zero, full, random, urandom, tty) with the right numbers and
# modes and working; configured linux.devices with mode/uid/gid; /dev/ptmx and /dev/pts; the
# /dev/fd and /dev/std* symlinks; no host device nodes; the device cgroup refuses what
# resources.devices does not allow.
. "$(dirname "$0")/../lib.sh"

case_default_nodes() {
  local b d want
  b=$(new_bundle b sh -c 'for d in null zero full random urandom tty; do
                            echo "$d $(stat -c "%F %t:%T %a" /dev/$d)"; done')
  run_in "$b"
  assert_rc 0
  echo "$OUT"
  for want in "null 1:3" "zero 1:5" "full 1:7" "random 1:8" "urandom 1:9" "tty 5:0"; do
    d=${want%% *}
    assert_eq "$d character special file ${want#* } 666" "$(grep "^$d " <<<"$OUT")" "/dev/$d (type, major:minor in hex, mode)"
  done
}

case_default_nodes_work() {
  local b
  b=$(new_bundle b sh -c 'echo x > /dev/null && echo null-ok
                          head -c 4 /dev/zero | wc -c
                          echo x > /dev/full || echo full-refused
                          head -c 16 /dev/urandom | wc -c
                          head -c 16 /dev/random | wc -c')
  run_in "$b"
  assert_eq $'null-ok\n4\nfull-refused\n16\n16' "$OUT" "using the default devices"
  assert_contains "$ERR" "No space left on device" "writing to /dev/full"
}

case_configured_device() {
  local b
  b=$(new_bundle b sh -c 'stat -c "%F %t:%T %a %u %g" /dev/mydev /dev/fuse')
  cfg "$b" '.linux.devices = [
      {"path": "/dev/mydev", "type": "c", "major": 1, "minor": 3, "fileMode": 416, "uid": 1000, "gid": 1001},
      {"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229, "fileMode": 438, "uid": 0, "gid": 0}]'
  run_in "$b"
  assert_rc 0
  assert_eq $'character special file 1:3 640 1000 1001\ncharacter special file a:e5 666 0 0' "$OUT" \
    "/dev/mydev (c 1:3 0640 1000:1001) and /dev/fuse (c 10:229 = a:e5 hex)"
}

case_configured_device_usable() {
  # a configured device is usable (the runtime allows it in the device cgroup)
  local b
  b=$(new_bundle b sh -c 'echo x > /dev/mydev && echo wrote; head -c 3 /dev/myzero | wc -c')
  cfg "$b" '.linux.devices = [
      {"path": "/dev/mydev", "type": "c", "major": 1, "minor": 3, "fileMode": 438},
      {"path": "/dev/myzero", "type": "c", "major": 1, "minor": 5, "fileMode": 438}]'
  run_in "$b"
  assert_rc 0
  assert_eq $'wrote\n3' "$OUT" "writing to /dev/mydev (1:3), reading /dev/myzero (1:5)"
}

case_ptmx_pts() {
  local b
  b=$(new_bundle b sh -c 'ls -ld /dev/ptmx /dev/pts/ptmx; stat -c %F /dev/pts; grep " /dev/pts " /proc/self/mountinfo')
  run_in "$b"
  assert_rc 0
  assert_match "$OUT" '/dev/ptmx' "/dev/ptmx exists"
  assert_line "$OUT" '^(l.* /dev/ptmx -> (/dev/)?pts/ptmx|c.* 5, *2 .* /dev/ptmx)$' "/dev/ptmx is a symlink to pts/ptmx or char 5:2"
  assert_line "$OUT" '^c.* 5, *2 .* /dev/pts/ptmx$' "/dev/pts/ptmx"
  assert_contains "$OUT" directory "/dev/pts is a directory"
  assert_contains "$OUT" devpts "/dev/pts is a devpts mount"
}

case_ptmx_opens() {
  # a new pty can be allocated in the container's devpts (ptmxmode=0666)
  local b
  b=$(new_bundle b sh -c 'exec 3<>/dev/ptmx && ls /dev/pts | grep -c "^[0-9]"')
  run_in "$b"
  assert_rc 0
  assert_eq 1 "$OUT" "pty allocated after opening /dev/ptmx (new devpts instance: only ours)"
}

case_fd_symlinks() {
  local b
  b=$(new_bundle b sh -c 'for l in fd stdin stdout stderr; do echo "$l $(readlink /dev/$l)"; done; echo hi >> /dev/stdout')
  run_in "$b"
  assert_rc 0
  assert_contains "$OUT" "fd /proc/self/fd" "/dev/fd"
  assert_contains "$OUT" "stdin /proc/self/fd/0" "/dev/stdin"
  assert_contains "$OUT" "stdout /proc/self/fd/1" "/dev/stdout"
  assert_contains "$OUT" "stderr /proc/self/fd/2" "/dev/stderr"
  assert_contains "$OUT" $'\nhi' "writing through /dev/stdout"
}

case_no_host_devices() {
  local b
  b=$(new_bundle b sh -c 'find /dev -type b; ls /dev')
  run_in "$b"
  assert_rc 0
  assert_not_contains "$OUT" vda "host disk node"
  assert_not_contains "$OUT" loop-control "host loop-control node"
  [ -z "$(head -1 <<<"$OUT" | grep '^/dev/')" ] || fail "block devices in the container's /dev: $OUT"
}

case_device_cgroup_denies() {
  # allow only null and zero (plus the runtime's defaults); mknod of loop-control (10:237) then
  # open must fail with EPERM from the device cgroup
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237 || echo mknod-refused
                          (exec 3</dev/lc) && echo opened || echo open-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"])
            | .linux.resources.devices = [{"allow": false, "access": "rwm"},
                {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rwm"},
                {"allow": true, "type": "c", "major": 1, "minor": 5, "access": "rwm"}]'
  run_in "$b"
  assert_match "$OUT" '(mknod-refused|open-refused)$' "access to 10:237 not allowed by resources.devices"
  assert_not_contains "$OUT" opened "open of /dev/lc"
  assert_contains "$ERR" "Operation not permitted" "the error"
  # control: allow 10:237 and the same open works
  cfg "$b" '.linux.resources.devices += [{"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rwm"}]'
  run_in "$b"
  assert_eq opened "$OUT" "open of 10:237 once allowed"
}

# No linux.resources.devices at all (runc spec, crun spec, CRI): runc denies everything but its
# default list, so a node made with CAP_MKNOD (mknod is allowed, c *:* m) cannot be opened.
# Control: the same config allowing 10:237 opens it.
case_device_cgroup_denies_without_rules() {
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237 || echo mknod-refused
                          (exec 3</dev/lc) && echo opened || echo open-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"]) | del(.linux.resources.devices)'
  run_in "$b"
  assert_eq open-refused "$OUT" "open of 10:237 with no device rules in the config"
  assert_contains "$ERR" "Operation not permitted" "the error"
  cfg "$b" '.linux.resources.devices = [{"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rwm"}]'
  run_in "$b"
  assert_eq opened "$OUT" "control: open of 10:237 once allowed"
}

# Rules that do not start with a deny-all still leave everything else denied (runc's list
# starts from deny-all): allowing 10:237 does not allow 10:229 (fuse). Control: 10:237 opens.
case_device_cgroup_allow_only_rules() {
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237; mknod /dev/fz c 10 229
                          (exec 3</dev/lc) && echo lc-opened || echo lc-refused
                          (exec 3</dev/fz) && echo fz-opened || echo fz-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"])
            | .linux.resources.devices = [{"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rwm"}]'
  run_in "$b"
  assert_eq $'lc-opened\nfz-refused' "$OUT" "an allow-only rule list: what it names opens, the rest is denied"
}

case_device_cgroup_access_letters() {
  # 10:237 allowed "r" only: opening for reading works, for writing is refused
  local b
  b=$(new_bundle b sh -c 'mknod /dev/lc c 10 237
                          (exec 3</dev/lc) && echo read-opened || echo read-refused
                          (exec 3>/dev/lc) && echo write-opened || echo write-refused')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_MKNOD"])
            | .linux.resources.devices = [{"allow": false, "access": "rwm"},
                {"allow": true, "type": "c", "major": 10, "minor": 237, "access": "rm"}]'
  run_in "$b"
  assert_eq $'read-opened\nwrite-refused' "$OUT" "open of a device allowed rm for read, then for write"
}

tcase "default device nodes: type, major:minor, mode" case_default_nodes
tcase "default devices work (null, zero, full, urandom, random)" case_default_nodes_work
tcase "configured devices: /dev/mydev c 1:3 0640 1000:1001, /dev/fuse c 10:229" case_configured_device
tcase "configured devices are usable" case_configured_device_usable
tcase "/dev/ptmx and /dev/pts" case_ptmx_pts
tcase "/dev/ptmx allocates a pty in a private devpts" case_ptmx_opens
tcase "/dev/fd, /dev/stdin, /dev/stdout, /dev/stderr symlinks" case_fd_symlinks
tcase "no host device nodes in /dev" case_no_host_devices
tcase "device cgroup: a device not in resources.devices cannot be opened" case_device_cgroup_denies
tcase "device cgroup: no device rules in the config: only the defaults (deny-all first)" case_device_cgroup_denies_without_rules
tcase "device cgroup: allow-only rules still deny the rest" case_device_cgroup_allow_only_rules
tcase "device cgroup: access letters (r only: write refused)" case_device_cgroup_access_letters
finish
