#!/usr/bin/env bash
# Bad input: malformed, truncated, huge and deeply nested JSON, invalid UTF-8, a 100 MB config, a
# missing or unreadable bundle, relative paths where absolute ones are required, hooks that are
# missing or hang, ids, flags and signals that do not exist. Each must be a clear error: exit 1
# (never a crash or a hang), a message on stderr (for sharness-runtime: one that names the
# problem), and nothing left behind (no state, no cgroup, no process, not listed).
#
# SHARNESS_BAD_INPUT_TABLE=FILE appends one markdown table row per input to FILE (input, exit
# code, the message): docs/bad-input.md is made from that output.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

# the message of the last error line: msg="..." of a log line, else the line itself
message_of() {
  local line
  line=$(grep -v '^[[:space:]]*$' <<<"$1" | tail -1)
  if [[ $line =~ msg=\"(.*)\"$ ]]; then
    line=${BASH_REMATCH[1]}
    line=${line//\\\"/\"}
  fi
  line=${line//$CASEDIR\/b/BUNDLE}
  line=${line//$CASEDIR/DIR}
  line=${line//$TMP/TMP}
  echo "$line"
}

table_row() {  # INPUT RC MESSAGE
  [ -n "${SHARNESS_BAD_INPUT_TABLE:-}" ] || return 0
  local m=$3
  [ ${#m} -le 300 ] || m="${m:0:300}…"
  m=${m//|/\\|}
  m=$(tr -s ' ' <<<"$m")
  printf '| %s | %s | `%s` |\n' "$1" "$2" "$m" >>"$SHARNESS_BAD_INPUT_TABLE"
}

# refused INPUT REGEX SECONDS ID CMD...: CMD must exit 1 within SECONDS with a message (matching
# REGEX for sharness-runtime), and leave nothing of ID behind.
refused() {
  local input=$1 re=$2 secs=$3 id=$4 t0 took msg
  shift 4
  t0=$SECONDS
  _run_cmd "$@"
  took=$((SECONDS - t0))
  msg=$(message_of "$CMD_OUT")
  echo "$input: exit $CMD_RC after ${took}s: $msg"
  table_row "$input" "$CMD_RC" "$msg"
  [ "$CMD_RC" -lt 128 ] || fail "$input: the runtime crashed or was killed (exit $CMD_RC)"
  assert_eq 1 "$CMD_RC" "$input: exit code"
  [ -n "$msg" ] || fail "$input: no message on stderr"
  [ "$took" -le "$secs" ] || fail "$input: took ${took}s (limit ${secs}s)"
  if [ "$OURS" = 1 ] && [ -n "$re" ]; then
    assert_match "$msg" "$re" "$input: message"
  fi
  if [ -n "$id" ]; then
    rt delete --force "$id" >/dev/null 2>&1 || true  # a runtime that left it: still fail below
    assert_nothing_left "$id"
  fi
  [ ! -e "$CASEDIR/.failed" ]
}

# bundle_with JQ_FILTER [jq args]: a fresh busybox bundle (B) with the filter applied.
bundle_with() {
  B=$(new_bundle b true)
  [ -z "${1:-}" ] || cfg "$B" "$@"
}

# config_text TEXT: replace config.json by TEXT (verbatim).
config_text() { printf '%s' "$1" >"$B/config.json"; }

create_refused() {  # INPUT REGEX [SECONDS]
  local id
  id=$(newid bad)
  refused "$1" "$2" "${3:-10}" "$id" rt create --bundle "$B" --pid-file "$CASEDIR/$id.pid" "$id"
}

case_json_syntax() {
  local good
  bundle_with
  assert_control_runs "$B"
  good=$(<"$B/config.json")
  config_text '{"ociVersion": "1.0.2", "process": {"args": ["true"] "cwd": "/"}}'
  create_refused "malformed JSON (missing comma)" 'config\.json: invalid JSON: parse error'
  config_text "${good:0:$((${#good} / 2))}"
  create_refused "truncated JSON (first half of a valid config)" 'config\.json: invalid JSON: .*premature EOF'
  config_text ""
  create_refused "empty config.json (0 bytes)" 'config\.json: invalid JSON'
  config_text '[]'
  create_refused "top level is an array" 'config\.json: .*object'
  config_text '{"ociVersion": "1.0.2", "ociVersion": "1.0.2"}'
  create_refused "duplicate key" 'config\.json: ociVersion: duplicate key'
  printf '{"ociVersion": "1.0.2",\0 "x": 1}' >"$B/config.json"
  create_refused "NUL byte in the JSON text" 'config\.json: invalid JSON: contains a NUL byte'
  sed 's/"hostname": "sharness"/"hostname": "\xff\xfe"/' <<<"$good" >"$B/config.json"
  known_fail runc  # accepts invalid UTF-8 (Go's JSON decoder replaces it with U+FFFD)
  create_refused "invalid UTF-8 in a string (hostname \\xff\\xfe)" 'config\.json: invalid JSON: .*UTF8'
}

case_numbers() {
  bundle_with '.process.user.uid = 99999999999999999999999'
  create_refused "huge number (uid 99999999999999999999999)" 'process\.user\.uid'
  bundle_with '.process.user.uid = 4294967296'
  create_refused "uid 2^32 (out of uint32)" 'process\.user\.uid.*out of range'
  bundle_with '.process.user.uid = -1'
  create_refused "negative uid" 'process\.user\.uid'
  bundle_with '.process.user.uid = 1.5'
  create_refused "fractional uid" 'process\.user\.uid'
  bundle_with '.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 18446744073709551616, "soft": 1}]'
  create_refused "rlimit 2^64" 'process\.rlimits\[0\]\.hard'
  bundle_with '.linux.resources.memory = {"limit": 1e400}'
  create_refused "memory limit 1e400" 'linux\.resources\.memory\.limit'
}

case_huge_hostname() {
  # Was BUG-4: init's error (sethostname with the value) did not fit in one datagram and was
  # lost. Now refused at validation, with the JSON path (the kernel's limit is 64 bytes).
  bundle_with '.hostname = ("a" * 1000000)'
  create_refused "1 MB hostname" 'config\.json: hostname: longer than 64 bytes \(1000000\)'
  bundle_with '.hostname = ("a" * 65)'
  create_refused "hostname of 65 bytes" 'config\.json: hostname: longer than 64 bytes \(65\)'
  bundle_with '.domainname = ("a" * 65)'
  create_refused "domainname of 65 bytes" 'config\.json: domainname: longer than 64 bytes \(65\)'
}

case_huge_arg() {
  # init's error embeds the 20 MB name: it arrives cut (both ends kept), not lost (was BUG-4)
  bundle_with '.process.args = [("x" * 20000000)]'
  create_refused "20 MB process.args[0]" 'exec: "x+ \.\.\. \([0-9]+ bytes in all, cut\) \.\.\. x+": executable file not found'
}

deep() {  # N: N levels of nested arrays
  printf "%${1}s" "" | tr ' ' '['
  printf "%${1}s" "" | tr ' ' ']'
}

case_deep_nesting() {
  bundle_with
  local good
  good=$(<"$B/config.json")
  # in an unknown key (parsed, then ignored) and in a known one
  printf '%s' "${good%\}*}, \"x-deep\": $(deep 10000)}" >"$B/config.json"
  # a valid config with a deep unknown key may run: only a crash or hang fails
  _run_cmd rt run --bundle "$B" "$(newid deep)"
  echo "10000 levels in an unknown key: exit $CMD_RC: $(message_of "$CMD_OUT")"
  local m
  m=$(message_of "$CMD_OUT")
  [ "$CMD_RC" != 0 ] || m="(none: accepted, unknown keys are ignored; the container ran)"
  table_row "10000 levels of nesting in an unknown key (valid otherwise)" "$CMD_RC" "$m"
  [ "$CMD_RC" -lt 128 ] || fail "10000 levels: the runtime crashed (exit $CMD_RC)"
  printf '%s' "${good%\}*}, \"annotations\": {\"a\": $(deep 10000)}}" >"$B/config.json"
  create_refused "10000 levels of nesting in annotations" 'config\.json: invalid JSON: nested deeper than 100 levels'
}

case_nesting_limit() {
  # The limit is exact: 100 levels in all (the top-level object is one) are accepted, 101 not.
  bundle_with
  local good id
  good=$(<"$B/config.json")
  printf '%s' "${good%\}*}, \"x-deep\": $(deep 99)}" >"$B/config.json"
  id=$(newid deep)
  run_in "$B" "$id"
  table_row "100 levels of nesting in all, in an unknown key (the limit)" "$RC" \
    "$( [ "$RC" = 0 ] && echo "(none: accepted, the container ran)" || message_of "$ERR")"
  assert_rc 0 "100 levels of nesting"
  printf '%s' "${good%\}*}, \"x-deep\": $(deep 100)}" >"$B/config.json"
  known_fail runc  # Go's decoder allows 10000 levels
  create_refused "101 levels of nesting in all" 'config\.json: invalid JSON: nested deeper than 100 levels \(at byte [0-9]+\)'
}

case_deeper_nesting() {
  bundle_with
  local good
  good=$(<"$B/config.json")
  printf '%s' "${good%\}*}, \"annotations\": {\"a\": $(deep 100000)}}" >"$B/config.json"
  # Was BUG-2: 100000 levels (200 kB) overflowed the stack in json::check_duplicates (SIGSEGV)
  create_refused "100000 levels of nesting (200 kB file)" 'config\.json: invalid JSON: nested deeper than 100 levels'
}

case_huge_file() {
  bundle_with
  # a valid config followed by 100 MB of white space
  known_fail runc  # no size limit: reads the 100 MB and runs the container
  { cat "$B/config.json"; head -c 100000000 /dev/zero | tr '\0' ' '; } >"$B/config.json.big"
  mv "$B/config.json.big" "$B/config.json"
  create_refused "100 MB config.json (valid JSON + white space)" 'config\.json: larger than' 20
  rm -f "$B/config.json"
}

case_bundle() {
  local id
  id=$(newid bad)
  refused "missing bundle directory" 'bundle .*ENOENT' 10 "$id" rt create --bundle "$CASEDIR/no-such-bundle" "$id"
  mkdir -p "$CASEDIR/empty-bundle"
  refused "bundle without config.json" 'config\.json.*ENOENT' 10 "$id" rt create --bundle "$CASEDIR/empty-bundle" "$id"
  mkdir -p "$CASEDIR/dir-bundle/config.json"
  refused "config.json is a directory" 'config\.json.*EISDIR' 10 "$id" rt create --bundle "$CASEDIR/dir-bundle" "$id"
  mkdir -p "$CASEDIR/dangling-bundle"
  ln -s /nonexistent/config.json "$CASEDIR/dangling-bundle/config.json"
  refused "config.json is a dangling symlink" 'config\.json.*ENOENT' 10 "$id" rt create --bundle "$CASEDIR/dangling-bundle" "$id"
  bundle_with '.root.path = "no-such-rootfs"'
  create_refused "root.path does not exist" 'root\.path'
  bundle_with
  rm -rf "$B/rootfs" && : >"$B/rootfs"
  create_refused "root.path is a file" 'rootfs.*not a directory'
}

case_relative_paths() {
  bundle_with '.process.cwd = "tmp"'
  create_refused "relative process.cwd" 'process\.cwd: must be an absolute path'
  bundle_with '.mounts += [{"destination": "mnt", "type": "tmpfs", "source": "tmpfs"}]'
  known_fail runc  # 1.1 accepts a relative mount destination (taken relative to /)
  create_refused "relative mount destination" 'mounts\[[0-9]+\]\.destination: must be an absolute path'
  bundle_with '.hooks.prestart = [{"path": "hooks/x"}]'
  create_refused "relative hook path" 'hooks\.prestart\[0\]\.path: must be an absolute path'
  bundle_with '.linux.namespaces |= (map(select(.type != "uts")) + [{"type": "uts", "path": "proc/1/ns/uts"}])'
  create_refused "relative namespace path" 'linux\.namespaces\[[0-9]+\]\.path: must be an absolute path'
  bundle_with '.linux.devices = [{"path": "dev/foo", "type": "c", "major": 1, "minor": 3}]'
  create_refused "relative device path" 'linux\.devices\[0\]\.path: must be an absolute path'
  bundle_with '.linux.maskedPaths += ["relative/x"]'
  create_refused "relative masked path" 'linux\.maskedPaths\[[0-9]+\]: must be an absolute path'
  bundle_with '.linux.readonlyPaths += ["relative/y"]'
  create_refused "relative read-only path" 'linux\.readonlyPaths\[[0-9]+\]: must be an absolute path'
  bundle_with
  _run_cmd rt exec --cwd relative "$(newid none)" true
  table_row "exec --cwd relative (unknown container)" "$CMD_RC" "$(message_of "$CMD_OUT")"
  assert_eq 1 "$CMD_RC" "exec --cwd relative"
}

case_hooks() {
  bundle_with '.hooks.prestart = [{"path": "/nonexistent/hook"}]'
  create_refused "prestart hook that does not exist" 'prestart hook /nonexistent/hook.*ENOENT'
  bundle_with '.hooks.createRuntime = [{"path": "/bin/sh", "args": ["sh", "-c", "exit 3"]}]'
  create_refused "createRuntime hook that exits 3" 'createRuntime hook.*(3|exit)'
  bundle_with '.hooks.prestart = [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": 1}]'
  create_refused "prestart hook that hangs (sleep 30, timeout 1)" 'prestart hook /bin/sleep: timed out after 1 s' 8
  bundle_with '.hooks.prestart = [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": 0}]'
  create_refused "hook timeout 0" 'timeout'
  bundle_with '.hooks.prestart = [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": -5}]'
  create_refused "hook timeout -5" 'timeout'
}

case_process() {
  bundle_with '.process.args = []'
  create_refused "empty process.args" 'process\.args: must not be empty'
  bundle_with '.process.args = "true"'
  create_refused "process.args is a string" 'process\.args: expected an array'
  bundle_with '.process.env += [42]'
  create_refused "a number in process.env" 'process\.env\[[0-9]+\]: expected a string'
  bundle_with '.process.rlimits = [{"type": "RLIMIT_BOGUS", "hard": 1, "soft": 1}]'
  create_refused "unknown rlimit" 'unknown rlimit'
  bundle_with '.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 1, "soft": 2}]'
  create_refused "rlimit soft above hard" 'process\.rlimits\[0\]: soft limit 2 is greater than hard limit 1'
  bundle_with '.linux.namespaces += [{"type": "bogus"}]'
  create_refused "unknown namespace type" 'linux\.namespaces'
}

case_cli() {
  local id long
  bundle_with
  id=$(newid bad)
  refused "--preserve-fds abc" 'preserve-fds' 10 "$id" rt create --preserve-fds abc --bundle "$B" "$id"
  known_fail runc  # --preserve-fds -1 is accepted
  refused "--preserve-fds -1" 'preserve-fds' 10 "$id" rt create --preserve-fds -1 --bundle "$B" "$id"
  refused "--pid-file in a missing directory" 'pid' 10 "$id" rt create --pid-file "$CASEDIR/no/such/dir/pid" --bundle "$B" "$id"
  refused "unknown flag" 'flag provided but not defined' 10 "$id" rt create --bogus-flag --bundle "$B" "$id"
  refused "--bundle without its value" 'flag needs an argument|requires' 10 "" rt create --bundle
  long=$(printf '%2000s' "" | tr ' ' a)
  refused "container id of 2000 characters" 'invalid container id' 10 "" rt create --bundle "$B" "$long"
  refused "container id with a slash" 'invalid container id|id' 10 "" rt create --bundle "$B" "a/b"
  refused "two container ids" 'requires exactly 1 argument|id' 10 "" rt create --bundle "$B" one two
  refused "--console-socket without process.terminal" 'console' 10 "$id" rt create --console-socket "$CASEDIR/none.sock" --bundle "$B" "$id"
  refused "--log-format xml" 'log-format' 10 "" rt --log-format xml list
  refused "unknown command" 'unknown command' 10 "" rt frobnicate
  refused "state of an unknown container" 'does not exist' 10 "" rt state no-such-container
}

# without_fds CMD...: CMD with fds 3..9 closed (the caller has only stdio).
without_fds() { "$@" 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-; }
only_fd3() { "$@" 3</dev/null 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-; }

case_preserve_fds_not_open() {
  # Was BUG-3: the runtime's own fds took the free numbers and reached the container.
  local id
  bundle_with
  id=$(newid pfd)
  known_fail runc  # hands its own fds over (see cve_2024_21626.sh)
  refused "create --preserve-fds 3 from a caller with only stdio" \
    '^--preserve-fds 3: fd 3 is not open \(the caller must have fds 3\.\.5 open\)$' 10 "$id" \
    without_fds rt create --preserve-fds 3 --bundle "$B" "$id"
  refused "run --preserve-fds 2 with only fd 3 open" '^--preserve-fds 2: fd 4 is not open' 10 "$id" \
    only_fd3 rt run --preserve-fds 2 --bundle "$B" "$id"
  # the --log file, opened before the command runs, takes fd 3: still not the caller's
  refused "run --preserve-fds 1 with --log and no fd 3" '--preserve-fds 1: fd 3 is not open' 10 "$id" \
    without_fds rt --log "$CASEDIR/rt.log" run --preserve-fds 1 --bundle "$B" "$id"
  refused "create --preserve-fds 999999999" '--preserve-fds 999999999: above the open-files limit' 10 "$id" \
    rt create --preserve-fds 999999999 --bundle "$B" "$id"
  set_args "$B" sleep 600
  start_detached "$B" "$id"
  refused "exec --preserve-fds 2 from a caller with only stdio" '^--preserve-fds 2: fd 3 is not open' 10 "" \
    without_fds rt exec --preserve-fds 2 "$id" true
  assert_eq running "$(status_of "$id")" "the container after the refused exec"
}

case_signals() {
  local id s
  bundle_with
  set_args "$B" sleep 600
  id=$(newid sig)
  start_detached "$B" "$id"
  known_fail runc  # signal 0 is accepted (it only checks that the process exists)
  for s in SIGFOO FOO 0 65 99 "" 9x SIGRTMIN+40 sigkil; do
    refused "kill with signal '$s'" 'invalid signal' 10 "" rt kill "$id" "$s"
  done
  refused "kill with signal '-9' (a flag, not a signal)" 'flag provided but not defined|invalid signal' 10 "" rt kill "$id" -9
  assert_eq running "$(status_of "$id")" "the container after the bad signals"
  refused "kill of an unknown container" 'does not exist' 10 "" rt kill no-such-container KILL
}

tcase "malformed, truncated, empty, non-object, duplicate-key, NUL, invalid UTF-8 JSON" case_json_syntax
tcase "huge and out-of-range numbers" case_numbers
tcase "1 MB hostname" case_huge_hostname
tcase "20 MB process.args[0]" case_huge_arg
tcase "10000 levels of nesting" case_deep_nesting
tcase "100000 levels of nesting: an error, not a crash" case_deeper_nesting
tcase "nesting limit: 100 levels accepted, 101 refused" case_nesting_limit
tcase "100 MB config.json" case_huge_file
tcase "missing or unreadable bundle, bad rootfs" case_bundle
tcase "relative paths where absolute ones are required" case_relative_paths
tcase "hooks missing, failing, hanging (timeout), bad timeouts" case_hooks
tcase "bad process fields" case_process
tcase "bad flags, ids and commands" case_cli
tcase "--preserve-fds beyond the caller's open fds" case_preserve_fds_not_open
tcase "signals that do not exist" case_signals
finish
