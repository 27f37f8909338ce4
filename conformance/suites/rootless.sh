#!/usr/bin/env bash
# Rootless: the runtime run by an unprivileged user, as runc and crun are. The suite (root, like
# every suite) creates a user with a unique name and a subordinate id range (useradd's own
# allocation in /etc/subuid and /etc/subgid), and drives the runtime as that user (runuser) with
# a private --root and XDG_RUNTIME_DIR in the user's home under the suite's temp dir:
#   - `spec --rootless` maps the caller's own uid and gid, size 1, in a new user namespace;
#   - `run` of that bundle: uid 0 inside is the user outside, setgroups is "deny", files made
#     inside belong to the user on the host;
#   - create/start/exec/kill/delete of it, with the host's view of the init process;
#   - a multi-range map (own id at 0, the subordinate range above, as rootless Podman writes it)
#     through newuidmap/newgidmap: an id inside is subuid+id-1 on the host; a range /etc/subuid does
#     not grant fails;
#   - cgroups: no cgroup without delegation is a warning, limits without one fail, limits in a
#     cgroup delegated to the user hold; --rootless false makes the missing cgroup an error;
#   - the default --root is under $XDG_RUNTIME_DIR;
#   - (ours) a policy runs rootless, except what needs root (a throwaway uid), refused clearly;
#   - Podman 4.3 rootless (vfs storage, --network none) with the runtime under test.
# On exit the user, its home, its subordinate ranges and everything it ran are gone, also when a
# case failed.
. "$(dirname "$0")/../lib.sh"
. "$SHARNESS_SOURCE_DIR/conformance/clients/client-lib.bash"

# Podman's case imports an image and starts a user namespace of its own: more than a minute.
CASE_TIMEOUT=${SHARNESS_CASE_TIMEOUT:-240}
. "$SHARNESS_SOURCE_DIR/conformance/rootless-lib.bash"

MULTI_MAPS='.linux.uidMappings = [{"containerID": 0, "hostID": ($uid | tonumber), "size": 1},
                                  {"containerID": 1, "hostID": ($su | tonumber), "size": 65536}]
          | .linux.gidMappings = [{"containerID": 0, "hostID": ($gid | tonumber), "size": 1},
                                  {"containerID": 1, "hostID": ($sg | tonumber), "size": 65536}]'
multi() { ucfg "$1" "$MULTI_MAPS${2:+ | $2}" --arg uid "$RL_UID" --arg gid "$RL_GID" --arg su "$SUBUID" --arg sg "$SUBGID"; }

# ---------------------------------------------------------------------------------------------

case_spec_rootless() {
  known_fail crun  # crun 1.8.1's spec --rootless writes no maps (it makes them at create)
  ubundle spec true
  local c=$B/config.json
  assert_eq "0 $RL_UID 1" "$(jq -r '.linux.uidMappings[] | "\(.containerID) \(.hostID) \(.size)"' "$c")" "uidMappings"
  assert_eq "0 $RL_GID 1" "$(jq -r '.linux.gidMappings[] | "\(.containerID) \(.hostID) \(.size)"' "$c")" "gidMappings"
  assert_eq user "$(jq -r '.linux.namespaces[] | select(.type == "user") | .type' "$c")" "a new user namespace"
  assert_eq "" "$(jq -r '.linux.namespaces[] | select(.type == "network") | .type' "$c")" "no new network namespace"
  # control: the same command without --rootless writes no user namespace
  as_user mkdir "$B-root"
  as_user "$RUNTIME" spec --bundle "$B-root"
  assert_eq "" "$(jq -r '.linux.namespaces[] | select(.type == "user") | .type' "$B-root/config.json")" \
    "user namespace in the spec without --rootless"
}
tcase "spec --rootless as the user: own uid and gid, size 1, in a new user namespace" case_spec_rootless

