#!/usr/bin/env bash
# Rootless Podman in a systemd user session (Podman 5 in the trixie guest): a user with
# subordinate ids (rootless-lib.bash makes one and removes it) gets a lingering systemd user
# manager (loginctl enable-linger: /run/user/UID, its D-Bus session), registers the runtime under
# test in its own containers.conf and runs busybox:
#   - podman info says rootless, cgroup v2 where the host has it, and the runtime's path;
#   - `podman run` works: uid 0 inside is the user, the subordinate range is mapped;
#   - (ours) a policy named by the annotation org.sharness.policy, harsh without what needs root
#     (a throwaway host uid) or a delegated cgroup (its limits and wall clock), holds from inside:
#     no capability, no_new_privs, seccomp, a read-only root; control: the same run without the
#     annotation has capabilities and a writable root. harsh itself is refused, saying why.
# A host whose PID 1 is not systemd has no user session to test: the case skips.
. "$(dirname "$0")/../lib.sh"
CASE_NAME="podman rootless in a systemd user session: run busybox; (ours) harsh-rootless holds inside, harsh refused"
# Without systemd as PID 1 the case skips before any user is made: on such hosts the user's
# set-up and teardown around a skipped case lost the case's temp dir, twice in about ten runs
# (cause not found), which failed the suite.
if [ ! -d /run/systemd/system ]; then
  _no_session() { skip "PID 1 is not systemd: no user session on this host"; }
  tcase "$CASE_NAME" _no_session
  finish
fi
. "$SHARNESS_SOURCE_DIR/conformance/clients/client-lib.bash"
CASE_TIMEOUT=${SHARNESS_CASE_TIMEOUT:-300}
. "$SHARNESS_SOURCE_DIR/conformance/rootless-lib.bash"

SESSION_XDG=/run/user/$RL_UID
LINGERED=0
_unlinger() {
  [ "$LINGERED" = 1 ] || return 0
  loginctl disable-linger "$RL_USER" >/dev/null 2>&1 || true
  loginctl terminate-user "$RL_USER" >/dev/null 2>&1 || true
}
trap '_st=$?; if [ "$BASHPID" = "$$" ]; then _unlinger; rootless_teardown; fi; (exit $_st); _cleanup' EXIT

# as_session CMD...: CMD as the user, in its systemd user session's environment.
as_session() {
  runuser -u "$RL_USER" -- env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$RL_HOME" \
    USER="$RL_USER" LOGNAME="$RL_USER" XDG_RUNTIME_DIR="$SESSION_XDG" \
    DBUS_SESSION_BUS_ADDRESS="unix:path=$SESSION_XDG/bus" "$@"
}

# start_session: the user's systemd manager, lingering; waits for its bus.
start_session() {
  [ -d /run/systemd/system ] || skip "PID 1 is not systemd: no user session on this host"
  loginctl enable-linger "$RL_USER" || { fail "loginctl enable-linger $RL_USER"; return 1; }
  LINGERED=1
  local i
  for ((i = 0; i < 600; i++)); do
    [ -S "$SESSION_XDG/bus" ] && as_session systemctl --user show-environment >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "no systemd user manager for $RL_USER after 60 s ($SESSION_XDG: $(ls "$SESSION_XDG" 2>&1))"
}

