#!/usr/bin/env bash
# Namespaces: new ones differ from the caller's, unrequested ones are shared, pid 1 in a new pid
# namespace, joining another container's net/ipc/uts namespaces by path really shares them, user
# namespace mappings, hostname isolation, time namespace offsets.
. "$(dirname "$0")/../lib.sh"

NS_PRINT='for n in pid net ipc uts mnt cgroup user time; do echo "$n $(readlink /proc/self/ns/$n)"; done'
ns_of() { sed -n "s/^$2 //p" <<<"$1"; }   # ns_of OUT TYPE

case_new_namespaces_differ() {
  local b t
  b=$(new_bundle b sh -c "$NS_PRINT")
  cfg "$b" '.linux.namespaces = [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"},
                                 {"type": "mount"}, {"type": "cgroup"}]'
  run_in "$b"
  assert_rc 0
  for t in pid net ipc uts mnt cgroup; do
    assert_match "$(ns_of "$OUT" $t)" "^$t:\[[0-9]+\]$" "$t namespace link inside"
    assert_ne "$(host_ns $t)" "$(ns_of "$OUT" $t)" "$t namespace inside vs the caller's"
  done
}

case_unrequested_shared() {
  # only what is asked for is new: without cgroup/user/time/ipc/uts entries, those are the caller's
  local b t
  b=$(new_bundle b sh -c "$NS_PRINT")
  cfg "$b" '.linux.namespaces = [{"type": "pid"}, {"type": "mount"}, {"type": "network"}] | del(.hostname)'
  run_in "$b"
  assert_rc 0
  for t in ipc uts cgroup user time; do
    [ -e "/proc/$HOST_PID/ns/$t" ] || continue
    assert_eq "$(host_ns $t)" "$(ns_of "$OUT" $t)" "$t namespace (not requested)"
  done
  for t in pid mnt net; do
    assert_ne "$(host_ns $t)" "$(ns_of "$OUT" $t)" "$t namespace (requested)"
  done
}

case_pid_one() {
  local b
  b=$(new_bundle b sh -c 'echo $$; ls /proc | grep -c "^[0-9]"; grep ^NSpid: /proc/self/status')
  run_in "$b"
  assert_rc 0
  local lines; mapfile -t lines <<<"$OUT"
  assert_eq 1 "${lines[0]}" "pid of the container process"
  # /proc shows only this namespace's processes: sh, and the ls and grep it spawned
  [ "${lines[1]}" -le 4 ] || fail "processes visible in /proc: ${lines[1]} (expected only the container's)"
  assert_match "${lines[2]}" '^NSpid:[[:space:]]+1$' "NSpid in the container's /proc"
}

case_pid_host_shared() {
  # without a pid namespace the process sees the caller's processes
  local b
  b=$(new_bundle b sh -c 'echo $$; [ -d /proc/'"$HOST_PID"' ] && echo sees-caller')
  cfg "$b" 'del(.linux.namespaces[] | select(.type == "pid"))'
  run_in "$b"
  assert_rc 0
  assert_ne 1 "$(head -1 <<<"$OUT")" "pid without a pid namespace"
  assert_contains "$OUT" sees-caller "caller's pid $HOST_PID visible"
}

case_net_only_lo() {
  local b
  b=$(new_bundle b ls /sys/class/net)
  run_in "$b"
  assert_rc 0
  assert_eq lo "$OUT" "interfaces in a new network namespace"
}