case_run_single_id() {
  known_fail crun  # crun 1.8.1 adds the user's subordinate range to the gid map (newgidmap)
  ubundle single sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups
                        readlink /proc/self/ns/user; : >/data/made-inside'
  urun "$B"
  assert_rc 0 "run as $RL_USER"
  local l; mapfile -t l <<<"$OUT"
  assert_eq 0 "${l[0]}" "id -u inside"
  assert_eq 0 "${l[1]}" "id -g inside"
  assert_match "${l[2]}" "^ *0 +$RL_UID +1\$" "uid_map inside"
  assert_match "${l[3]}" "^ *0 +$RL_GID +1\$" "gid_map inside"
  assert_eq deny "${l[4]}" "setgroups inside (an unprivileged gid_map needs it denied)"
  assert_ne "$(readlink /proc/self/ns/user)" "${l[5]}" "user namespace inside vs the host's"
  assert_eq "$RL_UID:$RL_GID" "$(stat -c %u:%g "$B/data/made-inside")" "owner on the host of a file made by root inside"
  if [ "$OURS" = 1 ]; then
    assert_contains "$ERR" "rootless: no cgroup for container" "the warning for the cgroup it could not make"
  fi
}
tcase "run as the user (single-id map): uid 0 inside is the user outside, setgroups denied" case_run_single_id

case_lifecycle() {
  local id=life-$CASENUM pid l
  ubundle life sh -c 'echo up; exec sleep 600'
  ucreate "$B" "$id"
  assert_eq created "$(ustatus "$id")" "status after create"
  pid=$(<"$RL_HOME/$id.pid")
  assert_match "$pid" '^[1-9][0-9]*$' "pid file"
  assert_match "$(status_field "$pid" Uid)" "^$RL_UID[[:space:]]+$RL_UID[[:space:]]+$RL_UID[[:space:]]+$RL_UID\$" \
    "Uid of the container's init on the host"
  assert_ok urt start "$id"
  assert_eq running "$(ustatus "$id")" "status after start"
  RC=0
  OUT=$(urt exec "$id" sh -c 'id -u; cat /proc/self/uid_map; echo $$' 2>"$CASEDIR/exec.err") || RC=$?
  assert_rc 0 "exec as $RL_USER: $(<"$CASEDIR/exec.err")"
  mapfile -t l <<<"$OUT"
  assert_eq 0 "${l[0]}" "id -u in exec"
  assert_match "${l[1]}" "^ *0 +$RL_UID +1\$" "uid_map in exec"
  assert_ne 1 "${l[2]}" "exec's pid in the container's pid namespace"
  assert_ok urt kill "$id" KILL
  local i
  for ((i = 0; i < 100; i++)); do
    [ "$(ustatus "$id")" = stopped ] && break
    sleep 0.05
  done
  assert_eq stopped "$(ustatus "$id")" "status after kill KILL"
  assert_ok urt delete "$id"
  assert_fail urt state "$id"
  assert_eq "" "$(urt list -q)" "list after delete"
}
tcase "create/start/exec/kill/delete as the user" case_lifecycle

case_multi_range() {
  ubundle multi sh -c 'cat /proc/self/uid_map /proc/self/gid_map; : >/data/f; chown 1000:1000 /data/f; chmod 0777 /data'
  multi "$B" '.root.readonly = false
              | .process.capabilities |= with_entries(if .key == "ambient" then . else .value += ["CAP_CHOWN"] end)'
  urun "$B"
  assert_rc 0 "run with a multi-range map"
  local l; mapfile -t l <<<"$OUT"
  assert_match "${l[0]}" "^ *0 +$RL_UID +1\$" "uid_map line 1"
  assert_match "${l[1]}" "^ *1 +$SUBUID +65536\$" "uid_map line 2 (the subordinate range)"
  assert_match "${l[2]}" "^ *0 +$RL_GID +1\$" "gid_map line 1"
  assert_match "${l[3]}" "^ *1 +$SUBGID +65536\$" "gid_map line 2"
  assert_eq "$((SUBUID + 999)):$((SUBGID + 999))" "$(stat -c %u:%g "$B/data/f")" \
    "host owner of a file chowned to 1000:1000 inside"
  # a process run as 1000 inside is subuid+999 on the host
  local id=m-$CASENUM pid
  multi "$B" '.process.user = {"uid": 1000, "gid": 1000} | .process.args = ["sleep", "600"]'
  ucreate "$B" "$id"
  pid=$(<"$RL_HOME/$id.pid")
  assert_ok urt start "$id"
  local i
  for ((i = 0; i < 100; i++)); do
    [ "$(awk '{print $1}' <<<"$(status_field "$pid" Uid)")" = "$((SUBUID + 999))" ] && break
    sleep 0.05
  done
  assert_match "$(status_field "$pid" Uid)" "^$((SUBUID + 999))[[:space:]]" "Uid on the host of uid 1000 inside"
  assert_match "$(status_field "$pid" Gid)" "^$((SUBGID + 999))[[:space:]]" "Gid on the host of gid 1000 inside"
  assert_ok urt delete --force "$id"
}
tcase "multi-range map through newuidmap/newgidmap: 1000 inside is subuid+999 outside" case_multi_range

