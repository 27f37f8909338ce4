#!/usr/bin/env bash
# Adversarial suite ("security settings we accept but do not apply" and "smaller
# holes"): a client asks for a security setting the runtime would not apply (an AppArmor
# profile on a host without AppArmor, an SELinux label) and must be refused, never run with the
# setting silently dropped; a client that varies its seccomp profile must not fill the disk
# under the state root. Each attempt has its control: the same request without the setting runs.
#
# Not here, because no client controls them (unit and fault tests instead):
#   - the KMS clock: tests/unit/test_kms_worker.cpp (a failing or zero clock refuses every
#     request, allowlisted or not; kms/worker.cpp fails closed);
#   - the gate's re-freeze: tests/unit/test_kms_gate.cpp (a freeze that fails in the kernel
#     after the worker answered: the worker is SIGKILLed, the answer dropped);
#   - the pin cache on coarse-ctime kernels: tests/unit/test_pin_cache.cpp (a faked clock in the
#     tick of the last write: the digest is neither kept nor handed to init; such an entry is not
#     believed).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

# Whether the kernel answers for AppArmor (as features and the launch plan decide).
aa_on() { cat /proc/self/attr/apparmor/current >/dev/null 2>&1; }

# A loaded AppArmor profile to ask for, on a host that has AppArmor.
aa_profile() {
  sed -n 's/^\([^ ]*\) (enforce)$/\1/p' /sys/kernel/security/apparmor/profiles 2>/dev/null | grep -v '^unconfined$' | head -1
}

# process_json BUNDLE JQ: the bundle's process, args replaced, then JQ applied; prints its path.
process_json() {
  local f=$CASEDIR/process-$RANDOM.json
  jq ".process | .args = [\"sh\", \"-c\", \"echo ran\"] | .terminal = false | $2" "$1/config.json" >"$f"
  echo "$f"
}

# ex ID ARGS...: `exec` (foreground); sets OUT, ERR, RC.
ex() {
  RC=0
  rt exec "$@" >"$CASEDIR/exec.out" 2>"$CASEDIR/exec.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/exec.out")
  ERR=$(<"$CASEDIR/exec.err")
  return 0
}

case_apparmor_profile_in_config() {
  local b p
  b=$(new_bundle b sh -c 'echo ran; cat /proc/self/attr/current 2>/dev/null; true') || return 1
  run_in "$b"
  assert_run_ok "control: the bundle without a profile runs ($ERR)" || return 1
  assert_contains "$OUT" ran || return 1
  [ "$OURS" = 1 ] || return 0
  if aa_on; then
    p=$(aa_profile)
    [ -n "$p" ] || skip "AppArmor is on but no profile is loaded in enforce mode"
    cfg "$b" '.process.apparmorProfile = $p' --arg p "$p"
    run_in "$b"
    assert_run_ok "a loaded profile ($ERR)" || return 1
    assert_contains "$OUT" "$p (enforce)" "the container's process runs under it" || return 1
    held "config.json process.apparmorProfile (AppArmor host)" "applied: the container's label is $p"
  else
    cfg "$b" '.process.apparmorProfile = "docker-default"'
    run_in "$b"
    assert_ne 0 "$RC" "a profile on a host without AppArmor" || return 1
    assert_not_contains "$OUT" ran "the process never ran" || return 1
    assert_contains "$ERR" "process.apparmorProfile" || return 1
    assert_contains "$ERR" "AppArmor is not enabled on this host" || return 1
    held "config.json process.apparmorProfile on a host without AppArmor" "refused: AppArmor is not enabled"
  fi
}

case_apparmor_profile_in_exec() {
  local b id pj
  b=$(new_bundle b sleep 100) || return 1
  id=$(newid aa-exec)
  start_detached "$b" "$id" || return 1
  pj=$(process_json "$b" 'del(.apparmorProfile)')
  ex --process "$pj" "$id"
  assert_eq 0 "$RC" "control: exec --process without a profile ($ERR)" || return 1
  assert_contains "$OUT" ran || return 1
  [ "$OURS" = 1 ] || return 0
  aa_on && skip "the AppArmor-host case is case_apparmor_profile_in_config's"
  pj=$(process_json "$b" '.apparmorProfile = "docker-default"')
  ex --process "$pj" "$id"
  assert_ne 0 "$RC" "exec --process with a profile on a host without AppArmor" || return 1
  assert_not_contains "$OUT" ran "the process never ran" || return 1
  assert_contains "$ERR" "AppArmor is not enabled on this host" || return 1
  ex --apparmor docker-default "$id" sh -c 'echo ran'
  assert_ne 0 "$RC" "exec --apparmor on a host without AppArmor" || return 1
  assert_not_contains "$OUT" ran "the process never ran" || return 1
  assert_contains "$ERR" "AppArmor is not enabled on this host" || return 1
  held "exec --process / --apparmor asking for a profile without AppArmor" "refused: AppArmor is not enabled"
}

