#!/usr/bin/env bash
# Terminal: `create --console-socket` with process.terminal true sends the pty master over the
# socket (SCM_RIGHTS); inside, stdio is that pty (`tty` names it, `stty size` is consoleSize);
# text written to the master reaches the process and its output comes back. The same for
# `exec --tty --console-socket`. create with terminal true and no console socket, or a console
# socket without terminal, is refused with a clear error and leaves nothing behind.
#
# The other end of the socket is tests/tools/console_receiver.cpp: $CONSOLE_RECEIVER (CTest sets
# it to the built console-receiver); when unset the suite compiles it into its temp dir with g++.
. "$(dirname "$0")/../lib.sh"

RECEIVER=${CONSOLE_RECEIVER:-}
if [ -z "$RECEIVER" ]; then
  RECEIVER=$TMP/console-receiver
  g++ -std=gnu++23 -O1 -Wall -o "$RECEIVER" "$SHARNESS_SOURCE_DIR/tests/tools/console_receiver.cpp" ||
    { echo "cannot build console-receiver (set CONSOLE_RECEIVER)" >&2; exit 1; }
fi
[ -x "$RECEIVER" ] || { echo "console receiver not executable: $RECEIVER" >&2; exit 1; }

# What the container's process prints, in order: its tty, the size, whether each of 0/1/2 is a
# terminal, whether it has a controlling terminal (tty_nr, field 7 of /proc/self/stat), then the
# line it reads, echoed back. And whether /dev/console is that same pty (same device and inode).
PROBE='echo "tty=$(tty)"; echo "size=$(stty size)";
       for fd in 0 1 2; do [ -t $fd ] && echo "fd$fd=tty" || echo "fd$fd=notty"; done;
       set -- $(cat /proc/self/stat); echo "tty_nr=$7";
       t=$(tty); [ /dev/console -ef "$t" ] && echo "console=the-pty" || echo "console=not-the-pty";
       read -r line; echo "got:$line"'

# start_receiver ARGS...: console-receiver on $CASEDIR/console.sock in the background (stdout to
# recv.out, stderr to recv.err); waits for the socket to appear. RPID is its pid; it is killed
# by pid when the case ends.
start_receiver() {
  SOCK=$CASEDIR/console.sock
  "$RECEIVER" "$SOCK" "$@" >"$CASEDIR/recv.out" 2>"$CASEDIR/recv.err" </dev/null &
  RPID=$!
  trap '[ -z "${RPID:-}" ] || kill "$RPID" 2>/dev/null || true' EXIT
  local i
  for ((i = 0; i < 100; i++)); do
    [ -S "$SOCK" ] && return 0
    kill -0 "$RPID" 2>/dev/null || break
    sleep 0.05
  done
  fail "console receiver did not listen on $SOCK: $(<"$CASEDIR/recv.err")"
}

# wait_receiver: wait for the receiver; RRC is its exit code, ROUT its stdout without \r (the
# pty turns \n into \r\n).
wait_receiver() {
  RRC=0
  wait "$RPID" || RRC=$?
  RPID=""
  ROUT=$(tr -d '\r' <"$CASEDIR/recv.out")
  echo "receiver exit $RRC; stdout:"; sed 's/^/  | /' <<<"$ROUT"
  echo "receiver stderr:"; sed 's/^/  | /' "$CASEDIR/recv.err"
}

# terminal_bundle NAME: a bundle whose process runs PROBE on a terminal of 40 rows x 120 columns.
terminal_bundle() {
  new_bundle "$1" sh -c "$PROBE" >/dev/null
  cfg "$B" '.process.terminal = true | .process.consoleSize = {"height": 40, "width": 120}'
}

# created_on_console: create + start a terminal container with the receiver sending "hello";
# leaves the receiver's results in RRC / ROUT.
created_on_console() {
  local id
  id=$(newid tty)
  terminal_bundle b
  start_receiver --send $'hello\n' --expect got:hello --timeout 20
  must_create "$B" "$id" --console-socket "$SOCK"
  must_start "$id"
  wait_receiver
}

case_create_master_received() {
  created_on_console
  assert_eq 0 "$RRC" "receiver exit code (got the master and read until got:hello)"
  assert_line "$ROUT" '^winsize 40x120$' "window size of the received pty (TIOCGWINSZ on the master)"
}

case_create_inside_a_tty() {
  created_on_console
  assert_line "$ROUT" '^tty=/dev/(pts/[0-9]+|console)$' "tty inside"
  assert_line "$ROUT" '^size=40 120$' "stty size inside"
  assert_line "$ROUT" '^fd0=tty$' "stdin is the terminal"
  assert_line "$ROUT" '^fd1=tty$' "stdout is the terminal"
  assert_line "$ROUT" '^fd2=tty$' "stderr is the terminal"
  assert_line "$ROUT" '^tty_nr=[1-9][0-9]*$' "a controlling terminal (tty_nr)"
  # runtime-spec (config-linux, /dev/console): the pty is bind-mounted onto /dev/console
  assert_line "$ROUT" '^console=the-pty$' "/dev/console is the container's pty"
}

