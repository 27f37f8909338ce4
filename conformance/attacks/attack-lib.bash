# shellcheck shell=bash
# conformance/attacks/attack-lib.bash: helpers shared by the attack suites, sourced after
# ../lib.sh. Not a suite itself (CTest registers conformance/attacks/*.sh only).
#
# Every attack suite drives the runtime through lib.sh's `rt` (private --root, cgroups under
# this run's sharness-test-* parent) and checks the HOST afterwards: a host directory stays
# empty, nothing is mounted on it, a host file keeps its content.

# host_dir NAME: a fresh directory on the host (in the case dir, outside every rootfs) that an
# attack tries to reach. Prints its path.
host_dir() {
  local d=$CASEDIR/host-$1
  mkdir -p "$d"
  echo "$d"
}

# assert_host_dir_untouched DIR [WHAT]: DIR is empty and nothing is mounted on or under it
# in the host's mount table (this suite's mount namespace is the host's).
assert_host_dir_untouched() {
  local d=$1 what=${2:-host dir} m
  m=$(awk -v d="$d" '$5 == d || index($5, d "/") == 1 { print $5 " (" $9 ")" }' /proc/self/mountinfo)
  if [ -n "$m" ]; then
    fail "$what: something is mounted on the host at: $m"
    # never leave it behind
    awk -v d="$d" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
      while read -r p; do umount -l "$p" 2>/dev/null; done
  fi
  if [ -n "$(ls -A "$d" 2>/dev/null)" ]; then
    fail "$what: files appeared on the host in $d: $(ls -A "$d" | head -20 | tr '\n' ' ')"
  fi
  [ ! -e "$CASEDIR/.failed" ]
}

# no_pid_ns BUNDLE: drop the pid namespace (the container shares the caller's).
no_pid_ns() { cfg "$1" '.linux.namespaces |= map(select(.type != "pid"))'; }

# no_dev_tmpfs BUNDLE: no tmpfs on /dev: the image's own /dev is what the container gets, so
# whatever the image planted there (symlinks) is what the runtime meets.
no_dev_tmpfs() { cfg "$1" '.mounts |= map(select(.destination != "/dev"))'; }

# start_racer SCRIPT ARGS...: run a perl loop in the background (on the host, not in any
# container); sets RACER_PID. stop_racer kills it by pid.
start_racer() {
  perl -e "$1" "${@:2}" >/dev/null 2>&1 &
  RACER_PID=$!
}
stop_racer() {
  [ -n "${RACER_PID:-}" ] || return 0
  kill -KILL "$RACER_PID" 2>/dev/null || true
  wait "$RACER_PID" 2>/dev/null || true
  RACER_PID=""
}

# flip_racer PATH TARGET: PATH flips between an empty directory and a symlink to TARGET as
# fast as perl can, until stop_racer. The classic mount-destination race (CVE-2021-30465).
start_flip_racer() {
  # shellcheck disable=SC2016
  start_racer 'my ($p, $t) = @ARGV; $SIG{TERM} = sub { exit 0 };
    while (1) { rmdir $p; unlink $p; mkdir $p; rmdir $p; unlink $p; symlink $t, $p; }' "$1" "$2"
}

# console_receiver: path of a console-socket receiver (the other end of --console-socket).
# Preference: $CONSOLE_RECEIVER (CTest passes the built tool) or $SHARNESS_CONSOLE_RECEIVER; a built `console-receiver` next to the runtime or in
# PATH; tests/tools/console_receiver.cpp compiled with g++ into the suite's temp dir; last, an
# inline python3 receiver. Prints the command (may be several words), or fails.
console_receiver() {
  local c src=$SHARNESS_SOURCE_DIR/tests/tools/console_receiver.cpp
  for c in "${CONSOLE_RECEIVER:-}" "${SHARNESS_CONSOLE_RECEIVER:-}" "$(dirname "$SHARNESS_RUNTIME_ORIG")/console-receiver" \
           "$(command -v console-receiver 2>/dev/null)" "$TMP/console-receiver"; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  if [ -f "$src" ] && command -v g++ >/dev/null 2>&1 &&
     g++ -std=c++20 -O1 -o "$TMP/console-receiver" "$src" >"$TMP/console-receiver.log" 2>&1; then
    echo "$TMP/console-receiver"
    return 0
  fi
  if command -v python3 >/dev/null 2>&1; then
    cat >"$TMP/console-receiver.py" <<'EOF'
import os, socket, sys, select, time, array
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
tmp = path + ".tmp"
s.bind(tmp); s.listen(1); os.rename(tmp, path)
timeout = 10.0
if "--timeout" in sys.argv: timeout = float(sys.argv[sys.argv.index("--timeout") + 1])
s.settimeout(timeout)
c, _ = s.accept()
fds = array.array("i")
msg, anc, _, _ = c.recvmsg(4096, socket.CMSG_SPACE(4))
for lvl, typ, data in anc:
    fds.frombytes(data[:4])
print("winsize 0x0", flush=True)
m = fds[0]
end = time.time() + timeout
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if not r: continue
    try: d = os.read(m, 4096)
    except OSError: break
    if not d: break
    sys.stdout.write(d.decode(errors="replace")); sys.stdout.flush()
os.unlink(path)
EOF
    echo "python3 $TMP/console-receiver.py"
    return 0
  fi
  return 1
}
SHARNESS_RUNTIME_ORIG=$RUNTIME
