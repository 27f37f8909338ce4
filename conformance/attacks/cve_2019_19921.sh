#!/usr/bin/env bash
# CVE-2019-19921 and CVE-2023-27561: a rootfs whose /proc (or /sys) is a symlink makes the runtime
# mount procfs (sysfs) where the symlink points: on the host, or over a directory the container
# controls (masked/read-only paths then apply to the wrong place). The runtime must refuse.
#
# Each case: a control run of the same bundle with a real directory, then the symlink; create
# must fail, nothing may be mounted on the host, the host directory stays empty, nothing left.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

# symlinked_mount_point DIR TARGET [CFG]: replace rootfs/DIR with a symlink to TARGET, create,
# and check the refusal and the host.
symlinked_mount_point() {
  local dir=$1 target=$2 extra=${3:-} b id
  b=$(new_bundle b true)
  [ -z "$extra" ] || cfg "$b" "$extra"
  assert_control_runs "$b"
  rm -rf "${b:?}/rootfs/$dir"
  ln -s "$target" "$b/rootfs/$dir"
  id=$(newid sym)
  create_in "$b" "$id"
  echo "create with /$dir -> $target: exit $RC: $ERR"
  [ "$RC" != 0 ] || fail "create succeeded with /$dir a symlink to $target"
  rt delete --force "$id" >/dev/null 2>&1 || true
  assert_nothing_left "$id"
}

case_proc_to_host() {
  local h
  h=$(host_dir proc)
  symlinked_mount_point proc "$h"
  assert_host_dir_untouched "$h" "/proc -> host dir"
}

case_proc_to_inside() {
  local h
  h=$(host_dir unused)
  symlinked_mount_point proc /tmp/fakeproc
  assert_host_dir_untouched "$h"
}

case_proc_to_root() {
  # /proc -> / : procfs over the container's root
  symlinked_mount_point proc /
}

case_proc_relative_escape() {
  local h
  h=$(host_dir proc)
  symlinked_mount_point proc "../../../../../../../../..$h"
  assert_host_dir_untouched "$h" "/proc -> ../../..host dir"
}

case_sys_to_host() {
  local h
  h=$(host_dir sys)
  symlinked_mount_point sys "$h"
  assert_host_dir_untouched "$h" "/sys -> host dir"
}

case_sys_to_inside() {
  symlinked_mount_point sys /tmp/fakesys
}

case_proc_parent_symlink() {
  # proc mounted at /host-view/proc, where /host-view -> a host dir
  local h b id
  h=$(host_dir view)
  b=$(new_bundle b true)
  cfg "$b" '.mounts += [{"destination": "/view/proc", "type": "proc", "source": "proc"}]'
  assert_control_runs "$b"
  rm -rf "$b/rootfs/view"
  ln -s "$h" "$b/rootfs/view"
  id=$(newid sym)
  create_in "$b" "$id"
  echo "create with /view -> $h and proc on /view/proc: exit $RC: $ERR"
  # refusing is what we do; a runtime may also resolve the parent inside the rootfs: the host
  # directory is what must stay untouched. runc 1.1.5 mkdirs "proc" IN THE HOST directory (its
  # MkdirAll follows the symlink on the host), then fails.
  known_fail runc
  assert_host_dir_untouched "$h" "/view -> host dir"
}

case_cgroup_under_symlinked_sys() {
  # /sys/fs/cgroup is mounted after /sys: a /sys symlink must not let it land on the host either
  local h
  h=$(host_dir sys)
  mkdir -p "$h/fs/cgroup"
  symlinked_mount_point sys "$h"
  [ -z "$(ls -A "$h/fs/cgroup")" ] || fail "cgroup files appeared on the host under $h/fs/cgroup"
  awk -v d="$h" 'index($5, d) == 1' /proc/self/mountinfo | grep -q . && fail "mounted on the host under $h"
  rmdir "$h/fs/cgroup" "$h/fs"
  assert_host_dir_untouched "$h"
}

tcase "/proc -> host dir: refused, nothing mounted on the host" case_proc_to_host
tcase "/proc -> dir inside the rootfs: refused" case_proc_to_inside
tcase "/proc -> / : refused" case_proc_to_root
tcase "/proc -> ../../..<host dir>: refused, host untouched" case_proc_relative_escape
tcase "/sys -> host dir: refused, nothing mounted on the host" case_sys_to_host
tcase "/sys -> dir inside the rootfs: refused" case_sys_to_inside
tcase "proc mount under a symlinked parent: refused, host untouched" case_proc_parent_symlink
tcase "/sys/fs/cgroup under a /sys symlinked to the host: host untouched" case_cgroup_under_symlinked_sys
finish