case_selinux_labels() {
  local b
  b=$(new_bundle b sh -c 'echo ran') || return 1
  run_in "$b"
  assert_run_ok "control: the bundle without labels runs ($ERR)" || return 1
  [ "$OURS" = 1 ] || return 0
  cfg "$b" '.process.selinuxLabel = "system_u:system_r:container_t:s0:c1,c2"'
  run_in "$b"
  assert_ne 0 "$RC" "process.selinuxLabel" || return 1
  assert_not_contains "$OUT" ran "the process never ran" || return 1
  assert_contains "$ERR" "process.selinuxLabel: SELinux labels are not supported" || return 1
  cfg "$b" 'del(.process.selinuxLabel) | .linux.mountLabel = "system_u:object_r:container_file_t:s0:c1,c2"'
  run_in "$b"
  assert_ne 0 "$RC" "linux.mountLabel" || return 1
  assert_contains "$ERR" "linux.mountLabel: SELinux labels are not supported" || return 1
  held "config.json process.selinuxLabel / linux.mountLabel" "refused: SELinux labels not supported"
}

case_selinux_label_in_exec() {
  local b id pj
  b=$(new_bundle b sleep 100) || return 1
  id=$(newid se-exec)
  start_detached "$b" "$id" || return 1
  pj=$(process_json "$b" 'del(.selinuxLabel)')
  ex --process "$pj" "$id"
  assert_eq 0 "$RC" "control: exec --process without a label ($ERR)" || return 1
  [ "$OURS" = 1 ] || return 0
  pj=$(process_json "$b" '.selinuxLabel = "system_u:system_r:container_t:s0:c1,c2"')
  ex --process "$pj" "$id"
  assert_ne 0 "$RC" "exec --process with selinuxLabel" || return 1
  assert_not_contains "$OUT" ran "the process never ran" || return 1
  assert_contains "$ERR" "SELinux labels are not supported" || return 1
  held "exec --process with selinuxLabel" "refused: SELinux labels not supported"
}

# The compiled-seccomp cache under --root: a state root that already holds 300 entries of 32 KiB
# (earlier clients, each with its own profile: 9.4 MiB) and a client that varies its profile
# again. Held: at most 256 entries and 8 MiB remain, the oldest pruned, the client's new ones kept.
case_seccomp_cache_filled() {
  local b i dir n bytes mine now f
  b=$(new_bundle b sh -c 'echo ran') || return 1
  [ "$OURS" = 1 ] || { run_in "$b"; assert_run_ok "control: runs ($ERR)"; return; }
  dir=$STATE/.cache/seccomp
  mkdir -p "$dir" && chmod 0700 "$STATE/.cache" "$dir"
  now=$(date +%s)
  for ((i = 0; i < 300; i++)); do
    f=$dir/$(printf '%064x' "$i").bpf
    head -c 32768 /dev/zero >"$f"
    touch -d "@$((now - 3600 + i))" "$f"  # written an hour ago, entry 0 first
  done
  chmod 0600 "$dir"/*.bpf
  for ((i = 0; i < 3; i++)); do
    cfg "$b" '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["acct"], "action": "SCMP_ACT_ERRNO", "errnoRet": $e}]}' \
      --argjson e $((2000 + 10 * CASENUM + i))
    run_in "$b"
    assert_run_ok "run $i with its own profile ($ERR)" || return 1
  done
  n=$(find "$dir" -maxdepth 1 -type f | wc -l)
  bytes=$(find "$dir" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  mine=$(find "$dir" -maxdepth 1 -type f -name '*.bpf' ! -name '0000*' | wc -l)
  # control: the cache is in use (the client's three programs were stored)
  assert_eq 3 "$mine" "the client's own entries" || return 1
  [ "$n" -le 256 ] || { fail "$n entries under $dir (bound 256)"; return 1; }
  [ "$bytes" -le $((8 << 20)) ] || { fail "$bytes bytes under $dir (bound 8 MiB)"; return 1; }
  [ -e "$dir/$(printf '%064x' 0).bpf" ] && { fail "the oldest entry was kept"; return 1; }
  held "a client varying its seccomp profile over a full cache" "bounded: $n entries, $bytes bytes"
}

tcase "config.json process.apparmorProfile: applied with AppArmor, refused without" case_apparmor_profile_in_config
tcase "exec --process / --apparmor with a profile: refused without AppArmor" case_apparmor_profile_in_exec
tcase "config.json SELinux labels (process and mount): refused" case_selinux_labels
tcase "exec --process with an SELinux label: refused" case_selinux_label_in_exec
tcase "the seccomp cache under --root stays bounded when a client varies its profile" case_seccomp_cache_filled
adversary_finish