case_create_both_ways() {
  created_on_console
  assert_eq 0 "$RRC" "receiver exit code"
  # "hello" went in through the master, the process read it and its answer came back out
  assert_line "$ROUT" '^got:hello$' "the line read by the process, echoed back through the pty"
  # and nothing of it reached the runtime's own stdio (that is the container's only with no tty)
  assert_not_contains "$(cat "$CASEDIR"/tty-*.out)" got: "the runtime's stdout"
}

case_create_without_socket_refused() {
  local id
  terminal_bundle b
  # control: the bundle is fine with a console socket
  id=$(newid ctl)
  start_receiver --timeout 20
  must_create "$B" "$id" --console-socket "$SOCK"
  rt delete --force "$id" >/dev/null 2>&1 || true
  wait_receiver   # the container is gone: the master reads EOF
  assert_line "$ROUT" '^winsize 40x120$' "control: the master arrived"
  # without it: refused
  id=$(newid nosock)
  create_in "$B" "$id"
  assert_ne 0 "$RC" "exit code of create with terminal true and no --console-socket"
  assert_match "$ERR" '[Cc]onsole' "the error names the console socket"
  assert_match "$ERR" 'tty|terminal' "the error names the tty"
  assert_nothing_left "$id"
}

case_socket_without_terminal_refused() {
  local id
  new_bundle b sh -c 'echo ran' >/dev/null
  id=$(newid noterm)
  start_receiver --timeout 20
  create_in "$B" "$id" --console-socket "$SOCK"
  assert_ne 0 "$RC" "exit code of create --console-socket with process.terminal false"
  assert_match "$ERR" '[Cc]onsole|terminal|tty' "the error says why"
  assert_nothing_left "$id"
}

# running_plain: a started container without a terminal (init sleeps). Sets ID.
running_plain() {
  ID=$(newid run)
  new_bundle b sleep 600 >/dev/null
  start_detached "$B" "$ID"
}

case_exec_process_tty() {
  # what containerd does: exec --detach --process with terminal true and a consoleSize
  local pj=$CASEDIR/process.json
  running_plain
  jq -n --arg probe "$PROBE" '{terminal: true, consoleSize: {height: 40, width: 120},
      user: {uid: 0, gid: 0}, args: ["sh", "-c", $probe], env: ["PATH=/bin", "TERM=xterm"], cwd: "/",
      capabilities: {bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"]},
      noNewPrivileges: true}' >"$pj"
  start_receiver --send $'hello\n' --expect got:hello --timeout 20
  assert_ok rt exec --detach --pid-file "$CASEDIR/exec.pid" --process "$pj" --console-socket "$SOCK" "$ID"
  wait_receiver
  assert_eq 0 "$RRC" "receiver exit code"
  assert_line "$ROUT" '^winsize 40x120$' "window size of the exec's pty"
  assert_line "$ROUT" '^tty=/dev/pts/[0-9]+$' "tty inside the exec"
  assert_line "$ROUT" '^size=40 120$' "stty size inside the exec"
  assert_line "$ROUT" '^fd0=tty$' "stdin is the terminal"
  assert_line "$ROUT" '^fd1=tty$' "stdout is the terminal"
  assert_line "$ROUT" '^tty_nr=[1-9][0-9]*$' "a controlling terminal"
  assert_line "$ROUT" '^got:hello$' "input reached the exec'd process and its output came back"
}

case_exec_cli_tty() {
  # conmon-rs style: exec --tty --detach --console-socket ID CMD...
  running_plain
  start_receiver --send $'hello\n' --expect got:hello --timeout 20
  assert_ok rt exec --tty --detach --console-socket "$SOCK" "$ID" sh -c "$PROBE"
  wait_receiver
  assert_eq 0 "$RRC" "receiver exit code"
  assert_line "$ROUT" '^tty=/dev/pts/[0-9]+$' "tty inside the exec"
  assert_line "$ROUT" '^fd0=tty$' "stdin is the terminal"
  assert_line "$ROUT" '^fd2=tty$' "stderr is the terminal"
  assert_line "$ROUT" '^got:hello$' "input reached the exec'd process and its output came back"
}

case_exec_tty_needs_socket() {
  running_plain
  _run_cmd rt exec --tty --detach "$ID" true
  assert_ne 0 "$CMD_RC" "exit code of exec --tty --detach without --console-socket"
  assert_match "$CMD_OUT" '[Cc]onsole' "the error names the console socket"
  # control: without --tty it runs
  assert_ok rt exec --detach "$ID" true
}

tcase "create --console-socket: the receiver gets the pty master (40x120)" case_create_master_received
tcase "create --console-socket: inside, tty is a pts, stty size 40 120, stdio on it" case_create_inside_a_tty
tcase "create --console-socket: input through the master reaches the process, output comes back" case_create_both_ways
tcase "create with terminal true and no --console-socket is refused" case_create_without_socket_refused
tcase "create --console-socket with terminal false is refused" case_socket_without_terminal_refused
tcase "exec --detach --process (terminal, consoleSize) --console-socket" case_exec_process_tty
tcase "exec --tty --detach --console-socket ID CMD" case_exec_cli_tty
tcase "exec --tty --detach without --console-socket is refused" case_exec_tty_needs_socket
finish
