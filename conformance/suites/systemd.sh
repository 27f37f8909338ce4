#!/usr/bin/env bash
# The systemd cgroup driver (--systemd-cgroup, what container managers on systemd hosts ask
# for): a container gets a transient scope unit "<prefix>-<name>.scope" in the slice its
# cgroupsPath "slice:prefix:name" names, made through systemd's D-Bus API, with its limits as
# unit properties; `update` changes them, `delete` removes the unit. Checked through systemd
# itself (`systemctl show`) and from inside the container (its cgroup's files). Runs on a host
# with systemd as PID 1 and pure cgroup v2 (the trixie guest); on a host without systemd only the
# refusal case runs, and the others skip (a host without the thing under test). Also for
# SHARNESS_RUNTIME=/usr/bin/crun or /usr/sbin/runc.
# Cases start several containers each; under qemu TCG (the trixie guest) the first takes minutes.
: "${SHARNESS_CASE_TIMEOUT:=300}"
export SHARNESS_CASE_TIMEOUT
. "$(dirname "$0")/../lib.sh"

HAVE_SYSTEMD=0
[ -d /run/systemd/system ] && [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ] && HAVE_SYSTEMD=1

# Every unit a case may have made is stopped at the end by its name (never by pattern), whatever
# the runtime left.
UNITS=$TMP/.units
_sd_cleanup() {
  local u
  [ -s "$UNITS" ] || return 0
  for u in $(sort -u "$UNITS"); do
    systemctl stop "$u" >/dev/null 2>&1 || true
    systemctl reset-failed "$u" >/dev/null 2>&1 || true
  done
}
_status() { return "$1"; }  # sets $? for _cleanup without a subshell (which would run this trap)
# Only the suite's own shell cleans up: a case's subshell that exits (skip) leaves it alone.
trap '_sd_rc=$?; [ "$BASHPID" = "$HOST_PID" ] || exit "$_sd_rc"; _sd_cleanup; _status "$_sd_rc"; _cleanup' EXIT

