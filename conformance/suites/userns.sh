#!/usr/bin/env bash
# User namespaces: a container whose root (0) is host uid/gid 100000 (mappings of 65536): uid 0
# inside and 100000 on the host; the maps inside; files it creates belong to 100000 on the host
# and a host-root directory stays closed to it; devices are there although mknod is not (bind
# mounts of the host's nodes); an idmapped bind mount (options "idmap" with the mount's own
# uidMappings/gidMappings, runc 1.2 semantics) shows host ids through its mapping; and exec joins
# the user namespace.
#
# The rootfs of each case is a copy owned by 100000:100000 (make-bundle.sh hard-links the applet
# symlinks from a shared cache: chowning those in place would change every other bundle).
. "$(dirname "$0")/../lib.sh"

HOST_ID=100000
ALL4="^${HOST_ID}[[:space:]]+${HOST_ID}[[:space:]]+${HOST_ID}[[:space:]]+${HOST_ID}\$"   # real, effective, saved, fs
MAPS='.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'

status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }

# userns_bundle NAME ARGS...: a bundle with a user namespace and the 0 -> 100000 mappings, its
# rootfs a private copy owned by 100000:100000. Sets B. As in namespaces.sh, /sys is a read-only
# rbind and there is no /sys/fs/cgroup mount (cgroup v1 cannot be mounted from a user namespace).
userns_bundle() {
  new_bundle "$@" >/dev/null
  cp -a "$B/rootfs" "$B/rootfs-userns"
  chown -R -h "$HOST_ID:$HOST_ID" "$B/rootfs-userns"
  rm -rf --one-file-system "$B/rootfs"
  cfg "$B" ".root.path = \"rootfs-userns\"
            | .linux.namespaces += [{\"type\": \"user\"}]
            | $MAPS
            | .mounts |= map(select(.destination != \"/sys/fs/cgroup\"))
            | (.mounts[] | select(.destination == \"/sys\")) |= {\"destination\": \"/sys\", \"type\": \"bind\",
                 \"source\": \"/sys\", \"options\": [\"rbind\", \"nosuid\", \"noexec\", \"nodev\", \"ro\"]}"
}

# started NAME ARGS...: create + start a userns bundle. Sets B, ID, PID (init's host pid).
started() {
  ID=$(newid "$1")
  userns_bundle "$@"
  start_detached "$B" "$ID"
  PID=$(<"$CASEDIR/$ID.pid")
}

# wait_out ID TEXT: until the container's stdout holds TEXT.
wait_out() {
  local i
  for ((i = 0; i < 100; i++)); do
    grep -qF -- "$2" "$CASEDIR/$1.out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "container $1 did not print '$2'; stdout '$(<"$CASEDIR/$1.out")', stderr '$(<"$CASEDIR/$1.err")'"
}

case_uid_inside_and_on_host() {
  local st out
  started b sh -c 'id -u; id -g; echo ready; exec sleep 600'
  wait_out "$ID" ready
  out=$(<"$CASEDIR/$ID.out")
  assert_eq $'0\n0\nready' "$out" "id -u and id -g inside"
  st=$(<"/proc/$PID/status")
  assert_match "$(status_field "$st" Uid)" "$ALL4" "Uid: of the container's process on the host"
  assert_match "$(status_field "$st" Gid)" "$ALL4" "Gid: on the host"
  assert_ne "$(host_ns user)" "$(readlink "/proc/$PID/ns/user")" "user namespace of the container vs the caller's"
}

case_maps_inside() {
  local b
  ID=$(newid maps)
  userns_bundle b sh -c 'cat /proc/self/uid_map; cat /proc/self/gid_map; readlink /proc/self/ns/user'
  run_in "$B" "$ID"
  assert_rc 0
  local l; mapfile -t l <<<"$OUT"
  assert_match "${l[0]}" '^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536$' "/proc/self/uid_map inside"
  assert_match "${l[1]}" '^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536$' "/proc/self/gid_map inside"
  assert_eq 3 "${#l[@]}" "lines printed (one mapping each, and the namespace): '$OUT'"
  assert_ne "$(host_ns user)" "${l[2]}" "user namespace inside vs the caller's"
}

case_files_owned_by_host_id() {
  local data closed
  data=$CASEDIR/data closed=$CASEDIR/closed
  mkdir -p "$data" "$closed"
  chown "$HOST_ID:$HOST_ID" "$data"
  : >"$data/host-made"           # made by host root: unmapped inside
  chmod 0755 "$closed"           # host root's, 0755: container root may not write there
  ID=$(newid files)
  userns_bundle b sh -c ': >/data/inside; mkdir /data/dir; : >/tmp/in-rootfs
                         stat -c "%u:%g" /data/inside /data/host-made
                         touch /closed/x 2>/dev/null && echo closed-written || echo closed-refused'
  cfg "$B" '.mounts += [{"destination": "/data", "type": "bind", "source": $d, "options": ["rbind", "rw"]},
                        {"destination": "/closed", "type": "bind", "source": $c, "options": ["rbind", "rw"]}]' \
    --arg d "$data" --arg c "$closed"
  run_in "$B" "$ID"
  assert_rc 0
  local l; mapfile -t l <<<"$OUT"
  assert_eq 0:0 "${l[0]}" "owner of a new file, seen inside"
  assert_eq 65534:65534 "${l[1]}" "owner of a host-root file, seen inside (unmapped: overflow id)"
  assert_eq closed-refused "${l[2]}" "container root writing into a host-root 0755 directory"
  assert_eq "$HOST_ID:$HOST_ID" "$(stat -c %u:%g "$data/inside")" "owner on the host of a file made inside"
  assert_eq "$HOST_ID:$HOST_ID" "$(stat -c %u:%g "$data/dir")" "owner on the host of a directory made inside"
  assert_eq "$HOST_ID:$HOST_ID" "$(stat -c %u:%g "$B/rootfs-userns/tmp/in-rootfs")" "owner on the host of a file made in the rootfs"
  [ ! -e "$closed/x" ] || fail "the file was written into the host-root directory"
}

case_devices() {
  ID=$(newid dev)
  userns_bundle b sh -c 'for d in null zero full random urandom tty; do
                           echo "$d $(stat -c "%F %t:%T" /dev/$d)"; done
                         echo x >/dev/null && echo null-writable
                         head -c 5 /dev/zero | wc -c
                         head -c 8 /dev/urandom | wc -c
                         mknod /tmp/n c 1 3 2>/dev/null && echo mknod-ok || echo mknod-refused
                         grep -c " /dev/null " /proc/self/mountinfo'
  run_in "$B" "$ID"
  assert_rc 0
  assert_line "$OUT" '^null character special file 1:3$' "/dev/null"
  assert_line "$OUT" '^zero character special file 1:5$' "/dev/zero"
  assert_line "$OUT" '^full character special file 1:7$' "/dev/full"
  assert_line "$OUT" '^random character special file 1:8$' "/dev/random"
  assert_line "$OUT" '^urandom character special file 1:9$' "/dev/urandom"
  assert_line "$OUT" '^tty character special file 5:0$' "/dev/tty"
  assert_line "$OUT" '^null-writable$' "writing /dev/null"
  local l; mapfile -t l <<<"$OUT"
  assert_eq 5 "$(tr -d ' ' <<<"${l[7]}")" "bytes read from /dev/zero"
  assert_eq 8 "$(tr -d ' ' <<<"${l[8]}")" "bytes read from /dev/urandom"
  # why the nodes must be bind mounts: mknod is impossible in the user namespace
  assert_eq mknod-refused "${l[9]}" "mknod inside the user namespace"
  assert_eq 1 "${l[10]}" "/dev/null is a mount point (a bind of the host's node)"
}

case_idmapped_mount() {
  known_fail runc   # runc 1.1.5 has no idmapped mounts (added in 1.2): the ids show unmapped
  # Inside its own user namespace init may not set MOUNT_ATTR_IDMAP (EPERM): ours makes the
  # detached mount on the host side and init only attaches it.
  local src plain
  # A host dir owned by root, with files of host uid 0, 1000 and 100000.
  src=$CASEDIR/idsrc plain=$CASEDIR/plainsrc
  mkdir -p "$src" "$plain"
  chmod 0755 "$src"
  : >"$src/of-0"
  : >"$src/of-1000" && chown 1000:1000 "$src/of-1000"
  : >"$src/of-100000" && chown 100000:100000 "$src/of-100000"
  chown "$HOST_ID:$HOST_ID" "$plain"
  # Kernel semantics (verified on this kernel with open_tree + mount_setattr(MOUNT_ATTR_IDMAP)):
  # a file's host id X is seen through the mount as the id X maps to in the mount's userns
  # (X as containerID -> hostID: 0 -> 100000, 1000 -> 101000, 100000 -> unmapped), and that is
  # then seen through the container's userns (100000 -> 0, 101000 -> 1000, unmapped -> 65534).
  # Writes go the other way: container root (host 100000) creates files owned by host 0.
  ID=$(newid idmap)
  userns_bundle b sh -c 'stat -c "%n %u:%g" /idm/of-0 /idm/of-1000 /idm/of-100000
                         touch /idm/made-inside && echo idm-written || echo idm-refused
                         stat -c "%n %u:%g" /plain/of-0 /plain/of-1000 /plain/of-100000'
  cfg "$B" '.mounts += [
      {"destination": "/idm", "type": "bind", "source": $s, "options": ["bind", "idmap"],
       "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
       "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]},
      {"destination": "/plain", "type": "bind", "source": $s, "options": ["bind"]}]' --arg s "$src"
  run_in "$B" "$ID"
  echo "inside: $OUT"
  assert_rc 0
  assert_line "$OUT" '^/idm/of-0 0:0$' "host root's file through the idmapped mount"
  assert_line "$OUT" '^/idm/of-1000 1000:1000$' "host uid 1000's file through the idmapped mount"
  assert_line "$OUT" '^/idm/of-100000 65534:65534$' "host uid 100000's file through the idmapped mount (unmapped by it)"
  assert_line "$OUT" '^idm-written$' "container root writes into the root-owned dir through the idmapped mount"
  assert_eq 0:0 "$(stat -c %u:%g "$src/made-inside" 2>&1)" "host owner of the file made through the idmapped mount"
  # control: the same dir bound without idmap
  assert_line "$OUT" '^/plain/of-0 65534:65534$' "host root's file through a plain bind"
  assert_line "$OUT" '^/plain/of-1000 65534:65534$' "host uid 1000's file through a plain bind"
  assert_line "$OUT" '^/plain/of-100000 0:0$' "host uid 100000's file through a plain bind"
}

case_exec_joins_userns() {
  local p2 st
  started b sleep 600
  ex_out=$CASEDIR/exec.out
  rt exec "$ID" sh -c 'id -u; id -g; readlink /proc/self/ns/user; cat /proc/self/uid_map' >"$ex_out" 2>"$CASEDIR/exec.err" ||
    fail "exec failed: $(<"$CASEDIR/exec.err")"
  local l; mapfile -t l <"$ex_out"
  assert_eq 0 "${l[0]}" "id -u in exec"
  assert_eq 0 "${l[1]}" "id -g in exec"
  assert_eq "$(readlink "/proc/$PID/ns/user")" "${l[2]}" "user namespace of exec vs init's"
  assert_match "${l[3]}" '^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536$' "uid_map in exec"
  # on the host, the exec'd process runs as 100000
  rt exec --detach --pid-file "$CASEDIR/exec.pid" "$ID" sleep 300 >/dev/null 2>"$CASEDIR/exec2.err" ||
    fail "exec --detach failed: $(<"$CASEDIR/exec2.err")"
  p2=$(<"$CASEDIR/exec.pid")
  st=$(<"/proc/$p2/status")
  assert_match "$(status_field "$st" Uid)" "$ALL4" "host Uid: of the exec'd process"
  assert_eq "$(readlink "/proc/$PID/ns/user")" "$(readlink "/proc/$p2/ns/user")" "user namespace of the detached exec, on the host"
}

tcase "uid 0 inside is host uid 100000" case_uid_inside_and_on_host
tcase "/proc/self/uid_map and gid_map inside show the mapping" case_maps_inside
tcase "files made inside belong to host 100000; a host-root dir stays closed" case_files_owned_by_host_id
tcase "devices exist and work without mknod (bind mounts)" case_devices
tcase "idmapped bind mount: host ids seen through the mount's mapping" case_idmapped_mount
tcase "exec joins the user namespace (uid 0 inside, 100000 on the host)" case_exec_joins_userns
finish
