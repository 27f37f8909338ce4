#!/usr/bin/env bash
# CVE-2025-52565: while the console is set up (process.terminal true, --console-socket), a runtime
# that bind-mounts /dev/pts/N onto /dev/console by path can be made to mount a procfs file
# (/proc/sys/kernel/core_pattern) there, or over it, when /dev/pts/N or /dev/console is a
# symlink in the image, giving the container a writable view of a host sysctl.
#
# The image plants /dev/console and /dev/pts/0..7 as symlinks to core_pattern (and, without a
# devpts mount, /dev/pts/ptmx as one too). Expectation: create fails cleanly, or the container
# gets a working pty and nothing of procfs is mounted at /dev/console or on core_pattern; the
# host's core_pattern is unchanged. The check is on mounts and file systems (no write is tried).
#
# The console socket's other end is tests/tools/console_receiver.cpp (built console-receiver, or
# compiled here with g++), else an inline python3 receiver: socat is not installed on a fresh
# Debian 12 and is not needed (see attack-lib.bash: console_receiver).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

CORE=/proc/sys/kernel/core_pattern
CORE_BEFORE=$(cat $CORE)
RECEIVER=$(console_receiver) || { echo "FAIL: no console receiver (no g++, no python3)" >&2; exit 1; }
echo "# console receiver: $RECEIVER"

CONSOLE_PROBE='echo "tty=$(tty)"; grep -E " /dev/console | /proc/sys/kernel/core_pattern " /proc/self/mountinfo | sed "s/^/mount: /";
  [ -L /dev/console ] && echo "console is the image symlink -> $(readlink /dev/console) (nothing mounted there)";
  echo "stdin fs=$(stat -L -f -c %T /proc/self/fd/0)"; echo console-probe-done'