need_systemd() {
  [ "$HAVE_SYSTEMD" = 1 ] || skip "no systemd as PID 1 on this host (/run/systemd/system): the driver has nothing to talk to"
  [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || skip "not a pure cgroup v2 host"
}

# sd ARGS...: the runtime with --systemd-cgroup (every command gets it, as containerd and Podman
# pass it).
sd() { rt --systemd-cgroup "$@"; }

# sd_bundle NAME ID ARGS...: a bundle whose cgroupsPath is system.slice:sharness:ID; sets B, UNIT.
sd_bundle() {
  local name=$1 id=$2; shift 2
  new_bundle "$name" "$@" >/dev/null
  cfg "$B" '.linux.cgroupsPath = $p' --arg p "system.slice:sharness:$id"
  UNIT=sharness-$id.scope
  echo "$UNIT" >>"$UNITS"
}

# sd_create BUNDLE ID: create under the systemd driver; sets RC and ERR.
sd_create() {
  local b=$1 id=$2
  grep -qx "$id" "$CASEDIR/.ids" 2>/dev/null || echo "$id" >>"$CASEDIR/.ids"
  RC=0
  sd create --bundle "$b" --pid-file "$CASEDIR/$id.pid" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" \
    </dev/null || RC=$?
  ERR=$(<"$CASEDIR/$id.err")
}

# prop UNIT NAME: one property as `systemctl show` prints it.
prop() { systemctl show "$1" -p "$2" --value; }

# The scope's cgroup directory, from systemd.
scope_dir() { echo "/sys/fs/cgroup$(prop "$1" ControlGroup)"; }

limits() {
  cfg "$B" '.linux.resources.memory.limit = 67108864 | .linux.resources.pids.limit = 64 |
            .linux.resources.cpu.quota = 50000 | .linux.resources.cpu.period = 100000'
}

# ---------------------------------------------------------------------------------------------

case_no_systemd_refused() {
  [ "$HAVE_SYSTEMD" = 0 ] || skip "systemd runs here: the refusal is for hosts without it"
  local id
  new_bundle plain true >/dev/null
  assert_control_runs "$B"
  id=$(newid nosd)
  cfg "$B" '.linux.cgroupsPath = $p' --arg p "system.slice:sharness:$id"
  sd_create "$B" "$id"
  [ "$RC" != 0 ] || fail "create --systemd-cgroup succeeded on a host without systemd"
  assert_contains "$ERR" "systemd"
  # Never a quiet fall back to the cgroupfs driver: nothing was made.
  if out=$(rt state "$id" 2>&1); then fail "state $id exists after the refusal: $out"; fi
  [ ! -d "/sys/fs/cgroup/system.slice/sharness-$id.scope" ] || fail "a cgroup was made for $id"
  [ ! -d "/sys/fs/cgroup/unified/system.slice/sharness-$id.scope" ] || fail "a cgroup was made for $id"
  if [ "$OURS" = 1 ]; then assert_contains "$ERR" "systemd is not running on this host"; fi
}
tcase "no systemd: --systemd-cgroup is refused at create, nothing made" case_no_systemd_refused

case_scope_with_limits() {
  need_systemd
  local id pid dir
  id=$(newid scope)
  sd_bundle lim "$id" sh -c 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; sleep 1000'
  limits
  sd_create "$B" "$id"
  assert_run_ok "create"
  assert_eq active "$(prop "$UNIT" ActiveState)" "$UNIT ActiveState"
  assert_eq system.slice "$(prop "$UNIT" Slice)" "$UNIT Slice"
  assert_eq yes "$(prop "$UNIT" Delegate)" "$UNIT Delegate"
  assert_eq 67108864 "$(prop "$UNIT" MemoryMax)" "$UNIT MemoryMax"
  assert_eq 64 "$(prop "$UNIT" TasksMax)" "$UNIT TasksMax"
  assert_eq 500ms "$(prop "$UNIT" CPUQuotaPerSecUSec)" "$UNIT CPUQuotaPerSecUSec"
  # init is in the scope, and the scope's files hold the limits.
  pid=$(<"$CASEDIR/$id.pid")
  assert_contains "$(cat "/proc/$pid/cgroup")" "/system.slice/$UNIT"
  dir=$(scope_dir "$UNIT")
  assert_eq "/sys/fs/cgroup/system.slice/$UNIT" "$dir" "ControlGroup"
  assert_eq 67108864 "$(cat "$dir/memory.max")" "memory.max"
  assert_eq 64 "$(cat "$dir/pids.max")" "pids.max"
  assert_eq "50000 100000" "$(cat "$dir/cpu.max")" "cpu.max"
  # ... and the container, whose cgroup root is the scope, sees them.
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 60
  assert_line "$(cat "$CASEDIR/$id.out")" '^67108864$' "memory.max inside"
  assert_line "$(cat "$CASEDIR/$id.out")" '^64$' "pids.max inside"
}
tcase "a container gets a delegated scope with MemoryMax/TasksMax/CPUQuota in systemctl show" case_scope_with_limits

case_update_changes_properties() {
  need_systemd
  # Seen in the trixie guest: crun 1.21's update writes cpu.max but leaves CPUQuotaPerSecUSec.
  known_fail crun
  local id dir
  id=$(newid upd)
  sd_bundle upd "$id" sleep 1000
  limits
  sd_create "$B" "$id"
  assert_run_ok "create"
  must_start "$id"
  assert_ok sd update --memory 134217728 --pids-limit 100 --cpu-quota 25000 "$id"
  assert_eq 134217728 "$(prop "$UNIT" MemoryMax)" "$UNIT MemoryMax after update"
  assert_eq 100 "$(prop "$UNIT" TasksMax)" "$UNIT TasksMax after update"
  assert_eq 250ms "$(prop "$UNIT" CPUQuotaPerSecUSec)" "$UNIT CPUQuotaPerSecUSec after update"
  dir=$(scope_dir "$UNIT")
  assert_eq 134217728 "$(cat "$dir/memory.max")" "memory.max after update"
  assert_eq 100 "$(cat "$dir/pids.max")" "pids.max after update"
  # A daemon-reload re-applies the unit's properties: the update must have reached them, not
  # only the files.
  systemctl daemon-reload
  assert_eq 134217728 "$(cat "$dir/memory.max")" "memory.max after daemon-reload"
}
tcase "update changes the unit's properties and the scope's files" case_update_changes_properties

case_delete_removes_unit() {
  need_systemd
  local id dir
  id=$(newid del)
  sd_bundle del "$id" sleep 1000
  sd_create "$B" "$id"
  assert_run_ok "create"
  must_start "$id"
  assert_eq active "$(prop "$UNIT" ActiveState)" "$UNIT before delete"
  dir=$(scope_dir "$UNIT")
  assert_eq "/sys/fs/cgroup/system.slice/$UNIT" "$dir" "ControlGroup"
  # delete --force of a running container, as a client's cleanup does: when it returns, the unit
  # and its cgroup are gone (not later, when systemd would notice an empty scope).
  assert_ok sd delete --force "$id"
  assert_ne active "$(prop "$UNIT" ActiveState)" "$UNIT after delete"
  assert_eq not-found "$(prop "$UNIT" LoadState)" "$UNIT LoadState after delete"
  [ ! -d "$dir" ] || fail "scope cgroup $dir left after delete"
  # The same after the container stopped by itself (systemd may have dropped the unit first).
  local id2=$id-b
  sd_bundle del2 "$id2" true
  sd_create "$B" "$id2"
  assert_run_ok "create $id2"
  must_start "$id2"
  wait_status "$id2" stopped
  assert_ok sd delete "$id2"
  assert_eq not-found "$(prop "$UNIT" LoadState)" "$UNIT LoadState after delete"
}
tcase "delete removes the unit and its cgroup" case_delete_removes_unit

case_pause_stats_on_scope() {
  need_systemd
  local id dir
  id=$(newid pause)
  sd_bundle pause "$id" sleep 1000
  limits
  sd_create "$B" "$id"
  assert_run_ok "create"
  must_start "$id"
  dir=$(scope_dir "$UNIT")
  assert_ok sd pause "$id"
  assert_eq paused "$(status_of "$id")"
  # pause returns once frozen for ours and runc; crun's may return first: give it a moment.
  for _ in 1 2 3 4 5 6 7 8 9 10; do grep -qx 'frozen 1' "$dir/cgroup.events" && break; sleep 0.5; done
  assert_line "$(cat "$dir/cgroup.events")" '^frozen 1$' "scope frozen"
  assert_ok sd resume "$id"
  assert_line "$(cat "$dir/cgroup.events")" '^frozen 0$' "scope thawed"
  assert_ok sd events --stats "$id"
  assert_contains "$CMD_OUT" '"limit":67108864'
}
tcase "pause, resume and events --stats act on the scope's cgroup" case_pause_stats_on_scope

case_unit_exists_names_unit() {
  need_systemd
  local id pid
  id=$(newid dup)
  sd_bundle dup "$id" sleep 1000
  sd_create "$B" "$id"
  assert_run_ok "create"
  pid=$(<"$CASEDIR/$id.pid")
  # A second container asking for the same unit: refused, and the first is left alone.
  local id2=$id-b
  echo "$id2" >>"$CASEDIR/.ids"
  RC=0
  sd create --bundle "$B" "$id2" >"$CASEDIR/$id2.out" 2>"$CASEDIR/$id2.err" </dev/null || RC=$?
  ERR=$(<"$CASEDIR/$id2.err")
  [ "$RC" != 0 ] || fail "a second container got the unit $UNIT"
  kill -0 "$pid" || fail "the first container's init $pid died when the second create failed"
  assert_eq active "$(prop "$UNIT" ActiveState)" "$UNIT after the refused second create"
  assert_contains "$(cat "/proc/$pid/cgroup")" "/system.slice/$UNIT"
  if [ "$OURS" = 1 ]; then
    assert_contains "$ERR" "StartTransientUnit $UNIT: org.freedesktop.systemd1.UnitExists"
  fi
}
tcase "a unit name already taken is an error naming the unit and the D-Bus error" case_unit_exists_names_unit

finish
