#!/usr/bin/env bash
# Denials explained (docs/denials.md): under harsh, a syscall seccomp refuses and a file Landlock
# refuses each leave a JSON line in the container's record, naming the bound and the policy field
# that would allow it, streamed by `events --denials ID`. Each has a control: the same attempt
# succeeds where the bound is lifted, and then leaves no such line. Audit off, the record says
# Landlock's denials are not recorded (never silence).
#
# Landlock writes its audit records only while audit is enabled: the suite enables it
# (lib.sh audit_for_suite) and puts back what it found on exit.
# Only sharness-runtime has a denials record: against another runtime every case skips.
. "$(dirname "$0")/../lib.sh"

HARSH=$SHARNESS_SOURCE_DIR/policies/harsh.json
DENIALS=denials.jsonl
RT_BASE=("${RT_EXTRA[@]}")
audit_for_suite

with_policy() { RT_EXTRA=("${RT_BASE[@]}" --policy "$1"); }

# derive NAME JQ_FILTER: harsh.json with id NAME and the filter applied, in $CASEDIR.
derive() {
  jq --arg id "$1" ".id = \$id | $2" "$HARSH" >"$CASEDIR/$1.json" || { fail "jq on harsh.json: $2"; return 1; }
  echo "$CASEDIR/$1.json"
}

ours_only() { [ "$RUNTIME_NAME" = sharness-runtime ] || skip "the denials record is sharness-runtime's"; }

# denials ID: the container's record (the container has stopped: events prints it and ends).
denials() { rt events --denials "$1"; }

# run_to_end BUNDLE ID [POLICY]: create and start under POLICY (default harsh), until it stops;
# its output is in $CASEDIR/ID.out.
run_to_end() {
  with_policy "${3:-$HARSH}"
  must_create "$1" "$2"
  rt start "$2"
  wait_status "$2" stopped 20
}

# secret_bundle: a bundle that cats /data/secret, a file outside harsh's rules.
secret_bundle() {
  local b
  b=$(new_bundle b sh -c 'cat /data/secret; echo "cat $?"')
  mkdir -p "$b/rootfs/data"
  echo s3cret >"$b/rootfs/data/secret"
  echo "$b"
}

case_seccomp_denial() {
  ours_only
  local b id rec line
  python3 "$AUDIT_CTL" set enabled 1
  b=$(new_bundle b sh -c 'unshare -m true; echo "unshare $?"')
  # Control: unconfined (no policy, CAP_SYS_ADMIN), the same call succeeds.
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'
  run_in "$b"
  assert_eq "unshare 0" "$OUT" "unshare -m without a policy"
  id=$(newid h)
  run_to_end "$b" "$id"
  assert_eq "unshare 1" "$(<"$CASEDIR/$id.out")" "unshare -m under harsh"
  rec=$(denials "$id")
  line=$(jq -c 'select(.kind == "denial" and .syscall == "unshare")' <<<"$rec" | head -1)
  [ -n "$line" ] || fail "no denial record for unshare; the record: $rec"
  assert_eq seccomp "$(jq -r .bound <<<"$line")" "bound"
  assert_eq syscalls.allow "$(jq -r .field <<<"$line")" "field"
  assert_eq errno "$(jq -r .action <<<"$line")" "action"
  assert_eq /bin/busybox "$(jq -r .exe <<<"$line")" "exe"
  assert_match "$(jq -r .pid <<<"$line")" '^[1-9][0-9]*$' "pid"
  assert_match "$(jq -r .time <<<"$line")" '^20[0-9-]+T[0-9:.]+Z$' "time"
  assert_contains "$(jq -r .allow <<<"$line")" 'add "unshare" to syscalls.allow' "what would allow it"
  # Only the container's own denials: nothing from the runtime or the host, no clone3 fallback.
  assert_eq "" "$(jq -c 'select(.kind == "denial" and .syscall == "clone3")' <<<"$rec")" "clone3's ENOSYS is not a denial"
}