# setup_podman: the user's containers.conf (the runtime under test by name, with a private --root
# and a runtime config whose policyDirs hold the shipped policies pinned to this host's busybox),
# vfs storage in its home, an imported busybox image. Sets PM (the user's podman wrapper) and IMG.
setup_podman() {
  local cfgd=$RL_HOME/.config/containers pol=$RL_HOME/policies rt_name
  rt_name=$([ "$OURS" = 1 ] && echo sharness || sed "s/[^A-Za-z0-9_-]/_/g" <<<"${RUNTIME_NAME%.*}")
  IMG=localhost/sharness-busybox:session
  as_user mkdir -p "$cfgd" "$pol" "$RL_HOME/rtstate" "$RL_HOME/storage"
  if [ "$OURS" = 1 ]; then
    "$SHARNESS_SOURCE_DIR/scripts/install-policies.sh" "$RUNTIME" "$SHARNESS_SOURCE_DIR/policies" "$pol" >/dev/null ||
      fail "install-policies.sh into $pol"
    jq '.id = "harsh-rootless" | del(.identity.uid) | del(.memory.limit) | del(.cpu) | del(.pids) | del(.wallClock)
        | .description = "harsh without a throwaway uid, cgroup limits or a wall clock (they need root or a delegated cgroup)"' \
      "$pol/harsh.json" >"$pol/harsh-rootless.json"
    chown -R "$RL_USER:$RL_GID" "$pol"
    printf '{"policyDirs": ["%s"]}\n' "$pol" | as_user sh -c "cat >'$RL_HOME/runtime.json'"
    as_user sh -c "cat >'$RL_HOME/runtime'" <<EOF
#!/bin/sh
exec '$RUNTIME' --config '$RL_HOME/runtime.json' --root '$RL_HOME/rtstate' "\$@"
EOF
  else
    as_user sh -c "cat >'$RL_HOME/runtime'" <<EOF
#!/bin/sh
exec '$RUNTIME' --root '$RL_HOME/rtstate' "\$@"
EOF
  fi
  as_user chmod +x "$RL_HOME/runtime"
  as_user sh -c "cat >'$cfgd/storage.conf'" <<EOF
[storage]
driver = "vfs"
graphroot = "$RL_HOME/storage"
runroot = "$SESSION_XDG/containers"
EOF
  as_user sh -c "cat >'$cfgd/containers.conf'" <<EOF
[containers]
netns = "none"

[engine]
cgroup_manager = "${SHARNESS_PODMAN_CGROUP_MANAGER:-cgroupfs}"
events_logger = "file"
runtime = "$rt_name"
runtime_supports_json = ["$rt_name", "runc", "crun"]

[engine.runtimes]
$rt_name = ["$RL_HOME/runtime"]
EOF
  printf 'unqualified-search-registries = []\n' | as_user sh -c "cat >'$cfgd/registries.conf'"
  PM=(as_session timeout -k 5 120 podman)
  busybox_rootfs_tar "$CASEDIR/busybox.tar"
  chmod 0644 "$CASEDIR/busybox.tar"
  assert_ok "${PM[@]}" import --change 'CMD ["sh"]' "$CASEDIR/busybox.tar" "$IMG"
}

INSIDE='echo "policy=$SHARNESS_POLICY_ID"; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "
        (: >/rootfile) 2>/dev/null && echo root-writable || echo root-readonly'

case_podman_session() {
  start_session
  setup_podman
  local out
  RC=0
  out=$("${PM[@]}" info --format '{{.Host.Security.Rootless}} {{.Host.CgroupsVersion}} {{.Host.OCIRuntime.Path}}' 2>&1) || RC=$?
  echo "podman info: $out"
  assert_rc 0 "podman info as $RL_USER"
  local v; v=$([ "$(stat -f -c %T "$CGROOT")" = cgroup2fs ] && echo v2 || echo v1)
  assert_eq "true $v $RL_HOME/runtime" "$out" "rootless, cgroups $v, the runtime under test"
  RC=0
  out=$("${PM[@]}" run --rm "$IMG" sh -c 'id -u; cat /proc/self/uid_map' 2>&1) || RC=$?
  echo "podman run: $out"
  assert_rc 0 "podman run as $RL_USER in its session"
  local l; mapfile -t l <<<"$out"
  assert_eq 0 "${l[0]}" "id -u inside"
  assert_match "${l[1]}" "^ *0 +$RL_UID +1\$" "uid_map line 1 (the user)"
  assert_match "${l[2]}" "^ *1 +$SUBUID +65536\$" "uid_map line 2 (the subordinate range)"
  [ "$OURS" = 1 ] || return 0
  # control: no policy annotation
  RC=0
  out=$("${PM[@]}" run --rm "$IMG" sh -c "$INSIDE" 2>&1) || RC=$?
  echo "without a policy: $out"
  assert_rc 0 "control run"
  assert_contains "$out" "root-writable" "control: the root is writable"
  assert_not_contains "$out" "CapEff: 0000000000000000" "control: capabilities"
  # harsh, rootless: what needs no privilege over the host, from inside
  RC=0
  out=$("${PM[@]}" run --rm --annotation org.sharness.policy=harsh-rootless "$IMG" sh -c "$INSIDE" 2>&1) || RC=$?
  echo "harsh-rootless: $out"
  assert_rc 0 "podman run under harsh-rootless"
  assert_eq $'policy=harsh-rootless\nCapEff: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2\nroot-readonly' \
    "$(grep -v '^Seccomp_filters' <<<"$out")" "harsh-rootless from inside"
  # harsh itself needs a throwaway host uid: refused, and podman shows why
  RC=0
  out=$("${PM[@]}" run --rm --annotation org.sharness.policy=harsh "$IMG" true 2>&1) || RC=$?
  assert_ne 0 "$RC" "harsh rootless"
  assert_contains "$out" "needs root" "podman shows the runtime's reason"
}

tcase "$CASE_NAME" case_podman_session
finish
