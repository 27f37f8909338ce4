#!/usr/bin/env bash
# guest-cases.sh GUEST LIST: run inside a guest (by conformance/vm/run.sh through scripts/vm.sh):
# every line of LIST, as TAP, one `ok N - GUEST/...` or `not ok N - GUEST/...` per case.
#
# LIST format, one entry a line ('#' starts a comment):
#   conformance/suites/NAME.sh [REGEX]   a suite (path from the source tree), with an optional
#                                        SHARNESS_CASES regex (the rest of the line); each of its
#                                        cases is one TAP line GUEST/NAME/CASE
#   run NAME COMMAND...                  a command (bash -c, in the source tree); exit 0 is ok
# SHARNESS_RUNTIME (the binary under test, shared from the host), SHARNESS_SOURCE_DIR and
# CONSOLE_RECEIVER come from the caller. Exit code 1 if any case failed or a suite failed to run.
# After each entry it prints "# entry-done K" (K counts entries from 1). SHARNESS_VM_RESUME="K N"
# (run.sh, after the guest's kernel died under it) skips the first K entries and numbers the TAP
# lines from N + 1.
set -uo pipefail
guest=$1 list=$2
src=${SHARNESS_SOURCE_DIR:?}
cd "$src" || exit 1
# A list the guest cannot read (outside the shared tree) would run no entry and pass: fail instead.
[ -r "$list" ] || { echo "not ok 1 - $guest: no case list $list in the guest (only the source tree is shared)"; echo "1..1"; exit 1; }
read -r skip n <<<"${SHARNESS_VM_RESUME:-0 0}"
entry=0 failed=0
tap() { n=$((n + 1)); echo "$1 $n - $guest/$2"; }
echo "# $guest: $(uname -r), $(stat -f -c %T /sys/fs/cgroup) at /sys/fs/cgroup, LSMs $(cat /sys/kernel/security/lsm 2>/dev/null), PID 1 $(cat /proc/1/comm)"
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%%#*}
  read -r first rest <<<"$line"
  [ -n "${first:-}" ] || continue
  entry=$((entry + 1))
  [ "$entry" -gt "$skip" ] || continue
  t0=$SECONDS
  if [ "$first" = run ]; then
    read -r name cmd <<<"$rest"
    out=$(bash -c "$cmd" 2>&1); rc=$?
    if [ $rc = 0 ]; then tap ok "$name"; else tap "not ok" "$name"; failed=1; fi
    if [ $rc != 0 ] || [ "${SHARNESS_VERBOSE:-0}" = 1 ]; then
      sed 's/^/#   /' <<<"$out"; echo "#   (exit code $rc)"
    fi
    echo "# $guest/$name: $((SECONDS - t0)) s"
    echo "# entry-done $entry $n"
    continue
  fi
  suite=$(basename "$first" .sh)
  [ -f "$first" ] || { tap "not ok" "$suite # no such suite: $first"; failed=1; continue; }
  cases=0 suite_rc=0 bad=$failed failed=0
  while IFS= read -r l; do
    case $l in
      "ok - "*|"not ok - "*|"xfail - "*)
        cases=$((cases + 1))
        status=${l%% - *} name=${l#* - }
        case $status in
          "not ok") tap "not ok" "$suite/$name"; failed=1 ;;
          xfail) tap ok "$suite/$name # TODO xfail" ;;
          *) tap ok "$suite/$name" ;;
        esac ;;
      "suite-exit "*) suite_rc=${l#suite-exit } ;;
      *) echo "#   $l" ;;
    esac
  done < <(SHARNESS_CASES=$rest bash "$first" 2>&1; echo "suite-exit $?")
  echo "# $guest/$suite: $cases cases, $((SECONDS - t0)) s"
  if [ $cases = 0 ]; then tap "not ok" "$suite # ran no case (exit code $suite_rc)"; failed=1
  elif [ "$suite_rc" != 0 ] && [ $failed = 0 ]; then tap "not ok" "$suite # exit code $suite_rc"; failed=1; fi
  [ $bad = 1 ] && failed=1
  echo "# entry-done $entry $n"
done <"$list"
[ "$entry" -gt 0 ] || { tap "not ok" "$list # names no entry"; failed=1; }
echo "1..$n"
exit $failed