case_range_not_granted() {
  ubundle deny id -u
  multi "$B"
  urun "$B"
  assert_rc 0 "control: the granted range runs"
  # one id past the range /etc/subuid grants
  ucfg "$B" '.linux.uidMappings[1].size = 65537'
  urun "$B"
  assert_ne 0 "$RC" "run with a uid range beyond the user's subuid grant"
  [ "$OURS" = 1 ] && assert_contains "$ERR" "newuidmap" "the error names the tool that refused"
  assert_eq "" "$(urt list -q)" "containers left after the refused run"
}
tcase "a uid range /etc/subuid does not grant fails (control: the granted one runs)" case_range_not_granted

case_limits_need_delegation() {
  known_fail crun  # crun 1.8.1 runs it without the limit, silently
  ubundle lim true
  urun "$B"
  assert_rc 0 "control: without limits it runs, no cgroup"
  ucfg "$B" '.linux.resources.pids.limit = 10'
  urun "$B"
  assert_ne 0 "$RC" "run with a pids limit and no cgroup the user may write"
  [ "$OURS" = 1 ] && assert_contains "$ERR" "delegated" "the error says what it needs"
  assert_eq "" "$(urt list -q)" "containers left"
}
tcase "limits without a delegated cgroup fail (control: none runs with a warning)" case_limits_need_delegation

case_rootless_flag() {
  known_fail crun  # crun 1.8.1 runs with --rootless false, without a cgroup
  ubundle flag true
  urun "$B" --rootless true
  assert_rc 0 "--rootless true"
  urun "$B" --rootless auto
  assert_rc 0 "--rootless auto"
  urun "$B" --rootless false
  assert_ne 0 "$RC" "--rootless false: a cgroup it may not make is an error"
  urun "$B" --rootless bogus
  assert_ne 0 "$RC" "--rootless bogus"
  assert_eq "" "$(urt list -q)" "containers left"
}
tcase "--rootless true|auto run, false fails without a cgroup, a bad value fails" case_rootless_flag