case_net_lo_up() {
  # runc and crun bring lo up in the network namespace they create: a program that talks to
  # itself on 127.0.0.1 works (IFF_UP = 0x1 in /sys/class/net/lo/flags)
  local b flags
  b=$(new_bundle b sh -c 'cat /sys/class/net/lo/flags
    nc -l -p 7777 & l=$!; sleep 0.3; echo hello-lo | nc -w 1 127.0.0.1 7777; sleep 0.2; kill $l 2>/dev/null; wait')
  run_in "$b"
  assert_rc 0
  flags=$(head -1 <<<"$OUT")
  (( (flags & 1) == 1 )) || fail "lo is down in a new network namespace: flags $flags"
  assert_eq hello-lo "$(sed -n 2p <<<"$OUT")" "a TCP round trip over 127.0.0.1"
}

case_no_mount_ns() {
  # No mount namespace asked (the OCI validation suite's linux_ns_itype): runc and crun make the
  # mounts under the rootfs in their own mount namespace and chroot. The runtime runs inside a
  # private mount namespace of this case's, so whatever it mounts there goes with it.
  local b id out
  b=$(runc_spec_bundle b sh -c 'readlink /proc/self/ns/mnt; [ -e /proc/self/status ] && echo proc-mounted; ls /bin/busybox')
  cfg "$b" 'del(.linux.namespaces[] | select(.type == "mount")) | del(.linux.maskedPaths, .linux.readonlyPaths)
            | .root.readonly = false'
  id=$(newid nomnt)
  _cgpath_for "$b" "$id"
  RC=0
  out=$(unshare -m --propagation private sh -c 'readlink /proc/self/ns/mnt; exec "$@"' sh \
        timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" --root "$STATE" run --bundle "$b" "$id" \
        2>"$CASEDIR/$id.err" </dev/null) || RC=$?
  echo "$out"; cat "$CASEDIR/$id.err"
  assert_rc 0 "run without a mount namespace"
  assert_eq "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "the container's mount namespace vs the runtime's"
  assert_eq proc-mounted "$(sed -n 3p <<<"$out")" "the config's /proc mount inside"
  assert_eq /bin/busybox "$(sed -n 4p <<<"$out")" "the root is the bundle's rootfs (chroot)"
  # masked paths need a mount namespace: refused, as runc does (crun 1.8.1 runs it)
  [ "$RUNTIME_NAME" = crun ] && return 0
  cfg "$b" '.linux.maskedPaths = ["/proc/kcore"]'
  out=$(unshare -m --propagation private timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" --root "$STATE" \
        run --bundle "$b" "$id" 2>&1 </dev/null) && fail "maskedPaths without a mount namespace ran: $out"
  echo "$out"
}

case_join_mount_ns() {
  # A mount namespace joined by path (linux_ns_path): the rootfs is set up and pivoted into in
  # that namespace, as runc does; the caller's mount table does not change.
  local b id hpid hns before after
  unshare -m --propagation private sleep 120 &
  hpid=$!
  sleep 0.2
  hns=$(readlink "/proc/$hpid/ns/mnt")
  assert_ne "$(host_ns mnt)" "$hns" "the holder's mount namespace" || { kill "$hpid"; return 1; }
  b=$(runc_spec_bundle b sh -c 'readlink /proc/self/ns/mnt; ls /bin/busybox; cat /proc/self/status >/dev/null && echo ok')
  cfg "$b" --arg p "/proc/$hpid/ns/mnt" '(.linux.namespaces[] | select(.type == "mount")) |= {"type": "mount", "path": $p}'
  before=$(grep -c "$b/rootfs" /proc/self/mountinfo || true)
  run_in "$b"
  after=$(grep -c "$b/rootfs" /proc/self/mountinfo || true)
  kill "$hpid"; wait "$hpid" 2>/dev/null || true
  assert_rc 0 "run joining a mount namespace by path: $ERR"
  assert_eq "$hns" "$(sed -n 1p <<<"$OUT")" "the container's mount namespace vs the holder's"
  assert_eq /bin/busybox "$(sed -n 2p <<<"$OUT")" "the root is the bundle's rootfs"
  assert_eq ok "$(sed -n 3p <<<"$OUT")" "/proc inside"
  assert_eq "$before" "$after" "mounts of the rootfs in the caller's mount table"
}

# start A (new namespace of TYPE, sleeping), then B joining it by /proc/<A pid>/ns/<file>.
join_case() {
  local type=$1 file=$2 a b ida idb apid ans
  a=$(new_bundle a sleep 1000)
  cfg "$a" '.hostname = "host-of-a"'
  ida=$(newid a)
  start_detached "$a" "$ida"
  apid=$(<"$CASEDIR/$ida.pid")
  ans=$(readlink "/proc/$apid/ns/$file")
  assert_ne "$(host_ns "$file")" "$ans" "A's $file namespace vs the caller's"
  b=$(new_bundle b sh -c "readlink /proc/self/ns/$file; hostname")
  cfg "$b" --arg t "$type" --arg p "/proc/$apid/ns/$file" \
    '(.linux.namespaces[] | select(.type == $t)) |= {"type": $t, "path": $p} | del(.hostname)'
  idb=$(newid b)
  run_in "$b" "$idb"
  assert_rc 0 "B joining A's $type namespace"
  assert_eq "$ans" "$(head -1 <<<"$OUT")" "B's $file namespace vs A's"
  JOIN_OUT=$OUT
}
case_join_net() { join_case network net; }
case_join_ipc() { join_case ipc ipc; }
case_join_uts() {
  join_case uts uts
  assert_eq host-of-a "$(sed -n 2p <<<"$JOIN_OUT")" "hostname seen by B in A's uts namespace"
}

case_join_bad_path_refused() {
  # a path that is not a namespace file is refused
  local b id
  b=$(new_bundle b true)
  assert_control_runs "$b"
  : >"$CASEDIR/not-a-ns"
  cfg "$b" --arg p "$CASEDIR/not-a-ns" '(.linux.namespaces[] | select(.type == "network")) |= {"type": "network", "path": $p}'
  id=$(newid badns)
  create_in "$b" "$id"
  [ "$RC" != 0 ] || fail "create succeeded joining a regular file as network namespace"
  assert_nothing_left "$id"
}

case_hostname_isolated() {
  local b before after
  before=$(hostname)
  b=$(new_bundle b sh -c 'hostname')
  cfg "$b" '.hostname = "inside-only"'
  run_in "$b"
  assert_rc 0
  assert_eq inside-only "$OUT" "hostname inside"
  after=$(hostname)
  assert_eq "$before" "$after" "host's hostname after the run"
  assert_ne inside-only "$after" "host's hostname"
}

case_user_namespace() {
  local b
  b=$(new_bundle b sh -c 'cat /proc/self/uid_map /proc/self/gid_map; id -u; stat -c %u /etc/passwd; readlink /proc/self/ns/user')
  # the rootfs is owned by host root, which is unmapped: files show as the overflow uid
  cfg "$b" '.linux.namespaces += [{"type": "user"}]
            | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
            | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
            | .mounts |= map(select(.destination != "/sys/fs/cgroup"))
            | (.mounts[] | select(.destination == "/sys")) |= {"destination": "/sys", "type": "bind",
                 "source": "/sys", "options": ["rbind", "nosuid", "noexec", "nodev", "ro"]}'
  run_in "$b"
  assert_rc 0
  local lines; mapfile -t lines <<<"$OUT"
  assert_match "${lines[0]}" '^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536$' "uid_map"
  assert_match "${lines[1]}" '^[[:space:]]*0[[:space:]]+100000[[:space:]]+65536$' "gid_map"
  assert_eq 0 "${lines[2]}" "uid inside"
  assert_eq 65534 "${lines[3]}" "owner of a host-root file, seen inside"
  assert_ne "$(host_ns user)" "${lines[4]}" "user namespace"
}

case_time_namespace() {
  known_fail runc crun   # runc 1.1 knows no "time" namespace; crun 1.8.1 fails
                         # ("write to sync socket: Connection reset by peer")
  local b up
  [ -e /proc/self/ns/time ] || skip "kernel without time namespaces"
  b=$(new_bundle b cat /proc/uptime)
  cfg "$b" '.linux.namespaces += [{"type": "time"}]
            | .linux.timeOffsets = {"monotonic": {"secs": 864000, "nanosecs": 0},
                                    "boottime": {"secs": 864000, "nanosecs": 0}}'
  run_in "$b"
  assert_rc 0
  up=${OUT%%.*}
  [ -n "$up" ] && [ "$up" -ge 864000 ] || fail "uptime inside with a 10-day boottime offset: '$OUT'"
}

tcase "each new namespace differs from the caller's" case_new_namespaces_differ
tcase "namespaces not asked for are the caller's" case_unrequested_shared
tcase "pid namespace: the process is pid 1 and sees only its own" case_pid_one
tcase "no pid namespace: the caller's processes are visible" case_pid_host_shared
tcase "new network namespace has only lo" case_net_only_lo
tcase "new network namespace: lo is up, 127.0.0.1 reachable" case_net_lo_up
tcase "join another container's network namespace by path" case_join_net
tcase "no mount namespace: mounts made in the runtime's, chroot (linux_ns_itype)" case_no_mount_ns
tcase "join a mount namespace by path (linux_ns_path)" case_join_mount_ns
tcase "join another container's ipc namespace by path" case_join_ipc
tcase "join another container's uts namespace by path (hostname shared)" case_join_uts
tcase "joining a path that is no namespace is refused" case_join_bad_path_refused
tcase "hostname in a new uts namespace leaves the host's alone" case_hostname_isolated
tcase "user namespace with uid/gid mappings" case_user_namespace
tcase "time namespace offsets" case_time_namespace
finish
