#!/usr/bin/env bash
# CVE-2024-21626 ("Leaky Vessels"): a runtime fd to a host directory leaks into the container
# process, and process.cwd = /proc/self/fd/N makes the container start with its cwd on the host.
#
# - process.cwd and exec --cwd set to /proc/self/fd/N for N in 3..15: the runtime refuses, or the
#   process starts inside the container (its cwd is reachable from the container's / by the path
#   getcwd gives, and `ls ..` shows the container's files), never on the host.
# - the fds open in the container's process at execve are exactly 0, 1, 2 plus the fds asked
#   for with --preserve-fds (run and exec, with and without --preserve-fds).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

# What the container prints for a cwd check: ESCAPE if the cwd is not the container's.
CWD_PROBE='p=$(pwd -P 2>/dev/null); echo "cwd=$p";
  case $p in /*) ;; *) echo ESCAPE-unreachable-cwd ;; esac;
  [ -e /.container-marker ] || echo ESCAPE-no-marker;
  if [ -d "$p" ] && [ "$(stat -c %d:%i "$p")" = "$(stat -c %d:%i .)" ]; then echo cwd-inside; else echo ESCAPE-cwd-not-reachable; fi;
  ls -a .. | tr "\n" " "; echo'

# check_cwd_result WHAT: after a run/exec whose process was CWD_PROBE.
check_cwd_result() {
  if [ "$RC" != 0 ]; then
    echo "$1: refused (exit $RC): ${ERR:0:200}"
    assert_not_contains "$OUT" ESCAPE "$1 output"
    return 0
  fi
  echo "$1: ran: $OUT"
  assert_not_contains "$OUT" ESCAPE "$1"
  assert_contains "$OUT" cwd-inside "$1"
}

case_run_cwd_proc_self_fd() {
  local b n
  b=$(new_bundle b sh -c "$CWD_PROBE")
  : >"$b/rootfs/.container-marker"
  assert_control_runs "$b"
  assert_contains "$OUT" cwd-inside "control"
  for n in $(seq 3 15); do
    cfg "$b" '.process.cwd = $c' --arg c "/proc/self/fd/$n"
    run_in "$b"
    check_cwd_result "run with process.cwd=/proc/self/fd/$n"
  done
}

case_create_start_cwd_proc_self_fd() {
  # create and start separately: init holds the start socket, the state dir's fd, ... meanwhile
  local b n id
  b=$(new_bundle b sh -c "$CWD_PROBE")
  : >"$b/rootfs/.container-marker"
  for n in 3 4 5 6 7 8; do
    cfg "$b" '.process.cwd = $c' --arg c "/proc/self/fd/$n"
    id=$(newid cs$n)
    create_in "$b" "$id"
    if [ "$RC" = 0 ]; then
      rt start "$id" >"$CASEDIR/start-$n.out" 2>&1 || RC=$?
      ERR=$(<"$CASEDIR/start-$n.out")
      [ "$RC" = 0 ] && { wait_status "$id" stopped 5 || true; }
    fi
    OUT=$(cat "$CASEDIR/$id.out" 2>/dev/null)
    # a runtime may refuse in init after `start` returned: then the program never printed
    [ "$RC" = 0 ] && [ -z "$OUT" ] && { RC=refused-in-init; ERR=$(cat "$CASEDIR/$id.err"); }
    check_cwd_result "create/start with process.cwd=/proc/self/fd/$n"
  done
}

case_exec_cwd_proc_self_fd() {
  local b id n
  b=$(new_bundle b sleep 600)
  : >"$b/rootfs/.container-marker"
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec "$id" sh -c "$CWD_PROBE"
  assert_contains "$CMD_OUT" cwd-inside "control exec"
  for n in $(seq 3 15); do
    _run_cmd rt exec --cwd "/proc/self/fd/$n" "$id" sh -c "$CWD_PROBE"
    RC=$CMD_RC OUT=$CMD_OUT ERR=$CMD_OUT
    check_cwd_result "exec --cwd /proc/self/fd/$n"
  done
}

# The fds of the container's process itself: it is `ls -l /proc/self/fd`, execve'd by the
# runtime (no shell in between: a shell adds fds of its own for pipes and redirections). ls's
# own directory fd is closed before it reads the links, so it has no " -> target": dropped.
FD_ARGS=(ls -l /proc/self/fd)
fd_lines() { sed -n 's/.* \([0-9][0-9]*\) -> \(.*\)/\1 -> \2/p' <<<"$1"; }

fd_numbers() { fd_lines "$1" | awk '{ print $1 }' | sort -n | tr '\n' ' ' | sed 's/ $//'; }

case_fds_run() {
  local b f3=$CASEDIR/preserved-3 f4=$CASEDIR/preserved-4 id
  echo three >"$f3"; echo four >"$f4"
  b=$(new_bundle b "${FD_ARGS[@]}")
  run_in "$b"
  assert_rc 0
  echo "run: $OUT"
  assert_eq "0 1 2" "$(fd_numbers "$OUT")" "fds of a run container"
  id=$(newid pres)
  _cgpath_for "$b" "$id"
  RC=0
  rt run --preserve-fds 2 --bundle "$b" "$id" >"$CASEDIR/p.out" 2>"$CASEDIR/p.err" </dev/null 3<"$f3" 4<"$f4" || RC=$?
  OUT=$(<"$CASEDIR/p.out")
  echo "run --preserve-fds 2: $OUT"
  assert_rc 0
  assert_eq "0 1 2 3 4" "$(fd_numbers "$OUT")" "fds with --preserve-fds 2"
  assert_line "$(fd_lines "$OUT")" "^3 -> $f3\$" "fd 3"
  assert_line "$(fd_lines "$OUT")" "^4 -> $f4\$" "fd 4"
}

case_fds_exec() {
  local b id f3=$CASEDIR/preserved-3 f4=$CASEDIR/preserved-4
  echo three >"$f3"; echo four >"$f4"
  b=$(new_bundle b sleep 600)
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec "$id" "${FD_ARGS[@]}"
  echo "exec: $CMD_OUT"
  assert_eq "0 1 2" "$(fd_numbers "$CMD_OUT")" "fds of an exec'd process"
  _run_cmd rt exec --preserve-fds 2 "$id" "${FD_ARGS[@]}" 3<"$f3" 4<"$f4"
  echo "exec --preserve-fds 2: $CMD_OUT"
  assert_eq "0 1 2 3 4" "$(fd_numbers "$CMD_OUT")" "fds of an exec'd process with --preserve-fds 2"
  assert_line "$(fd_lines "$CMD_OUT")" "^3 -> $f3\$" "fd 3"
  assert_line "$(fd_lines "$CMD_OUT")" "^4 -> $f4\$" "fd 4"
}

case_preserve_fds_beyond_callers() {
  # --preserve-fds 3 from a caller that has only stdio open: the runtime's own fds must not
  # take the numbers 3..5 and reach the container (refusing is fine, as is passing nothing).
  local b id out bad
  b=$(new_bundle b "${FD_ARGS[@]}")
  id=$(newid beyond)
  _cgpath_for "$b" "$id"
  RC=0
  rt run --preserve-fds 3 --bundle "$b" "$id" >"$CASEDIR/b.out" 2>"$CASEDIR/b.err" </dev/null \
    3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&- || RC=$?
  out=$(<"$CASEDIR/b.out")
  echo "run --preserve-fds 3 (rc $RC): $out $(<"$CASEDIR/b.err")"
  bad=$(fd_lines "$out" | grep -vE '^[012] -> ' || true)
  # runc 1.1.5 hands over its own O_PATH fd of the host's /sys/fs/cgroup and its epoll fd
  known_fail runc
  assert_eq "" "$bad" "runtime fds that reached the container (run)"
  # ours refuses before it opens anything of its own
  [ "$RUNTIME_NAME" != sharness-runtime ] ||
    assert_match "$(<"$CASEDIR/b.err")" '--preserve-fds 3: fd 3 is not open' "run refused"
  b=$(new_bundle b2 sleep 600)
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec --preserve-fds 3 "$id" "${FD_ARGS[@]}" 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-
  echo "exec --preserve-fds 3 (rc $CMD_RC): $CMD_OUT"
  bad=$(fd_lines "$CMD_OUT" | grep -vE '^[012] -> ' || true)
  assert_eq "" "$bad" "runtime fds that reached the container (exec)"
  [ "$RUNTIME_NAME" != sharness-runtime ] ||
    assert_match "$CMD_OUT" '--preserve-fds 3: fd 3 is not open' "exec refused"
}

tcase "process.cwd=/proc/self/fd/N (3..15) with run: refused or inside" case_run_cwd_proc_self_fd
tcase "process.cwd=/proc/self/fd/N with create+start: refused or inside" case_create_start_cwd_proc_self_fd
tcase "exec --cwd /proc/self/fd/N (3..15): refused or inside" case_exec_cwd_proc_self_fd
tcase "run: only stdio, plus exactly the --preserve-fds ones" case_fds_run
tcase "exec: only stdio, plus exactly the --preserve-fds ones" case_fds_exec
tcase "--preserve-fds beyond the caller's open fds leaks no runtime fd" case_preserve_fds_beyond_callers
finish