# stop_receiver PID: let the receiver drain the pty (it exits at EOF), then stop it by pid.
stop_receiver() {
  local i
  for ((i = 0; i < 30; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# plant ROOTFS: the symlinks of the attack.
plant() {
  local r=$1 n
  mkdir -p "$r/dev/pts"
  ln -sf $CORE "$r/dev/console"
  for n in 0 1 2 3 4 5 6 7; do ln -sf $CORE "$r/dev/pts/$n"; done
}

# console_run BUNDLE ID: run --detach with a console socket; sets RC, OUT (what the
# receiver read from the pty), ERR.
console_run() {
  local b=$1 id=$2 sock=$CASEDIR/console-$2.sock
  $RECEIVER "$sock" --timeout 10 >"$CASEDIR/recv-$id.out" 2>"$CASEDIR/recv-$id.err" &
  local rp=$!
  for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.05; done
  _cgpath_for "$b" "$id"
  RC=0
  # --detach: runc refuses a console socket on a foreground run
  rt run --detach --console-socket "$sock" --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  ERR=$(<"$CASEDIR/$id.err")
  if [ "$RC" = 0 ]; then
    for _ in $(seq 100); do [ "$(status_of "$id")" = running ] || break; sleep 0.1; done
  fi
  stop_receiver "$rp"
  OUT=$(tr -d '\r' <"$CASEDIR/recv-$id.out")
  echo "run exit $RC; pty said:"; echo "$OUT"; echo "${ERR:0:300}"
}

check_console() {
  assert_eq "$CORE_BEFORE" "$(cat $CORE)" "host core_pattern"
  if [ "$RC" != 0 ]; then
    rt delete --force "$1" >/dev/null 2>&1 || true
    assert_nothing_left "$1"
    return
  fi
  assert_contains "$OUT" console-probe-done "the container's output through the pty"
  # a mount at /dev/console must be the pty (devpts); nothing may be mounted on core_pattern
  local mounts
  mounts=$(grep '^mount: ' <<<"$OUT" || true)
  assert_not_contains "$mounts" " /proc/sys/kernel/core_pattern " "a mount on core_pattern"
  assert_not_contains "$mounts" "- proc" "a procfs mount at /dev/console"
  assert_not_contains "$OUT" "stdin fs=proc" "the process's terminal is a procfs file"
}

terminal_bundle() {
  B=$(new_bundle b sh -c "$CONSOLE_PROBE")
  cfg "$B" '.process.terminal = true'
}

case_control() {
  local id
  terminal_bundle
  id=$(newid ctl)
  console_run "$B" "$id"
  assert_rc 0
  assert_contains "$OUT" "tty=/dev/pts/" "control: the process has a pty"
  assert_contains "$OUT" "stdin fs=devpts" "control"
}

case_image_dev_symlinks() {
  # the image's own /dev (no tmpfs) with the symlinks, a devpts mounted on /dev/pts as usual
  local id
  terminal_bundle
  no_dev_tmpfs "$B"
  plant "$B/rootfs"
  mknod -m 666 "$B/rootfs/dev/null" c 1 3 2>/dev/null || true
  # runc 1.1.5 follows /dev/console and bind-mounts the pty over the container's core_pattern
  known_fail runc
  id=$(newid img)
  console_run "$B" "$id"
  check_console "$id"
}

case_image_dev_no_devpts() {
  # no devpts mount either: /dev/pts/ptmx and /dev/pts/N are the image's symlinks
  local id
  terminal_bundle
  no_dev_tmpfs "$B"
  cfg "$B" '.mounts |= map(select(.destination != "/dev/pts"))'
  plant "$B/rootfs"
  ln -sf $CORE "$B/rootfs/dev/pts/ptmx"
  ln -sf pts/ptmx "$B/rootfs/dev/ptmx"
  mknod -m 666 "$B/rootfs/dev/null" c 1 3 2>/dev/null || true
  id=$(newid nodevpts)
  console_run "$B" "$id"
  check_console "$id"
}

case_dev_tmpfs_console_symlink() {
  # the usual /dev tmpfs, and a /dev/console symlink in the image under it (hidden)
  local id
  terminal_bundle
  plant "$B/rootfs"
  id=$(newid tmpfs)
  console_run "$B" "$id"
  assert_rc 0
  check_console "$id"
}

case_exec_tty() {
  # exec --tty into a running container whose image /dev has the symlinks
  local id sock rp
  B=$(new_bundle b sleep 600)
  no_dev_tmpfs "$B"
  plant "$B/rootfs"
  mknod -m 666 "$B/rootfs/dev/null" c 1 3 2>/dev/null || true
  id=$(newid ex)
  create_in "$B" "$id"
  if [ "$RC" != 0 ]; then
    echo "create refused: $ERR"; assert_nothing_left "$id"; return
  fi
  must_start "$id"
  sock=$CASEDIR/exec.sock
  $RECEIVER "$sock" --timeout 10 >"$CASEDIR/recv-exec.out" 2>"$CASEDIR/recv-exec.err" &
  rp=$!
  for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.05; done
  RC=0
  rt exec --tty --console-socket "$sock" "$id" sh -c "$CONSOLE_PROBE" >"$CASEDIR/exec.out" 2>"$CASEDIR/exec.err" </dev/null || RC=$?
  stop_receiver "$rp"
  OUT=$(tr -d '\r' <"$CASEDIR/recv-exec.out")
  ERR=$(<"$CASEDIR/exec.err")
  echo "exec exit $RC; pty said:"; echo "$OUT"; echo "${ERR:0:300}"
  assert_eq "$CORE_BEFORE" "$(cat $CORE)" "host core_pattern"
  if [ "$RC" = 0 ]; then
    assert_contains "$OUT" console-probe-done "exec output through the pty"
    local mounts
    mounts=$(grep '^mount: ' <<<"$OUT" || true)
    assert_not_contains "$mounts" " /proc/sys/kernel/core_pattern " "a mount on core_pattern"
    assert_not_contains "$mounts" "- proc" "a procfs mount at /dev/console"
    assert_not_contains "$OUT" "stdin fs=proc" "the exec'd process's terminal"
  fi
  return 0
}

tcase "control: a terminal container gets a pty" case_control
tcase "image /dev/console and /dev/pts/N -> core_pattern: no procfs console" case_image_dev_symlinks
tcase "no devpts mount, /dev/pts/ptmx -> core_pattern: refused or no procfs console" case_image_dev_no_devpts
tcase "/dev tmpfs over an image with console symlinks" case_dev_tmpfs_console_symlink
tcase "exec --tty into an image with console symlinks" case_exec_tty
finish
