# shellcheck shell=bash
# conformance/lib.sh: the framework every conformance suite sources.
#
#   . "$(dirname "$0")/../lib.sh"
#   case_foo() { new_bundle b sh -c 'echo hi'; run_in "$B"; assert_eq hi "$OUT"; }
#   tcase "foo prints hi" case_foo
#   finish
#
# Runtime-agnostic: the runtime under test is $SHARNESS_RUNTIME (ours, runc or crun) and is only
# driven through its runc-compatible CLI. Every call goes through `rt`, which passes a private
# `--root` state directory, so a suite never sees or touches /run/runc, /run/crun or any other
# store. Containers live in cgroups under a parent named for this run
# (/sharness-test-<pid>-<suite>/<id>); everything a suite creates (containers, cgroups, mounts, its
# temp dir) is removed on exit, by id and by path, never by process name.
#
# Environment:
#   SHARNESS_RUNTIME      runtime binary under test (required)
#   SHARNESS_SOURCE_DIR   source tree (default: the tree this file is in)
#   SHARNESS_RUNTIME_ARGS extra global options put before --root on every call (word-split)
#   SHARNESS_CASES        only run cases whose name matches this bash regex
#   SHARNESS_VERBOSE=1    print every case's log, not only the failing ones
#   SHARNESS_CASE_TIMEOUT seconds a case may take (default 60)
#   SHARNESS_RT_TIMEOUT   seconds one runtime call may take (default 30)
#   SHARNESS_HIDE_UNIFIED=1  run the suite in a private mount namespace with an empty tmpfs over
#                         /sys/fs/cgroup/unified: lets crun 1.8.1 run on a hybrid host whose v2
#                         hierarchy holds a controller (it refuses such hosts). Nothing changes
#                         outside the suite's own mount namespace.
#   SHARNESS_KEEP=1       keep the temp dir (containers, cgroups and mounts are still removed)

# Not root is a failure, never a skip: CI must not pass by not running (CTest counts no exit
# code as "skipped" for these suites).
if [ "$(id -u)" != 0 ]; then
  echo "FAIL: conformance suites must run as root (uid $(id -u)): nothing was tested" >&2
  exit 1
fi