case_landlock_denial() {
  ours_only
  local b id rec line p
  python3 "$AUDIT_CTL" set enabled 1
  b=$(secret_bundle)
  id=$(newid h)
  run_to_end "$b" "$id"
  assert_eq "cat 1" "$(<"$CASEDIR/$id.out")" "cat of a file outside harsh's files"
  rec=$(denials "$id")
  line=$(jq -c 'select(.kind == "denial" and .bound == "landlock" and .path == "/data/secret")' <<<"$rec" | head -1)
  [ -n "$line" ] || fail "no Landlock denial for /data/secret; the record: $rec"
  assert_eq fs.read_file "$(jq -r .access <<<"$line")" "access"
  assert_eq files "$(jq -r .field <<<"$line")" "field"
  assert_eq 'add "/data/secret": ["read_file"] to files' "$(jq -r .allow <<<"$line")" "what would allow it"
  assert_eq /bin/busybox "$(jq -r .exe <<<"$line")" "exe"
  # Control: the rule it names, added, lets the read through and leaves no denial for it.
  p=$(derive harsh-data '.files["/data/secret"] = ["read_file"]')
  id=$(newid c)
  run_to_end "$b" "$id" "$p"
  assert_eq $'s3cret\ncat 0' "$(<"$CASEDIR/$id.out")" "cat with the suggested rule"
  assert_eq "" "$(denials "$id" | jq -c 'select(.kind == "denial" and .path == "/data/secret")')" "no denial with the rule"
}

case_audit_off_said() {
  ours_only
  local b id rec
  python3 "$AUDIT_CTL" set enabled 0
  b=$(secret_bundle)
  id=$(newid off)
  run_to_end "$b" "$id"
  assert_eq "cat 1" "$(<"$CASEDIR/$id.out")" "still refused: Landlock holds with audit off"
  rec=$(denials "$id")
  assert_contains "$(jq -r 'select(.kind == "notice") | .detail' <<<"$rec")" "Landlock denials are not recorded" \
    "the record says what it cannot see"
  assert_eq "" "$(jq -c 'select(.bound == "landlock")' <<<"$rec")" "no Landlock line (audit off)"
  # Control: audit on, the same run has no such notice.
  python3 "$AUDIT_CTL" set enabled 1
  id=$(newid on)
  run_to_end "$b" "$id"
  assert_eq "" "$(denials "$id" | jq -c 'select(.kind == "notice")')" "no notice with audit on"
}

case_no_record_without_policy() {
  ours_only
  local b id
  b=$(new_bundle b true)
  id=$(newid p)
  must_create "$b" "$id"
  assert_fail rt events --denials "$id"
  assert_contains "$CMD_OUT" "has no denials record" "the error says why"
}


case_loss_reported() {
  ours_only
  local b id rec n
  python3 "$AUDIT_CTL" set enabled 1
  # 40 refused calls, one process each (harsh's pids limit is for processes at once).
  b=$(new_bundle b sh -c 'i=0; while [ $i -lt 40 ]; do unshare -m true 2>/dev/null; i=$((i+1)); done; echo done')
  # Control: without a rate limit every one is recorded, and no loss.
  id=$(newid all)
  run_to_end "$b" "$id"
  rec=$(denials "$id")
  n=$(jq -c 'select(.kind == "denial" and .syscall == "unshare")' <<<"$rec" | wc -l)
  assert_eq 40 "$n" "denials recorded without a rate limit"
  assert_eq "" "$(jq -c 'select(.kind == "loss")' <<<"$rec")" "no loss without a rate limit"
  # The kernel's rate limit (1 record a second, host-wide, for these few seconds) drops most:
  # the record says so, with how many.
  python3 "$AUDIT_CTL" set rate_limit 1
  id=$(newid limited)
  run_to_end "$b" "$id"
  sleep 1.2  # the reader reads the lost counter every second
  python3 "$AUDIT_CTL" set rate_limit "$RATE_WAS"
  assert_loss "$(denials "$id")"
  # The same in a foreground run --keep, whose runtime reads the record itself (and a reader of
  # its own drains it at the end).
  python3 "$AUDIT_CTL" set rate_limit 1
  id=$(newid limited-fg)
  run_in "$b" "$id" --keep
  python3 "$AUDIT_CTL" set rate_limit "$RATE_WAS"
  assert_eq "0 done" "$RC $OUT" "run --keep's exit code and output"
  assert_loss "$(denials "$id")"
}

# assert_loss RECORD: fewer than the 40 denials, and a loss line that says the rate limit, with a count.
assert_loss() {
  local n
  n=$(jq -c 'select(.kind == "denial")' <<<"$1" | wc -l)
  [ "$n" -lt 40 ] || fail "the rate limit dropped nothing ($n denials): the case tests nothing"
  assert_match "$(jq -r 'select(.kind == "loss") | .lost' <<<"$1" | head -1)" '^[1-9][0-9]*$' "a loss line with a count"
  assert_contains "$(jq -r 'select(.kind == "loss") | .detail' <<<"$1")" "rate limit" "what the loss was"
}

