#!/usr/bin/env bash
# harsh on this kernel's Landlock ABI (docs/landlock.md "Older kernels: stand-ins"): what the kernel
# lacks is held by another of harsh's bounds, or refused. Written to run on any host and to say the
# same thing the policy layer says for that ABI; its point is the older kernels (the bookworm guest:
# Debian 12's 6.1, ABI 2), where harsh (bestEffort false, rights up to ABI 6) refused to run at all:
#   - harsh runs busybox, and `policy explain` lists exactly the stand-ins this ABI needs (none on
#     ABI 6+; on ABI 2 truncate, ioctl_dev, bind_tcp, connect_tcp, abstract_unix_socket, signal), and
#     create's warning says the same;
#   - a policy that needs a right with no stand-in on this kernel (harsh with network "loopback"
#     below ABI 4: no empty namespace for the TCP rules) is refused, naming the right and the Linux
#     release that has it; its control (the same with bestEffort true) runs and says what is left out;
#   - `hello` under harsh holds every attempt it makes, and names the stand-in below ABI 6.
#
# Only our runtime has policies: for runc and crun every case is skipped (a case about something only
# sharness-runtime has).
. "$(dirname "$0")/../lib.sh"

# harsh as installed on this host: its exec pin is this host's /bin/busybox (the bundles' busybox)
HARSH=$(installed_policies)/harsh.json

ours_only() { [ "$OURS" = 1 ] || skip "$RUNTIME_NAME has no policies (no --policy, no \`policy explain\`)"; }

# The kernel's Landlock ABI, as the runtime reports it.
abi() { rt features | jq -r '.annotations["org.sharness.landlock.abi"]'; }

# The stand-in lines harsh needs on ABI $1 (docs/landlock.md's table), one per line.
expected_stand_ins() {
  local a=$1
  [ "$a" -lt 3 ] && echo "landlock fs right truncate (ABI 3): stood in for by the read-only root and binds"
  [ "$a" -lt 5 ] && echo "landlock fs right ioctl_dev (ABI 5): stood in for by the devices cgroup"
  [ "$a" -lt 4 ] && echo "landlock net right bind_tcp (ABI 4): stood in for by the empty network namespace"
  [ "$a" -lt 4 ] && echo "landlock net right connect_tcp (ABI 4): stood in for by the empty network namespace"
  [ "$a" -lt 6 ] && echo "landlock scope abstract_unix_socket (ABI 6): stood in for by the network namespace"
  [ "$a" -lt 6 ] && echo "landlock scope signal (ABI 6): stood in for by the pid namespace"
  return 0
}

derive() {
  jq --arg id "$1" ".id = \$id | $2" "$HARSH" >"$CASEDIR/$1.json" || { fail "jq on harsh.json: $2"; return 1; }
  echo "$CASEDIR/$1.json"
}

case_harsh_runs_with_stand_ins() {
  ours_only
  local a b id want got log
  a=$(abi)
  assert_match "$a" '^[0-9]+$' "features: the Landlock ABI" || return 1
  [ "$a" -ge 2 ] || skip "this kernel has Landlock ABI $a: harsh needs refer (ABI 2), which nothing stands in for"
  RC=0
  CMD_OUT=$(rt policy explain "$HARSH" 2>&1) || RC=$?
  assert_rc 0 "policy explain harsh on ABI $a: $CMD_OUT" || return 1
  assert_not_contains "$CMD_OUT" "[MISSING]" "explain on ABI $a" || return 1
  want=$(expected_stand_ins "$a")
  got=$(grep -oE 'landlock (fs right|net right|scope) [a-z_]+ \(ABI [0-9]\): stood in for by [a-z -]*[a-z]' <<<"$CMD_OUT" || true)
  assert_eq "$want" "$got" "the stand-ins explain lists on ABI $a" || return 1
  # The container runs under harsh, and create's warning names the same stand-ins.
  b=$(new_bundle harsh sh -c 'echo "$SHARNESS_POLICY_ID"')
  id=$(newid harsh)
  log=$CASEDIR/$id.log
  RC=0
  rt --log "$log" --policy "$HARSH" run --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" || RC=$?
  assert_rc 0 "harsh run on ABI $a: $(cat "$CASEDIR/$id.err")" || return 1
  assert_eq "harsh" "$(head -1 "$CASEDIR/$id.out")" "the policy id inside" || return 1
  if [ "$a" -lt 6 ]; then
    assert_contains "$(cat "$log" "$CASEDIR/$id.err" 2>/dev/null)" "stood in for (kernel lacks):" "create's warning" || return 1
    assert_contains "$(cat "$log" "$CASEDIR/$id.err" 2>/dev/null)" "signal (ABI 6) by the pid namespace" "create's warning" || return 1
  else
    assert_not_contains "$(cat "$log" "$CASEDIR/$id.err" 2>/dev/null)" "stood in for" "no stand-in on ABI $a" || return 1
  fi
}