case_delegated_cgroup() {
  known_fail crun  # under SHARNESS_HIDE_UNIFIED crun 1.8.1 wants the container's dir on the hidden v2 tree
  local d deleg=$CGPARENT/deleg-$CASENUM id=dg-$CASENUM pid n=0
  # Delegate: a cgroup per hierarchy owned by the user (cpuset's needs its cpus and mems first).
  for d in "$CGROOT"/*/; do
    d=${d%/}
    [ -L "$d" ] && continue
    case $(stat -f -c %T "$d") in cgroup2fs | cgroupfs) ;; *) continue ;; esac
    [ "$(basename "$d")" = unified ] && [ "${SHARNESS_HIDE_UNIFIED:-0}" = 1 ] && continue
    mkdir -p "$d/$deleg"
    if [ -e "$d/cpuset.cpus" ]; then
      cat "$d/cpuset.cpus" >"$d/$CGPARENT/cpuset.cpus"; cat "$d/cpuset.mems" >"$d/$CGPARENT/cpuset.mems"
      cat "$d/cpuset.cpus" >"$d/$deleg/cpuset.cpus"; cat "$d/cpuset.mems" >"$d/$deleg/cpuset.mems"
    fi
    chown -R "$RL_USER" "$d/$deleg"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "no cgroup hierarchy found under $CGROOT"
  ubundle dg sleep 600
  ucfg "$B" '.linux.cgroupsPath = $p | .linux.resources.pids.limit = 7' --arg p "/$deleg/$id"
  # The caller lives in the delegated tree, as a systemd user session does: cgroup2 lets a
  # process move only below the common ancestor it may write (root moves this subshell there).
  (
    for d in $(cgroup_dirs "deleg-$CASENUM"); do
      mkdir -p "$d/caller"
      [ -e "$d/cpuset.cpus" ] && { cat "$d/cpuset.cpus" >"$d/caller/cpuset.cpus"; cat "$d/cpuset.mems" >"$d/caller/cpuset.mems"; }
      chown -R "$RL_USER" "$d/caller"
      echo "$BASHPID" >"$d/caller/cgroup.procs"
    done
    ucreate "$B" "$id"
  )
  pid=$(<"$RL_HOME/$id.pid")
  local pids_dir
  if [ -d "$CGROOT/pids/$deleg/$id" ]; then pids_dir=$CGROOT/pids/$deleg/$id; else pids_dir=$CGROOT/$deleg/$id; fi
  assert_eq 7 "$(cat "$pids_dir/pids.max")" "pids.max of the container's cgroup in the delegated tree"
  assert_contains " $(tr '\n' ' ' <"$pids_dir/cgroup.procs") " " $pid " "init in its cgroup"
  assert_ok urt delete --force "$id"
  [ ! -d "$pids_dir" ] || fail "the container's cgroup $pids_dir is left after delete"
}
tcase "limits in a cgroup delegated to the user hold (pids.max, init in it)" case_delegated_cgroup

case_default_root() {
  local id=root-$CASENUM
  ubundle dr sleep 600
  RC=0
  as_user timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" create --bundle "$B" "$id" \
    >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  assert_rc 0 "create without --root: $(<"$CASEDIR/$id.err")"
  local found
  found=$(find "$RL_XDG" -mindepth 2 -maxdepth 2 -name "$id" | head -1)
  echo "state dir: $found"
  assert_ne "" "$found" "a state dir for $id under \$XDG_RUNTIME_DIR"
  assert_eq "$id" "$(as_user "$RUNTIME" list -q)" "list without --root"
  assert_ok as_user "$RUNTIME" delete --force "$id"
}
tcase "the default --root of an unprivileged user is under \$XDG_RUNTIME_DIR" case_default_root

case_policy_rootless() {
  ubundle pol sh -c 'echo "$SHARNESS_POLICY_ID"; id -u'
  urun "$B" --policy "$RL_POLICIES/baseline.json"
  assert_rc 0 "baseline as $RL_USER"
  assert_eq $'baseline\n0' "$OUT" "policy id and uid inside"
  urun "$B" --policy "$RL_POLICIES/harsh.json"
  assert_ne 0 "$RC" "harsh (a throwaway host uid) as $RL_USER"
  assert_contains "$ERR" 'needs root: a throwaway host uid' "the refusal says why"
  assert_eq "" "$(urt list -q)" "containers left"
}
# policies are sharness-runtime's (no skip: a case's exit would run the suite's EXIT trap)
[ "$OURS" = 1 ] && tcase "(ours) a policy runs rootless; a throwaway uid is refused as needing root" case_policy_rootless

# ---------------------------------------------------------------------------------------------
# Podman 4.3, rootless, as the user: vfs storage in its home, --network none, the runtime under
# test registered by name (as contrib/podman/containers.conf does) with a private --root.

case_podman_rootless() {
  ensure_pkgs podman conmon busybox-static || fail "cannot install podman"
  local pm=$RL_HOME/.pm name=pm-$$ rt_name img=localhost/sharness-busybox:rootless out
  rt_name=$([ "$OURS" = 1 ] && echo sharness || sed "s/[^A-Za-z0-9_-]/_/g" <<<"${RUNTIME_NAME%.*}")
  as_user mkdir -p "$pm"/{root,tmp,rtstate} "$RL_XDG/containers-run"
  as_user sh -c "cat >'$pm/runtime'" <<EOF
#!/bin/sh
exec '$RUNTIME' --root '$pm/rtstate' "\$@"
EOF
  as_user chmod +x "$pm/runtime"
  as_user sh -c "cat >'$pm/storage.conf'" <<EOF
[storage]
driver = "vfs"
graphroot = "$pm/root"
runroot = "$RL_XDG/containers-run"
EOF
  as_user sh -c "cat >'$pm/containers.conf'" <<EOF
[containers]
default_ulimits = []
netns = "none"

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$pm/events.log"
tmp_dir = "$pm/tmp"
runtime = "$rt_name"
runtime_supports_json = ["$rt_name", "runc", "crun"]

[engine.runtimes]
$rt_name = ["$pm/runtime"]
EOF
  printf 'unqualified-search-registries = []\n' | as_user sh -c "cat >'$pm/registries.conf'"
  as_user sh -c "cat >'$RL_HOME/pm'" <<EOF
#!/bin/sh
export CONTAINERS_CONF='$pm/containers.conf' CONTAINERS_STORAGE_CONF='$pm/storage.conf'
export CONTAINERS_REGISTRIES_CONF='$pm/registries.conf' TMPDIR='$pm/tmp'
exec timeout -k 5 120 podman --cgroup-manager cgroupfs --events-backend file --runtime '$rt_name' "\$@"
EOF
  as_user chmod +x "$RL_HOME/pm"
  busybox_rootfs_tar "$CASEDIR/busybox.tar"
  chmod 0644 "$CASEDIR/busybox.tar"
  assert_ok as_user "$RL_HOME/pm" import --change 'CMD ["sh"]' "$CASEDIR/busybox.tar" "$img"
  RC=0
  out=$(as_user "$RL_HOME/pm" info --format '{{.Host.Security.Rootless}} {{.Host.OCIRuntime.Path}}' 2>&1) || RC=$?
  assert_eq "true $pm/runtime" "$out" "podman rootless, with the runtime under test"
  RC=0
  out=$(as_user "$RL_HOME/pm" run --rm --network none "$img" sh -c 'id -u; cat /proc/self/uid_map' 2>&1) || RC=$?
  echo "podman run: $out"
  assert_rc 0 "podman run as $RL_USER"
  local l; mapfile -t l <<<"$out"
  assert_eq 0 "${l[0]}" "id -u inside"
  assert_match "${l[1]}" "^ *0 +$RL_UID +1\$" "uid_map line 1 (the user)"
  assert_match "${l[2]}" "^ *1 +$SUBUID +65536\$" "uid_map line 2 (the subordinate range, newuidmap)"
  # run -d, exec, stop, rm
  assert_ok as_user "$RL_HOME/pm" run -d --name "$name" --network none "$img" sleep 600
  RC=0
  out=$(as_user "$RL_HOME/pm" exec "$name" sh -c 'id -u; exit 3' 2>&1) || RC=$?
  assert_rc 3 "podman exec exit code"
  assert_eq 0 "$out" "id -u in podman exec"
  assert_ok as_user "$RL_HOME/pm" stop --time 1 "$name"
  assert_eq exited "$(as_user "$RL_HOME/pm" inspect --format '{{.State.Status}}' "$name" 2>&1)" "after stop"
  assert_ok as_user "$RL_HOME/pm" rm "$name"
  assert_eq "" "$(as_user "$RUNTIME" --root "$pm/rtstate" list -q 2>&1)" "containers left in the runtime's state"
}
tcase "podman (rootless, vfs, --network none) as the user: run, run -d, exec, stop, rm" case_podman_rootless

case_teardown() {
  rootless_teardown
  assert_fail id -u "$RL_USER"
  assert_eq "" "$(_subids_of /etc/subuid)$(_subids_of /etc/subgid)" "subordinate ranges left"
  [ ! -e "$RL_HOME" ] || fail "the user's home $RL_HOME is left"
}
tcase "teardown: the user, its home and its subordinate ranges are gone" case_teardown

finish