# fg_run BUNDLE ID [RUN_ARGS...]: `run` in the foreground of a runtime call in this shell's
# background (stdin /dev/null); $FG is its pid (timeout's).
fg_run() {
  local b=$1 id=$2
  shift 2
  _cgpath_for "$b" "$id" || return 1
  rt run --bundle "$b" "$@" "$id" </dev/null >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" &
  FG=$!
}

# fg_wait ID: the foreground run $FG ended, with exit 0.
fg_wait() {
  local rc=0
  wait "$FG" || rc=$?
  assert_eq 0 "$rc" "run $1's exit code; its stderr: $(<"$CASEDIR/$1.err")"
}

# A foreground run reads the record itself while it waits for init: the denial is in the record
# while the container still runs, the runtime holds the record open, and no reader process exists.
# The last refusal, just before init exits, is there too (--keep: the record is drained).
foreground_records() {
  local b id pid rec
  python3 "$AUDIT_CTL" set enabled 1
  b=$(new_bundle "b-$1" sh -c 'unshare -m true; echo "unshare $?"; while [ ! -e /go ]; do sleep 0.05; done; unshare -m true; exit 0')
  with_policy "$HARSH"
  if [ "$1" = terminal ]; then
    # harsh lets no terminal through (devices cgroup, Landlock): this one does, as run's pty proxy needs.
    cfg "$b" '.process.terminal = true'
    with_policy "$(derive harsh-tty '.devices += ["ptmx", "pts"] | .files["/dev/pts"] = ["read_file", "write_file", "ioctl_dev"]')"
  fi
  id=$(newid "fg-$1")
  fg_run "$b" "$id" --keep
  wait_grep "$STATE/$id/$DENIALS" '"syscall":"unshare"' 20
  pid=$(find_forked sharness-runtim "$id")
  [ -n "$pid" ] || fail "no runtime process found for run $id"
  [ -n "$(find "/proc/$pid/fd" -lname "$STATE/$id/$DENIALS" 2>/dev/null)" ] ||
    fail "run $id (pid $pid) does not hold its record open: someone else writes it"
  assert_eq "" "$(find_forked sharness:denial "$id")" "a reader process beside the foreground run $id"
  touch "$b/rootfs/go"
  fg_wait "$id"
  assert_contains "$(tr -d '\r' <"$CASEDIR/$id.out")" "unshare 1" "unshare -m under harsh"
  rec=$(denials "$id")
  assert_eq 2 "$(jq -c 'select(.kind == "denial" and .syscall == "unshare")' <<<"$rec" | wc -l)" \
    "unshare denials in the record of run --keep (the second one just before init exits); the record: $rec"
}

case_foreground_run_records() {
  ours_only
  foreground_records plain
  foreground_records terminal
}

case_foreground_run_forks_no_reader() {
  ours_only
  local b id i
  b=$(new_bundle b sh -c 'while [ ! -e /go ]; do sleep 0.05; done')
  # Control: a created container has a reader process of its own while it runs.
  with_policy "$HARSH"
  id=$(newid d)
  must_create "$b" "$id"
  for ((i = 0; i < 100; i++)); do  # the forked reader names itself soon after create returns
    [ -n "$(find_forked sharness:denial "$id")" ] && break
    sleep 0.05
  done
  [ "$i" -lt 100 ] || fail "no reader process beside created $id within 5 s: the case tests nothing"
  must_start "$id"
  touch "$b/rootfs/go"
  wait_status "$id" stopped 20
  rm "$b/rootfs/go"
  # A foreground run has none, while it runs nor after (without --keep the record goes with it).
  id=$(newid fg)
  fg_run "$b" "$id"
  wait_status "$id" running 20
  assert_eq "" "$(find_forked sharness:denial "$id")" "a reader process beside the foreground run $id"
  touch "$b/rootfs/go"
  fg_wait "$id"
  assert_eq "" "$(find_forked sharness:denial "$id")" "a reader process after the foreground run $id"
  [ ! -e "$STATE/$id" ] || fail "run $id left its state dir"
}

tcase "seccomp: a refused unshare is recorded with its bound and field" case_seccomp_denial
tcase "landlock: a refused read is recorded with its path, bound and field" case_landlock_denial
tcase "audit off: the record says Landlock denials are not recorded" case_audit_off_said
tcase "no policy: no record, and events --denials says so" case_no_record_without_policy
tcase "foreground run: the runtime records denials itself, with or without a terminal" case_foreground_run_records
tcase "foreground run: no reader process is forked (create has one)" case_foreground_run_forks_no_reader
tcase "loss: records the kernel dropped (rate limit) are reported as loss, with a count (create, foreground run)" case_loss_reported
finish