case_no_stand_in_is_refused() {
  ours_only
  local a p lax b id right linux
  a=$(abi)
  if [ "$a" -lt 4 ]; then  # network loopback: the TCP rules have no empty namespace to stand in
    p=$(derive loopback '.network = "loopback"')
    right="landlock net right bind_tcp needs Landlock ABI 4 (Linux 6.7); this kernel has ABI $a"
  elif [ "$a" -lt 6 ]; then  # the host's network: nothing keeps abstract sockets in
    p=$(derive hostnet '.network = "host"')
    right="landlock scope abstract_unix_socket needs Landlock ABI 6 (Linux 6.12); this kernel has ABI $a"
  else
    skip "this kernel has Landlock ABI $a: every right a policy can ask for is there"
  fi
  b=$(new_bundle refused true)
  id=$(newid refused)
  RC=0
  rt --policy "$p" run --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" || RC=$?
  assert_ne 0 "$RC" "a policy needing what ABI $a lacks, with nothing standing in, must be refused" || return 1
  assert_contains "$(<"$CASEDIR/$id.err")" "$right" "the refusal names the right and the kernel" || return 1
  # Control: the same with bestEffort true runs, and explain says what is left out.
  lax=$(jq '.bestEffort = true' "$p" >"$CASEDIR/lax.json" && echo "$CASEDIR/lax.json")
  b=$(new_bundle lax sh -c 'echo "$SHARNESS_POLICY_ID"')
  id=$(newid lax)
  RC=0
  rt --policy "$lax" run --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" || RC=$?
  assert_rc 0 "control: best effort runs: $(<"$CASEDIR/$id.err")" || return 1
  CMD_OUT=$(rt policy explain "$lax" 2>&1) || true
  assert_match "$(grep -F -- "$right" <<<"$CMD_OUT" || true)" '^ *\[MISSING\] .*: NOT enforced\)$' \
    "explain says what best effort leaves out: $CMD_OUT" || return 1
}

case_hello_holds_everything() {
  ours_only
  local out rc=0
  out=$(rt --policy "$HARSH" hello 2>&1) || rc=$?
  assert_eq 0 "$rc" "hello under harsh (exit $rc): $out" || return 1
  local held
  held=$(grep -oE '[0-9]+ of [0-9]+ attempts held' <<<"$out" || true)
  assert_match "$held" '^[1-9][0-9]* of [0-9]+ attempts held$' "the summary: $out" || return 1
  assert_eq "${held%% *}" "$(cut -d' ' -f3 <<<"$held")" "every attempt held: $out" || return 1
  # and it says which bound stood in for what this kernel lacks (harsh scopes signals: ABI 6)
  local a stood="standing in for Landlock's signal scope, ABI 6, on this kernel's ABI"
  a=$(abi)
  if [ "$a" -lt 6 ]; then
    assert_contains "$out" "pid namespace: the host pid does not exist in here ($stood $a)" \
      "hello names the stand-in on ABI $a" || return 1
  else
    assert_not_contains "$out" "$stood" "no stand-in on ABI $a" || return 1
  fi
}

tcase "harsh runs on this kernel's Landlock ABI, and explain and create name each stand-in" case_harsh_runs_with_stand_ins
tcase "a right with no stand-in on this kernel is refused, naming the right and the Linux release" case_no_stand_in_is_refused
tcase "hello under harsh holds every attempt it makes, naming the stand-ins this kernel needs" case_hello_holds_everything
finish
