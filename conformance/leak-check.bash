# shellcheck shell=bash
# conformance/leak-check.bash: "nothing of this container is left on the host", for the suites
# that kill runtimes on purpose (suites/faults.sh) or race them (suites/concurrency.sh). Sourced
# after lib.sh. A container made with leak_bundle carries a token in its process's argv, so a
# process of it is found even outside its cgroup.

# leak_bundle ID: a bundle for ID (sets B) whose process stays until killed: `sh -c 'sleep 1000; :'`
# with argv[0] "ctr-ID"; its cgroup is ID under this run's parent.
leak_bundle() {
  B=$(new_bundle "b-$1" sh -c 'sleep 1000; :' "ctr-$1")
  _cgpath_for "$B" "$1"
}

# live_pids_in_cgroup PATH: live (not zombie) pids whose /proc/PID/cgroup names PATH or below
# (PATH: letters, digits, "-", "_", "/" only).
live_pids_in_cgroup() { _live $(grep -lsE -- "$1(/|\$)" /proc/[0-9]*/cgroup || true); }
# live_pids_with_arg ARG: live pids with an argv element equal to ARG.
live_pids_with_arg() { _live $(grep -lszxF -- "$1" /proc/[0-9]*/cmdline || true); }
_live() {  # /proc/PID/FILE...: the pids among them that are alive (not zombies), this shell excepted
  local f p
  for f in "$@"; do
    p=${f#/proc/}
    p=${p%%/*}
    [ "$p" != "$BASHPID" ] && [ "$p" != "$$" ] || continue
    grep -qs '^State:[[:space:]]*Z' "/proc/$p/status" && continue
    [ -d "/proc/$p" ] && echo "$p"
  done
  return 0
}

# assert_all_gone ID: no state dir, `state` fails, no cgroup dir in any hierarchy (every v1
# one and cgroup2), nothing mounted under this suite's temp dir, no live process in the
# container's cgroup (its path followed by a newline or a "/", so c-1 is not c-10), none with
# the container's token, no runtime (or clone of it, such as an init) still running on this
# suite's --root.
assert_all_gone() {
  local id=$1 d pids m
  [ ! -e "$STATE/$id" ] || fail "state dir left: $STATE/$id ($(ls -A "$STATE/$id" 2>&1 | tr '\n' ' '))"
  if rt state "$id" >/dev/null 2>&1; then fail "state $id still succeeds"; fi
  for d in $(cgroup_dirs "$id"); do fail "cgroup left: $d"; done
  m=$(awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)
  [ -z "$m" ] || fail "mounts left on the host: $m"
  pids=$( { live_pids_in_cgroup "$CGPARENT/$id"; live_pids_with_arg "ctr-$id"; live_pids_with_arg "$STATE"; } |
          sort -u)
  [ -z "$pids" ] || fail "processes left: $(for p in $pids; do echo "$p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done)"
  [ ! -e "$CASEDIR/.failed" ]
}