: "${SHARNESS_RUNTIME:?set SHARNESS_RUNTIME to the runtime binary under test}"
RUNTIME=$SHARNESS_RUNTIME
if [[ $RUNTIME != */* ]]; then
  RUNTIME=$(command -v "$RUNTIME") || { echo "runtime not found: $SHARNESS_RUNTIME" >&2; exit 1; }
fi
[ -x "$RUNTIME" ] || { echo "runtime not executable: $RUNTIME" >&2; exit 1; }
RUNTIME_NAME=$(basename "$RUNTIME")
# OURS=1 when the binary under test is sharness-runtime (cases for what only it has: policies, its
# own error texts), 0 for runc, crun or another runc-compatible runtime.
OURS=0
"$RUNTIME" --version 2>/dev/null | grep -q '^sharness-runtime version' && OURS=1

SHARNESS_SOURCE_DIR=${SHARNESS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
MAKE_BUNDLE=$SHARNESS_SOURCE_DIR/scripts/make-bundle.sh
SUITE=$(basename "$0" .sh)
read -r -a RT_EXTRA <<<"${SHARNESS_RUNTIME_ARGS:-}"
RT_TIMEOUT=${SHARNESS_RT_TIMEOUT:-30}
CASE_TIMEOUT=${SHARNESS_CASE_TIMEOUT:-60}

# crun on a hybrid host: see SHARNESS_HIDE_UNIFIED above. Re-exec once inside a private mount
# namespace (same pid: unshare execs without forking).
if [ "${SHARNESS_HIDE_UNIFIED:-0}" = 1 ]; then
  if [ -z "${SHARNESS_IN_PRIVATE_MNTNS:-}" ]; then
    SHARNESS_IN_PRIVATE_MNTNS=1 exec unshare -m --propagation private bash "$0" "$@"
  fi
  if [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
    mount -t tmpfs -o size=16m,mode=755 sharness-hide-unified /sys/fs/cgroup/unified || exit 1
  fi
fi

# Be a child subreaper, as real callers of `create` are (conmon, the containerd shim): a created
# container's init is re-parented to this shell, which reaps it, instead of to PID 1. perl is in
# Debian's essential set; without it we run as we are.
if [ -z "${SHARNESS_SUBREAPER:-}" ] && command -v perl >/dev/null 2>&1; then
  case $(uname -m) in
    x86_64) _nr_prctl=157 ;; aarch64) _nr_prctl=167 ;; *) _nr_prctl="" ;;
  esac
  if [ -n "$_nr_prctl" ]; then
    # PR_SET_CHILD_SUBREAPER = 36; exec keeps the pid, so $$ (and CGPARENT) stay as they are
    SHARNESS_SUBREAPER=1 exec perl -e 'syscall($ARGV[0], 36, 1, 0, 0, 0) == 0 or die "prctl: $!\n";
      shift; exec { $ARGV[0] } @ARGV or die "exec: $!\n"' "$_nr_prctl" bash "$0" "$@"
  fi
fi

unset SHARNESS_SUBREAPER SHARNESS_IN_PRIVATE_MNTNS  # done with: keep them from the runtime's env

if ! command -v jq >/dev/null 2>&1; then
  echo "# jq is missing: installing it (apt-get install -y jq)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null ||
    { echo "cannot install jq" >&2; exit 1; }
fi
[ -x "$MAKE_BUNDLE" ] || { echo "missing $MAKE_BUNDLE" >&2; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sharness-$SUITE.XXXXXX") || exit 1
chmod 0755 "$TMP"
STATE=$TMP/state
mkdir -p "$STATE"
export MAKE_BUNDLE_CACHE=$TMP/.bundle-cache
CGPARENT=sharness-test-$$-$SUITE
CGROOT=/sys/fs/cgroup
HOST_PID=$$
# The egress door's mount point on the host (egress/up.cpp makes it once, empty, root's): a suite
# that made it removes it, so the machine is left as it was found.
[ -e /run/sharness-egress ] && _RUN_EGRESS_WAS=1 || _RUN_EGRESS_WAS=0
CASENUM=0
CASEDIR=$TMP/c0
mkdir -p "$CASEDIR"
N_PASS=0 N_FAIL=0 N_XFAIL=0 N_SKIP=0
T_START=$EPOCHREALTIME
FAILED_CASES=() XFAIL_CASES=()

# ---------------------------------------------------------------------------------------------
# Driving the runtime

# rt ARGS...: the runtime under test with this suite's private state dir.
rt() {
  timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" --root "$STATE" "$@"
}

# rt_raw ARGS...: the runtime with nothing added (the caller passes --root itself).
rt_raw() {
  timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" "$@"
}

# newid NAME: a container id for this case, recorded so cleanup deletes it by id.
newid() {
  local id="${1:-c}-$CASENUM"
  echo "$id" >>"$CASEDIR/.ids"
  echo "$id"
}

# new_bundle NAME [ARGS...]: make a busybox bundle in the case dir; sets B to its path and also
# prints it. Its cgroupsPath is under this run's parent (create_in/run_in set it per id).
new_bundle() {
  local name=$1; shift
  B=$CASEDIR/$name
  MAKE_BUNDLE_CGROUPS_PATH=/$CGPARENT/$name-$CASENUM "$MAKE_BUNDLE" "$B" "$@" >&2 ||
    { fail "make-bundle.sh $B failed"; return 1; }
  echo "$B"
}

# runc_spec_bundle NAME ARGS...: a bundle whose config.json is exactly what `runc spec` (Debian's
# runc 1.1.5) writes (conformance/fixtures/runc-1.1.5-spec.json), with only the args, terminal
# and cgroupsPath changed; the rootfs is the suite's busybox one.
runc_spec_bundle() {
  local name=$1; shift
  new_bundle "$name" true >/dev/null || return 1
  cp "$SHARNESS_SOURCE_DIR/conformance/fixtures/runc-1.1.5-spec.json" "$B/config.json"
  cfg "$B" '.process.terminal = false'
  set_args "$B" "$@"
  echo "$B"
}

# cfg BUNDLE JQ_FILTER [jq options...]: edit BUNDLE/config.json in place with jq. Options such as
# --arg NAME VALUE may come before or after the filter.
cfg() {
  local b=$1; shift
  jq "$@" "$b/config.json" >"$b/config.json.new" ||
    { fail "jq failed on $b/config.json: $*"; return 1; }
  mv "$b/config.json.new" "$b/config.json"
}

# installed_policies: the directory of the shipped policies as `make install` puts them on this
# host (scripts/install-policies.sh: exec pins refreshed from this host's files, so harsh pins the
# /bin/busybox every bundle holds, whatever its build: Debian 13's in the trixie guest), installed
# once into $TMP/policies. The source tree's policies/ when the runtime under test is not ours
# (no `policy pin`) or the install failed (said on stderr).
installed_policies() {
  local d=$TMP/policies
  if [ "$OURS" = 1 ] && { [ -d "$d" ] || timeout -k 5 "$RT_TIMEOUT" "$SHARNESS_SOURCE_DIR/scripts/install-policies.sh" \
    "$RUNTIME" "$SHARNESS_SOURCE_DIR/policies" "$d" >/dev/null; }; then
    echo "$d"
    return 0
  fi
  [ "$OURS" = 1 ] && echo "# install-policies.sh failed: the shipped policies are used" >&2
  echo "$SHARNESS_SOURCE_DIR/policies"
}

# set_args BUNDLE ARGS...: replace process.args.
set_args() {
  local b=$1 a j=""
  shift
  for a in "$@"; do j+="${j:+,}$(jq -Rn --arg a "$a" '$a')"; done
  cfg "$b" ".process.args = [$j]"
}

# _cgpath_for BUNDLE ID: put the container's cgroup under this run's parent (sed when the key is
# there, as jq costs a process start per container).
_cgpath_for() {
  if grep -q '"cgroupsPath": *"' "$1/config.json"; then
    sed -i "s|\"cgroupsPath\": *\"[^\"]*\"|\"cgroupsPath\": \"/$CGPARENT/$2\"|" "$1/config.json"
  else
    cfg "$1" ".linux.cgroupsPath = \"/$CGPARENT/$2\""
  fi
}

# run_in BUNDLE [ID [EXTRA_RUN_ARGS...]]: `run` the bundle in the foreground. Sets OUT, ERR (the
# runtime's and the container's stderr) and RC. stdin is the caller's.
run_in() {
  local b=$1 id=${2:-}
  [ $# -ge 2 ] && shift 2 || shift 1
  [ -n "$id" ] || id=$(newid "$(basename "$b")")
  _cgpath_for "$b" "$id" || return 1
  RC=0
  rt run --bundle "$b" "$@" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" || RC=$?
  OUT=$(<"$CASEDIR/$id.out")
  ERR=$(<"$CASEDIR/$id.err")
  [ "$RC" = 124 ] && echo "(run $id exited 124$(_timeout_note 124))" >&2
  return 0
}

# create_in BUNDLE ID [EXTRA_CREATE_ARGS...]: `create` with --pid-file $CASEDIR/ID.pid. The
# container's stdio goes to $CASEDIR/ID.out / ID.err (never to a pipe we wait on: init keeps it
# open). Sets RC and ERR (the runtime's stderr; the container's own output lands in ID.err too).
create_in() {
  local b=$1 id=$2; shift 2
  _cgpath_for "$b" "$id" || return 1
  grep -qx "$id" "$CASEDIR/.ids" 2>/dev/null || echo "$id" >>"$CASEDIR/.ids"
  RC=0
  rt create --bundle "$b" --pid-file "$CASEDIR/$id.pid" "$@" "$id" \
    >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  ERR=$(<"$CASEDIR/$id.err")
  return 0
}

# must_create BUNDLE ID [ARGS...]: create_in, and fail the case unless it succeeded.
must_create() {
  create_in "$@"
  [ "$RC" = 0 ] || fail "create $2 failed (exit $RC$(_timeout_note "$RC")): $ERR"
}

# must_start ID (output to a file: a runtime's helper might keep a pipe open)
must_start() {
  _run_cmd rt start "$1"
  [ "$CMD_RC" = 0 ] || fail "start $1 failed (exit $CMD_RC$(_timeout_note "$CMD_RC")): $CMD_OUT"
}

# _timeout_note RC: a hint when RC is what `timeout` returns for a runtime call that hung.
_timeout_note() {
  [ "$1" = 124 ] || [ "$1" = 137 ] && echo ", maybe the runtime call timed out after ${RT_TIMEOUT}s"
  return 0
}

# start_detached BUNDLE ID: create + start, output into files as for create_in.
start_detached() {
  must_create "$1" "$2" || return 1
  must_start "$2"
}

# status_of ID: the status field of `state ID` (empty if state fails).
status_of() {
  local js
  js=$(rt state "$1" 2>/dev/null) || return 0
  [[ $js =~ \"status\"[[:space:]]*:[[:space:]]*\"([^\"]*)\" ]] && echo "${BASH_REMATCH[1]}"
  return 0
}

# pid_of ID: the pid field of `state ID` (empty if state fails).
pid_of() {
  local js
  js=$(rt state "$1" 2>/dev/null) || return 0
  [[ $js =~ \"pid\"[[:space:]]*:[[:space:]]*([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
  return 0
}

# wait_status ID STATUS [SECONDS]: poll `state` until status is STATUS (default 5 s).
wait_status() {
  local id=$1 want=$2 secs=${3:-5} got="" i
  for ((i = 0; i < secs * 20; i++)); do
    got=$(status_of "$id")
    [ "$got" = "$want" ] && return 0
    sleep 0.05
  done
  fail "container $id: expected status '$want' within ${secs}s, got '$got'"
}

# wait_file FILE [SECONDS]: poll until FILE exists and is non-empty.
wait_file() {
  local f=$1 secs=${2:-5} i
  for ((i = 0; i < secs * 20; i++)); do
    [ -s "$f" ] && return 0
    sleep 0.05
  done
  fail "file $f did not appear within ${secs}s"
}

# wait_grep FILE ERE [SECONDS]: until a line of FILE matches.
wait_grep() {
  local f=$1 re=$2 secs=${3:-10} i
  for ((i = 0; i < secs * 20; i++)); do
    grep -qE -- "$re" "$f" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "no line matching /$re/ in $f within ${secs}s; it holds: $(head -c 2000 "$f" 2>/dev/null)"
}

# alive PID: the process exists and is not a zombie.
alive() {
  local s
  s=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# host_ns TYPE: the namespace link of this suite's shell (the runtime's parent), e.g. net:[4026...].
host_ns() { readlink "/proc/$HOST_PID/ns/$1"; }

# cgroup_dirs [SUBPATH]: every existing host cgroup directory of this run (or of SUBPATH under it):
# one per v1 hierarchy (and the hybrid "unified" one), or the one of pure cgroup v2.
cgroup_dirs() {
  local d
  for d in "$CGROOT"/*/"$CGPARENT${1:+/$1}" "$CGROOT/$CGPARENT${1:+/$1}"; do
    # with SHARNESS_HIDE_UNIFIED the "unified" dir is a private tmpfs: no cgroup, goes with the suite
    [ "${SHARNESS_HIDE_UNIFIED:-0}" = 1 ] && [[ $d == "$CGROOT"/unified/* ]] && continue
    [ -d "$d" ] && echo "$d"
  done
  return 0
}

# ---------------------------------------------------------------------------------------------
# Assertions: each prints what was expected and what was got, marks the case failed, returns 1.

fail() {
  echo "FAIL: $*" >&2
  : >"$CASEDIR/.failed"
  return 1
}

assert_eq() {  # EXPECTED GOT [WHAT]
  [ "$1" == "$2" ] && return 0
  fail "${3:+$3: }expected '$1', got '$2'"
}

assert_ne() {  # UNEXPECTED GOT [WHAT]
  [ "$1" != "$2" ] && return 0
  fail "${3:+$3: }expected anything but '$1', got it"
}

assert_contains() {  # HAYSTACK NEEDLE [WHAT]
  [[ $1 == *"$2"* ]] && return 0
  fail "${3:+$3: }expected to contain '$2', got '$1'"
}

assert_not_contains() {  # HAYSTACK NEEDLE [WHAT]
  [[ $1 != *"$2"* ]] && return 0
  fail "${3:+$3: }expected not to contain '$2', got '$1'"
}

assert_match() {  # STRING ERE [WHAT]
  [[ $1 =~ $2 ]] && return 0
  fail "${3:+$3: }expected to match /$2/, got '$1'"
}

assert_line() {  # TEXT ERE [WHAT] -- some line of TEXT matches ERE
  grep -qE -- "$2" <<<"$1" && return 0
  fail "${3:+$3: }expected a line matching /$2/, got '$1'"
}

# assert_fail CMD...: CMD must exit non-zero. Its output is shown.
# Output goes to a file, never a pipe: a container started by CMD would hold a pipe open forever.
# The command's output is in $CMD_OUT afterwards.
_run_cmd() {
  _NCMD=$((${_NCMD:-0} + 1))
  local f=$CASEDIR/.cmd$_NCMD.out
  CMD_RC=0
  "$@" >"$f" 2>&1 || CMD_RC=$?
  CMD_OUT=$(<"$f")
}

# assert_fail CMD...: CMD must exit non-zero.
assert_fail() {
  _run_cmd "$@"
  [ "$CMD_RC" != 0 ] && { echo "  (failed as expected, exit $CMD_RC: ${CMD_OUT:0:300})" >&2; return 0; }
  fail "expected failure of: $*; it succeeded with output '$CMD_OUT'"
}

# assert_ok CMD...: CMD must exit zero.
assert_ok() {
  _run_cmd "$@"
  [ "$CMD_RC" = 0 ] && return 0
  fail "expected success of: $*; exit $CMD_RC$(_timeout_note "$CMD_RC"), output '$CMD_OUT'"
}

assert_rc() {  # EXPECTED_RC [WHAT] -- compares with $RC
  [ "$RC" == "$1" ] && return 0
  fail "${2:+$2: }expected exit code $1, got $RC; stdout '${OUT:-}' stderr '${ERR:-}'"
}

# assert_run_ok [WHAT]: the last run_in/create_in succeeded.
assert_run_ok() { assert_rc 0 "$@"; }

# assert_control_runs BUNDLE: the bundle runs (exit 0) as it is; cases that expect a refusal
# make their change after this, so a runtime that cannot run anything does not pass them.
assert_control_runs() {
  local id
  id=$(newid control)
  run_in "$1" "$id"
  [ "$RC" = 0 ] || fail "control run of $1 (before the change under test) failed: exit $RC, $ERR"
}

# assert_nothing_left ID: no state, no cgroup dir for ID, no process from its pid file.
assert_nothing_left() {
  local id=$1 out d pid
  if out=$(rt state "$id" 2>&1); then
    fail "state $id still succeeds after a failed create: $out"
  fi
  for d in $(cgroup_dirs "$id"); do
    fail "cgroup dir left behind: $d"
  done
  if [ -n "$(find "$STATE" -name "$id" 2>/dev/null)" ]; then
    fail "state entry left behind: $(find "$STATE" -name "$id")"
  fi
  if [ -s "$CASEDIR/$id.pid" ]; then
    pid=$(<"$CASEDIR/$id.pid")
    if grep -qs "$CGPARENT/$id" "/proc/$pid/cgroup"; then
      fail "process $pid of $id still alive"
    fi
  fi
  if out=$(rt list -q 2>/dev/null) && grep -qx "$id" <<<"$out"; then
    fail "list still shows $id"
  fi
  [ ! -e "$CASEDIR/.failed" ]
}

# find_forked COMM ID: pids of the live processes named COMM (as /proc/PID/comm has it: 15
# characters at most) forked from a runtime call whose command line names this suite's state dir
# and ID (a fork keeps its parent's command line). Zombies have an empty command line, so only a
# live one is found.
find_forked() {
  local p c comm
  for p in /proc/[0-9]*; do
    comm=""
    { read -r comm <"$p/comm"; } 2>/dev/null || continue
    [ "$comm" = "$1" ] || continue
    c=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
    [[ " $c " == *" $STATE "* && " $c " == *" $2 "* ]] && echo "${p#/proc/}"
  done
  return 0
}

# find_watchdog ID: pid of the wall-clock watchdog of container ID (comm sharness-wdog).
find_watchdog() { find_forked sharness-wdog "$1"; }

# known_fail RUNTIME...: this case is known to fail on these runtimes (basename of the binary).
# A failure is then reported as xfail and not counted as failed.
known_fail() {
  local r
  for r in "$@"; do
    if [ "$r" = "$RUNTIME_NAME" ]; then
      echo "$RUNTIME_NAME" >"$CASEDIR/.xfail"
      echo "(known to fail on $RUNTIME_NAME)" >&2
    fi
  done
  return 0
}

# skip REASON: stop the case, report it skipped: only for a missing kernel feature on the host, or
# a case about something only sharness-runtime has when another runtime is under test. Never for a
# gap in our runtime (that case fails, or is known_fail for the runtime that lacks it).
skip() {
  echo "$*" >"$CASEDIR/.skip"
  exit 77
}

# audit_for_suite: the suite sets the kernel's audit switches ("$AUDIT_CTL" set enabled|rate_limit|backlog_limit N,
# over netlink: Landlock writes its audit records only while audit is enabled); what they were
# now ($AUDIT_WAS, $RATE_WAS, $BACKLOG_WAS) is put back when the suite's own shell exits.
AUDIT_CTL=$SHARNESS_SOURCE_DIR/conformance/tools/audit_ctl.py
audit_for_suite() {
  local st
  st=$(python3 "$AUDIT_CTL" get)
  AUDIT_WAS=$(sed -n 's/^enabled=\([0-9]*\).*/\1/p' <<<"$st")
  RATE_WAS=$(sed -n 's/.* rate_limit=\([0-9]*\).*/\1/p' <<<"$st")
  BACKLOG_WAS=$(sed -n 's/.* backlog_limit=\([0-9]*\).*/\1/p' <<<"$st")
  [ -n "$AUDIT_WAS" ] && [ -n "$RATE_WAS" ] && [ -n "$BACKLOG_WAS" ] ||
    { echo "cannot read the audit status (audit_ctl.py get)" >&2; exit 1; }
  # Only the suite's own shell restores and cleans up, never a case's subshell on its way out.
  trap '_st=$?; if [ "$BASHPID" = "$HOST_PID" ]; then _restore_audit; (exit $_st); _cleanup; fi' EXIT
}
_restore_audit() {
  python3 "$AUDIT_CTL" set backlog_limit "$BACKLOG_WAS"
  python3 "$AUDIT_CTL" set rate_limit "$RATE_WAS"
  python3 "$AUDIT_CTL" set enabled "$AUDIT_WAS"
}

# criu4: the path of a CRIU 4.0 or later (Debian 12's 3.17 fails `criu check` on newer kernels):
# criu in PATH when it is one (the trixie guest's 4.1.1; `criu check` says more, but takes 20 s
# under qemu's TCG), else Debian 13's fetched privately by scripts/criu-trixie.sh (the system is
# not changed). Fails when there is none.
criu4() {
  local v
  v=$(criu --version 2>/dev/null | sed -n 's/^Version: \([0-9]*\)\..*/\1/p')
  if [ -n "$v" ] && [ "$v" -ge 4 ]; then command -v criu; return 0; fi
  bash "$SHARNESS_SOURCE_DIR/scripts/criu-trixie.sh"
}

# static_tool SRC: build conformance/tools/SRC (a C file) with `cc -static` once per suite run and
# print the binary's path; skips the case when there is no compiler or static libc. Busybox
# roots have no libc, and a tool built here tests any runtime the same way.
static_tool() {
  local src=$SHARNESS_SOURCE_DIR/conformance/tools/$1 bin=$TMP/${1%.c}
  if [ ! -x "$bin" ]; then
    command -v cc >/dev/null 2>&1 || skip "no C compiler (cc) to build conformance/tools/$1"
    cc -static -O1 -o "$bin.tmp" "$src" >"$CASEDIR/cc.log" 2>&1 ||
      skip "cc -static failed (a static libc, libc6-dev, is needed): $(head -3 "$CASEDIR/cc.log")"
    mv "$bin.tmp" "$bin"
  fi
  echo "$bin"
}

# ---------------------------------------------------------------------------------------------
# Cases and cleanup

# Kill, by pid, processes left in this run's cgroups: only containers this suite started live there.
_kill_cgroup_procs() {
  local f pid dirs
  dirs=$(cgroup_dirs)
  [ -n "$dirs" ] || return 0
  while read -r f; do
    while read -r pid; do
      [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    done <"$f"
  done < <(find $dirs -name cgroup.procs 2>/dev/null)
  return 0
}

_delete_ids() {  # delete --force every container of FILES... and in `list -q`
  local id ids
  ids=$( { cat "$@" 2>/dev/null; rt list -q 2>/dev/null; } | sort -u)
  for id in $ids; do
    rt delete --force "$id" >/dev/null 2>&1 || true
  done
}

_rmdir_cgroups() {
  local d try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    for d in $(cgroup_dirs); do
      find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
    done
    [ -z "$(cgroup_dirs)" ] && return 0
    _kill_cgroup_procs
    sleep 0.1
  done
  echo "# warning: cgroup dirs left: $(cgroup_dirs | tr '\n' ' ')" >&2
}

_umount_tmp() {
  local m
  for m in $(awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

_cleanup() {
  local rc=$?
  # Only the suite's own shell cleans up: bash was seen running this EXIT trap in a case's
  # subshell as it exited (a skip's `exit 77`), which removed $TMP under the cases still to come
  # ("the case dir ... was removed while the case ran": cgroupv2 on this hybrid host, where every
  # case skips, and egress_door against runc).
  [ "$BASHPID" = "$HOST_PID" ] || return "$rc"
  trap - EXIT INT TERM
  _delete_ids "$TMP"/c*/.ids
  _kill_cgroup_procs
  _rmdir_cgroups
  _umount_tmp
  [ "$_RUN_EGRESS_WAS" = 1 ] || rmdir /run/sharness-egress 2>/dev/null || true
  if [ "${SHARNESS_KEEP:-0}" = 1 ]; then
    echo "# kept $TMP" >&2
  else
    rm -rf --one-file-system "$TMP"
  fi
  exit "$rc"
}
trap _cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# case_selected NAME: whether SHARNESS_CASES (a regex; unset or empty: every case) picks the case
# NAME. For set-up only some cases need: a suite makes a costly fixture only when a case that
# uses it will run (a guest list picks a few cases, and the python3 image is a debootstrap there).
case_selected() { [ -z "${SHARNESS_CASES:-}" ] || [[ $1 =~ $SHARNESS_CASES ]]; }

# _elapsed T0: seconds since T0 (an $EPOCHREALTIME value), e.g. 1.23s.
_elapsed() {
  local now=${EPOCHREALTIME/./} then=${1/./} us
  us=$((10#$now - 10#$then))
  printf '%d.%02ds' $((us / 1000000)) $((us % 1000000 / 10000))
}

# tcase NAME FUNC: run FUNC as one case in a subshell (set -e: any failing command fails it).
tcase() {
  local name=$1 fn=$2 rc wd done_pid t0 note="" how
  CASENUM=$((CASENUM + 1))
  CASEDIR=$TMP/c$CASENUM
  mkdir -p "$CASEDIR"
  if ! case_selected "$name"; then
    return 0
  fi
  t0=$EPOCHREALTIME
  (
    set -eE
    trap '_rc=$?; [ -e "$CASEDIR/.failed" ] || echo "FAIL: command failed (exit $_rc) at line $LINENO: $BASH_COMMAND" >&2; : >"$CASEDIR/.failed"' ERR
    "$fn"
  ) >"$CASEDIR/log" 2>&1 </dev/null &
  local cpid=$!
  sleep "$CASE_TIMEOUT" &
  wd=$!
  done_pid=""
  wait -n -p done_pid "$cpid" "$wd"
  rc=$?
  if [ "$done_pid" = "$cpid" ]; then
    # SIGKILL: a SIGTERM that reaches the watchdog before it has exec'd sleep (a case that ends at
    # once: a skip) runs the suite's TERM trap there, and so its EXIT trap, which tore down the
    # suite's temp dir and daemons under the next cases.
    kill -KILL "$wd" 2>/dev/null; wait "$wd" 2>/dev/null
  else
    kill -KILL "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null
    echo "FAIL: case timed out after ${CASE_TIMEOUT}s" >>"$CASEDIR/log"
    rc=124
  fi
  # The case's containers go now, so cases never see each other's.
  _delete_ids "$CASEDIR/.ids"
  _kill_cgroup_procs
  [ "$rc" = 0 ] && [ -e "$CASEDIR/.failed" ] && rc=1
  how=$(_elapsed "$t0")
  if [ "$rc" = 77 ] && [ -e "$CASEDIR/.skip" ]; then
    N_SKIP=$((N_SKIP + 1))
    echo "ok - $name # SKIP $(<"$CASEDIR/.skip")"
  elif [ "$rc" = 0 ]; then
    N_PASS=$((N_PASS + 1))
    [ -e "$CASEDIR/.xfail" ] && note=" # XPASS (marked known_fail for $RUNTIME_NAME)"
    echo "ok - $name$note"
  elif [ -e "$CASEDIR/.xfail" ]; then
    N_XFAIL=$((N_XFAIL + 1))
    XFAIL_CASES+=("$name")
    echo "xfail - $name # known to fail on $RUNTIME_NAME"
  else
    N_FAIL=$((N_FAIL + 1))
    FAILED_CASES+=("$name")
    echo "not ok - $name"
  fi
  if [ "$rc" != 0 ] || [ "${SHARNESS_VERBOSE:-0}" = 1 ]; then
    # A case dir gone under the suite was removed from outside (or by the suite's own EXIT trap run in the
    # watchdog before it exec'd sleep, as it was until the watchdog got SIGKILL).
    [ -e "$CASEDIR" ] || echo "#   the case dir $CASEDIR was removed while the case ran (by something outside this suite)"
    sed 's/^/#   /' "$CASEDIR/log" 2>/dev/null
  fi
  [ "${SHARNESS_VERBOSE:-0}" = 1 ] && echo "#   ($how)"
  return 0
}

# finish: print the summary; the last line is exactly "N passed, N failed". Exit 1 on failure.
finish() {
  local secs
  secs=$(_elapsed "$T_START")
  echo "# $SUITE against $RUNTIME: $N_XFAIL xfail, $N_SKIP skipped, $secs"
  echo "$N_PASS passed, $N_FAIL failed"
  [ "$N_FAIL" = 0 ]
  exit $?
}
