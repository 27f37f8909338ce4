#!/usr/bin/env bash
# Landlock and the exec allowlist (docs/landlock.md): every check made from INSIDE a real
# container, each with a control that shows the same attempt succeeding without the bound under
# test, so no case passes by accident:
#   - files: reads and writes outside the rules fail with EACCES while the listed paths work; a rename
#     across rule boundaries (refer) fails with EXDEV; truncating a file without the truncate right fails;
#   - ports: a TCP connect to an unlisted port fails, a listed one succeeds (listeners in the container's
#     network namespace, started from outside it); binding an unlisted port fails;
#   - scope: a signal to a process outside the Landlock domain, and a connect to an abstract UNIX socket
#     created outside it, fail;
#   - exec allowlist: an allowlisted binary runs, a copy of it in a writable directory does not, a memfd
#     cannot be executed (vm.memfd_noexec=2; and harsh's seccomp), pinned files are read-only, every
#     writable mount is noexec, a changed or missing pinned file makes create fail and leaves nothing;
#   - `exec` into the container is held by the same rules;
#   - a process.landlock block in a plain config.json, without any policy, is enforced.
# Attempts busybox has no applet for are made by conformance/tools/landlock_probe.c (built here, static).
#
# Only our runtime has policies and Landlock: runc 1.1.5 and crun 1.8.1 ignore process.landlock and have
# no --policy, so every case is known_fail for them.
. "$(dirname "$0")/../lib.sh"

HARSH=$SHARNESS_SOURCE_DIR/policies/harsh.json
RT_BASE=("${RT_EXTRA[@]}")
LISTENERS=()

with_policy() { RT_EXTRA=("${RT_BASE[@]}" --policy "$1"); }

sha() { sha256sum "$1" | cut -d' ' -f1; }

probe_tool() { static_tool landlock_probe.c; }

# ll_bundle NAME SCRIPT: a busybox bundle running `sh -c SCRIPT`, with /probe, a world-readable
# /srv/secret outside every rule, and /tmp/a, /tmp/b, /tmp/trunc holding a file each.
ll_bundle() {
  local probe
  probe=$(probe_tool) || return 1
  new_bundle "$1" sh -c "$2" >/dev/null || return 1
  cp "$probe" "$B/rootfs/probe"
  mkdir -p "$B/rootfs/srv" "$B/rootfs/tmp/a" "$B/rootfs/tmp/b" "$B/rootfs/tmp/trunc"
  echo topsecret >"$B/rootfs/srv/secret"
  echo data >"$B/rootfs/tmp/a/f"
  echo data >"$B/rootfs/tmp/trunc/f"
  chmod 0644 "$B/rootfs/srv/secret"
}

# write_policy NAME JSON_BODY: $CASEDIR/NAME.json with id NAME; the pins of this bundle's busybox and
# probe are in $BB_PIN and $PROBE_PIN (JSON objects) for the body to use.
write_policy() {
  printf '{"id": "%s", "version": 1, %s}\n' "$1" "$2" >"$CASEDIR/$1.json"
  jq . "$CASEDIR/$1.json" >/dev/null || { fail "bad test policy $1: $(cat "$CASEDIR/$1.json")"; return 1; }
  echo "$CASEDIR/$1.json"
}
pins() {
  BB_PIN=$(printf '{"path": "/bin/busybox", "sha256": "%s"}' "$(sha "$B/rootfs/bin/busybox")")
  PROBE_PIN=$(printf '{"path": "/probe", "sha256": "%s"}' "$(sha "$B/rootfs/probe")")
}

# run_policy POLICY BUNDLE: run it under POLICY (or no policy if POLICY is empty); OUT, ERR, RC.
run_policy() {
  if [ -n "$1" ]; then with_policy "$1"; else RT_EXTRA=("${RT_BASE[@]}"); fi
  run_in "$2"
}

# listen_in PID KIND PORT|NAME: a probe listener in the network namespace of PID, started from the host
# (outside any Landlock domain); waits until it listens. Killed by pid at the end of the case.
listen_in() {
  local out=$CASEDIR/listen-$3.out i
  nsenter -t "$1" -n "$TMP/landlock_probe" "$2" "$3" >"$out" 2>&1 &
  LISTENERS+=($!)
  echo "$!" >>"$CASEDIR/.listeners"
  for ((i = 0; i < 100; i++)); do
    grep -q listening "$out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "listener $2 $3 in the namespace of $1 did not start: $(cat "$out")"
}
stop_listeners() {
  local p
  [ -f "$CASEDIR/.listeners" ] || return 0
  while read -r p; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done <"$CASEDIR/.listeners"
  rm -f "$CASEDIR/.listeners"
}

# create_started POLICY BUNDLE ID: create (under POLICY unless empty), run HOOK_AFTER_CREATE (if set) with
# the init pid, then start. The container's output lands in $CASEDIR/ID.out.
create_started() {
  if [ -n "$1" ]; then with_policy "$1"; else RT_EXTRA=("${RT_BASE[@]}"); fi
  must_create "$2" "$3" || return 1
  local pid
  pid=$(<"$CASEDIR/$3.pid")
  if [ -n "${HOOK_AFTER_CREATE:-}" ]; then "$HOOK_AFTER_CREATE" "$pid" || return 1; fi
  must_start "$3"
}

# ---------------------------------------------------------------------------------------------
# Files

FILES_SCRIPT='
  cat /etc/passwd >/dev/null && echo "read-allowed ok"
  o=$(cat /srv/secret 2>&1); echo "read-outside rc=$? $o"
  o=$( (echo x >/srv/new) 2>&1); echo "write-outside rc=$? $o"
  echo x >/tmp/a/new && echo "write-allowed ok"
  /probe rename /tmp/a/f /tmp/b/f
  /probe rename /tmp/a/new /tmp/a/renamed
  o=$(truncate -s 0 /tmp/trunc/f 2>&1); echo "truncate rc=$? $o"
  o=$( (: >/tmp/trunc/f) 2>&1); echo "otrunc rc=$? $o"
  echo more >>/tmp/trunc/f && echo "append ok"
  echo "size $(wc -c </tmp/trunc/f)"'

files_policy() {
  local rw='"read_file", "read_dir", "write_file", "truncate", "make_reg", "remove_file"'
  write_policy ll-files '"namespaces": ["mount", "pid"],
    "files": {"/bin": ["execute", "read_file", "read_dir"], "/probe": ["execute", "read_file"],
              "/etc": ["read_file", "read_dir"], "/dev/null": ["read_file", "write_file", "truncate"],
              "/tmp/a": ['"$rw"'], "/tmp/b": ['"$rw"'], "/tmp/trunc": ["read_file", "write_file"]}'
}

case_files() {
  known_fail runc crun
  local p
  ll_bundle b "$FILES_SCRIPT" || return 1
  # Control: without the policy every attempt succeeds (root in the container, a writable rootfs).
  run_policy "" "$B"
  assert_line "$OUT" '^read-outside rc=0 topsecret$' "control read" || return 1
  assert_line "$OUT" '^rename ok$' "control rename across" || return 1
  assert_line "$OUT" '^truncate rc=0' "control truncate" || return 1
  ll_bundle b2 "$FILES_SCRIPT" || return 1
  p=$(files_policy) || return 1
  run_policy "$p" "$B"
  assert_run_ok "run under $p" || return 1
  assert_line "$OUT" '^read-allowed ok$' || return 1
  assert_line "$OUT" '^read-outside rc=1 .*Permission denied' "read outside the rules" || return 1
  assert_line "$OUT" '^write-outside rc=[1-9].*Permission denied' "write outside the rules" || return 1
  assert_line "$OUT" '^write-allowed ok$' || return 1
  assert_line "$OUT" '^rename errno 18 EXDEV$' "rename /tmp/a -> /tmp/b (no refer)" || return 1
  assert_line "$OUT" '^rename ok$' "rename inside /tmp/a" || return 1
  assert_line "$OUT" '^truncate rc=1 .*Permission denied' "truncate without the right" || return 1
  assert_line "$OUT" '^otrunc rc=[1-9].*Permission denied' "open(O_TRUNC) without the right" || return 1
  assert_line "$OUT" '^append ok$' "append (write_file)" || return 1
  assert_line "$OUT" '^size 10$' "the file kept its content" || return 1
}

# ---------------------------------------------------------------------------------------------
# Ports

listeners_8080_8081() {
  listen_in "$1" tcp-listen 8080 && listen_in "$1" tcp-listen 8081
}

ports_run() {  # POLICY ID: run $B under POLICY to the end with the listeners up; OUT is its output
  create_started "$1" "$B" "$2" || return 1
  wait_status "$2" stopped 10 || return 1
  OUT=$(<"$CASEDIR/$2.out")
  stop_listeners
}

case_ports() {
  known_fail runc crun
  local p id body='"namespaces": ["mount", "pid"], "network": "loopback"'
  trap stop_listeners EXIT
  ll_bundle b '/probe connect 8080; /probe connect 8081; /probe bind 8083; /probe bind 8082' || return 1
  HOOK_AFTER_CREATE=listeners_8080_8081
  # Control: the same policy without ports: both listeners are reachable, any port binds.
  p=$(write_policy ll-noports "$body") || return 1
  id=$(newid control)
  ports_run "$p" "$id" || return 1
  assert_line "$OUT" '^connect 8081 ok$' "control connect" || return 1
  assert_line "$OUT" '^bind 8083 ok$' "control bind" || return 1
  p=$(write_policy ll-ports "$body"', "ports": {"bind": [8082], "connect": [8080]}') || return 1
  id=$(newid ports)
  ports_run "$p" "$id" || return 1
  assert_line "$OUT" '^connect 8080 ok$' "listed port" || return 1
  assert_line "$OUT" '^connect 8081 errno 13 EACCES$' "unlisted port" || return 1
  assert_line "$OUT" '^bind 8083 errno 13 EACCES$' "bind to an unlisted port" || return 1
  assert_line "$OUT" '^bind 8082 ok$' "bind to a listed port" || return 1
}

# ---------------------------------------------------------------------------------------------
# Scope: init's domain and an `exec`'d process's are siblings; the listener is outside both.

abstract_listener() { listen_in "$1" abstract-listen "sharness-ll-$$"; }

scope_attempts() {  # ID: from an exec'd process, signal init and connect to the outside socket
  _run_cmd rt exec "$1" kill -0 1
  SIG_RC=$CMD_RC SIG_OUT=$CMD_OUT
  _run_cmd rt exec "$1" /probe abstract "sharness-ll-$$"
  ABS_OUT=$CMD_OUT
}

scope_run() {  # POLICY ID: start $B under POLICY, make the scope attempts, stop it and the listener
  create_started "$1" "$B" "$2" || return 1
  scope_attempts "$2"
  rt kill "$2" KILL >/dev/null 2>&1 || true
  stop_listeners
}

case_scope() {
  known_fail runc crun
  local p id body='"namespaces": ["mount", "pid"]'
  trap stop_listeners EXIT
  ll_bundle b 'sleep 30' || return 1
  HOOK_AFTER_CREATE=abstract_listener
  p=$(write_policy ll-noscope "$body") || return 1
  id=$(newid control)
  scope_run "$p" "$id" || return 1
  assert_eq 0 "$SIG_RC" "control: kill -0 1 from exec ($SIG_OUT)" || return 1
  assert_contains "$ABS_OUT" "abstract ok" "control: abstract connect" || return 1
  p=$(write_policy ll-scope "$body"', "scope": ["abstract_unix_socket", "signal"]') || return 1
  id=$(newid scope)
  scope_run "$p" "$id" || return 1
  assert_ne 0 "$SIG_RC" "kill -0 1 from exec (another domain)" || return 1
  assert_contains "$SIG_OUT" "Operation not permitted" "kill -0 1 from exec" || return 1
  assert_contains "$ABS_OUT" "abstract errno 1 EPERM" "abstract socket created outside the domain" || return 1
}

# ---------------------------------------------------------------------------------------------
# The exec allowlist

EXEC_SCRIPT='
  /probe ran
  cp /bin/busybox /tmp/true && { o=$(/tmp/true 2>&1); echo "copy rc=$? $o"; }
  /probe memfd
  echo "memfd_noexec $(cat /proc/sys/vm/memfd_noexec)"
  o=$( (echo x >>/bin/busybox) 2>&1); echo "pinned-write rc=$? $o"
  o=$( (echo x >>/probe) 2>&1); echo "pinned-write-probe rc=$? $o"
  awk '"'"'$5 == "/bin/busybox" || $5 == "/probe" { print "pin-mount " $5 " " $6 }'"'"' /proc/self/mountinfo
  awk '"'"'{ split($6, o, ","); rw = 0; nx = 0; for (i in o) { if (o[i] == "rw") rw = 1; if (o[i] == "noexec") nx = 1 }
         if (rw && !nx) print "writable-exec-mount " $5 }'"'"' /proc/self/mountinfo
  echo done'

exec_policy() {  # NAME [EXTRA_BODY]: exec allowlist of busybox and the probe, a /tmp tmpfs asking for exec
  write_policy "$1" '"namespaces": ["mount", "pid"], "mounts": {"tmpfs": [{"path": "/tmp", "exec": true}]},
    "exec": ['"$BB_PIN"', '"$PROBE_PIN"']'"${2:-}"
}

case_exec_allowlist() {
  known_fail runc crun
  local p
  ll_bundle b "$EXEC_SCRIPT" || return 1
  # Control: no policy: the copy runs, and so does a memfd.
  run_policy "" "$B"
  assert_line "$OUT" '^copy rc=0' "control: copy in /tmp runs" || return 1
  assert_line "$OUT" '^memfd-exec ok' "control: memfd exec" || return 1
  pins
  p=$(exec_policy ll-exec) || return 1
  run_policy "$p" "$B"
  assert_run_ok "run under the allowlist" || return 1
  assert_line "$OUT" '^ran$' "an allowlisted binary runs" || return 1
  assert_line "$OUT" '^copy rc=126 .*Permission denied' "a copy in a writable dir" || return 1
  # memfd: no seccomp in this policy, so this is vm.memfd_noexec=2 alone.
  assert_line "$OUT" '^memfd_noexec 2$' || return 1
  assert_line "$OUT" '^memfd_create-exec errno 13 EACCES$' "memfd_create(MFD_EXEC)" || return 1
  assert_line "$OUT" '^memfd-exec errno 13 EACCES$' "fexecve of a memfd" || return 1
  assert_not_contains "$OUT" "the copy ran" || return 1
  # busybox is running (it is the shell): the write meets ETXTBSY first; the bind is checked below.
  assert_line "$OUT" '^pinned-write rc=[1-9]' "pinned busybox" || return 1
  assert_line "$OUT" '^pin-mount /bin/busybox ro,nosuid,nodev' "a read-only bind over /bin/busybox" || return 1
  assert_line "$OUT" '^pin-mount /probe ro,nosuid,nodev' "a read-only bind over /probe" || return 1
  assert_line "$OUT" '^pinned-write-probe rc=[1-9].*Read-only file system' "pinned probe" || return 1
  assert_not_contains "$OUT" "writable-exec-mount" "every writable mount is noexec" || return 1
  assert_line "$OUT" '^done$' || return 1
  # The host's vm.memfd_noexec is untouched (it is per pid namespace).
  assert_eq 0 "$(cat /proc/sys/vm/memfd_noexec)" "host vm.memfd_noexec" || return 1
}

case_memfd_harsh_seccomp() {
  known_fail runc crun
  local p
  ll_bundle b '/probe memfd' || return 1
  pins
  # harsh with the probe pinned: its seccomp allowlist has no memfd_create.
  p=$CASEDIR/harsh-probe.json
  jq --argjson pin "$PROBE_PIN" '.id = "harsh-probe" | .exec += [$pin]' "$HARSH" >"$p"
  run_policy "$p" "$B"
  assert_line "$OUT" '^memfd_create errno 1 EPERM$' "harsh: seccomp denies memfd_create ($ERR)" || return 1
}

case_pin_changed_fails_create() {
  known_fail runc crun
  local p id
  ll_bundle b 'true' || return 1
  pins
  p=$(exec_policy ll-exec) || return 1
  printf 'x' >>"$B/rootfs/bin/busybox"  # the content changed after it was pinned
  with_policy "$p"
  id=$(newid changed)
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create with a changed pinned file" || return 1
  assert_contains "$ERR" "exec allowlist: /bin/busybox: SHA-256 is $(sha "$B/rootfs/bin/busybox"), the policy pins" || return 1
  assert_nothing_left "$id" || return 1
  # A pinned file that is missing, and one reached through a symlink.
  ll_bundle b2 'true' || return 1
  pins
  rm "$B/rootfs/probe"
  id=$(newid missing)
  create_in "$B" "$id"
  assert_contains "$ERR" "exec allowlist: /probe: not found in the container" || return 1
  assert_nothing_left "$id" || return 1
  p=$(write_policy ll-symlink '"namespaces": ["mount", "pid"], "exec": [{"path": "/bin/sh", "sha256": "'"$(sha /bin/busybox)"'"}]') ||
    return 1
  with_policy "$p"
  id=$(newid symlink)
  create_in "$B" "$id"
  assert_contains "$ERR" "exec allowlist: /bin/sh: a symlink is on the way" || return 1
  assert_nothing_left "$id"
}

# ---------------------------------------------------------------------------------------------
# exec into the container: the same rules

case_exec_held() {
  known_fail runc crun
  local p id
  ll_bundle b 'sleep 30' || return 1
  pins
  p=$(exec_policy ll-exec2 ', "files": {"/bin": ["read_dir"], "/etc": ["read_file", "read_dir"],
        "/dev/null": ["read_file", "write_file", "truncate"],
        "/tmp": ["read_file", "read_dir", "write_file", "truncate", "make_reg", "remove_file"]}') || return 1
  id=$(newid held)
  HOOK_AFTER_CREATE=""
  create_started "$p" "$B" "$id" || return 1
  assert_ok rt exec "$id" cat /etc/passwd || return 1
  assert_fail rt exec "$id" cat /srv/secret || return 1
  assert_contains "$CMD_OUT" "Permission denied" "exec: read outside the rules" || return 1
  assert_fail rt exec "$id" sh -c 'cp /bin/busybox /tmp/true && /tmp/true' || return 1
  assert_contains "$CMD_OUT" "Permission denied" "exec: a dropped copy" || return 1
  assert_ok rt exec "$id" /probe ran || return 1
  rt kill "$id" KILL >/dev/null 2>&1 || true
  return 0
}

# ---------------------------------------------------------------------------------------------
# A plain config.json block, no policy

PLAIN_BLOCK='{"ruleset": {"handledAccessFS": ["execute", "read_file", "read_dir", "write_file", "make_reg", "truncate"],
                          "handledAccessNet": ["connect_tcp"], "scoped": ["signal"]},
              "rules": {"pathBeneath": [
                {"allowedAccess": ["execute", "read_file"], "paths": ["/bin/busybox"]},
                {"allowedAccess": ["read_file", "read_dir"], "paths": ["/etc", "/bin", "/proc"]},
                {"allowedAccess": ["read_file", "read_dir", "write_file", "make_reg", "truncate"], "paths": ["/tmp"]},
                {"allowedAccess": ["read_file", "write_file", "truncate"], "paths": ["/dev/null"]}]},
              "disableBestEffort": true}'

PLAIN_SCRIPT='
  cat /etc/passwd >/dev/null && echo "read-allowed ok"
  o=$(cat /srv/secret 2>&1); echo "read-outside rc=$? $o"
  cp /bin/busybox /tmp/true && { o=$(/tmp/true 2>&1); echo "copy rc=$? $o"; }
  awk '"'"'$5 == "/" && $6 ~ /^rw/ && $6 !~ /noexec/ { print "root rw" }'"'"' /proc/self/mountinfo
  sleep 30'

case_plain_config_block() {
  known_fail runc crun
  local id
  ll_bundle b "$PLAIN_SCRIPT" || return 1
  cfg "$B" --argjson ll "$PLAIN_BLOCK" '.process.landlock = $ll' || return 1
  HOOK_AFTER_CREATE=""
  id=$(newid plain)
  create_started "" "$B" "$id" || return 1
  wait_file "$CASEDIR/$id.out" || return 1
  for _ in $(seq 50); do grep -q "^copy rc" "$CASEDIR/$id.out" && break; sleep 0.1; done
  OUT=$(<"$CASEDIR/$id.out")
  assert_line "$OUT" '^read-allowed ok$' || return 1
  assert_line "$OUT" '^read-outside rc=1 .*Permission denied' "read outside the rules" || return 1
  # /tmp is on the writable root, without noexec: Landlock's execute right alone holds the copy.
  assert_line "$OUT" '^root rw$' "the root is writable" || return 1
  assert_line "$OUT" '^copy rc=126 .*Permission denied' "a copy in /tmp (Landlock alone)" || return 1
  # And through exec: the container's block holds the exec'd process too.
  assert_fail rt exec "$id" cat /srv/secret || return 1
  assert_contains "$CMD_OUT" "Permission denied" "exec: read outside" || return 1
  assert_fail rt exec "$id" /tmp/true || return 1
  assert_contains "$CMD_OUT" "Permission denied" "exec: the copy" || return 1
  rt kill "$id" KILL >/dev/null 2>&1 || true
  return 0
}

# ---------------------------------------------------------------------------------------------
# What is reported: features and policy explain

case_reported() {
  known_fail runc crun
  local f
  f=$(rt features) || { fail "features failed"; return 1; }
  assert_match "$(jq -r '.linux.landlock.abi' <<<"$f")" '^[1-9][0-9]*$' "features: linux.landlock.abi" || return 1
  assert_eq enforced "$(jq -r '.linux.landlock.ruleClasses.files' <<<"$f")" "features: files" || return 1
  assert_eq true "$(jq -r '.linux.landlock.handledAccessFS | index("read_file") != null' <<<"$f")" || return 1
  # the kernel's and landlockconfig's spelling (handled_access_net), never handledAccessNetwork
  assert_eq true "$(jq -r '.linux.landlock | has("handledAccessNet") and (has("handledAccessNetwork") | not)' <<<"$f")" \
    "features: linux.landlock.handledAccessNet" || return 1
  _run_cmd rt policy explain "$HARSH"
  assert_eq 0 "$CMD_RC" "policy explain harsh: $CMD_OUT" || return 1
  assert_line "$CMD_OUT" '^ *\[ok\] +Landlock ABI [0-9]+: file rules for' || return 1
  assert_line "$CMD_OUT" '^ *\[ok\] +Landlock ABI [0-9]+: TCP bind only to \[\], connect only to \[\]' || return 1
  assert_line "$CMD_OUT" '^ *\[ok\] +Landlock ABI [0-9]+: scoped to the container.s domain' || return 1
  assert_line "$CMD_OUT" '^ *\[ok\] +exec allowlist: 1 binaries pinned by SHA-256 \(/bin/busybox\)' || return 1
  assert_line "$CMD_OUT" '^ *\[ok\] +no memfd execution: vm.memfd_noexec=2' || return 1
}

case_harsh_runs_busybox() {
  known_fail runc crun
  local b
  b=$(new_bundle b sh -c 'cat /srv/secret 2>&1; echo "rc=$?"; echo ok') || return 1
  mkdir -p "$b/rootfs/srv"; echo s >"$b/rootfs/srv/secret"; chmod 644 "$b/rootfs/srv/secret"
  run_policy "$HARSH" "$b"
  assert_run_ok "harsh runs the bundle's busybox (its pinned hash: $(sha "$b/rootfs/bin/busybox"))" || return 1
  assert_line "$OUT" 'Permission denied' "harsh: a file outside its rules" || return 1
  assert_line "$OUT" '^ok$' || return 1
}

# `policy pin` (docs/policy.md "Refreshing pins"): a bundle whose busybox is another build (here
# a copy with one byte appended) is refused under harsh with both digests and the command that
# refreshes the pin; the command reports the change, leaves harsh.json as it was, and create
# then succeeds under the pinned copy. A pin reached through a symlink is not followed.
case_pin_refresh() {
  known_fail runc crun
  local b id old new before pinned
  b=$(new_bundle b sh -c 'echo pinned-ok') || return 1
  old=$(sha "$b/rootfs/bin/busybox")
  # Control: the unchanged copy runs under harsh.
  run_policy "$HARSH" "$b"
  assert_run_ok "control: harsh runs the busybox it pins" || return 1
  printf 'x' >>"$b/rootfs/bin/busybox"
  new=$(sha "$b/rootfs/bin/busybox")
  with_policy "$HARSH"
  id=$(newid stale)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create under a stale pin" || return 1
  assert_contains "$ERR" "exec allowlist: /bin/busybox: SHA-256 is $new, the policy pins $old" "the path and both digests" || return 1
  assert_contains "$ERR" "sharness-runtime policy pin --bundle" "the command that refreshes it" || return 1
  assert_nothing_left "$id" || return 1

  before=$(sha "$HARSH")
  pinned=$CASEDIR/harsh-pinned.json
  _run_cmd "$RUNTIME" policy pin --bundle "$b" "$HARSH" --out "$pinned"
  assert_eq 0 "$CMD_RC" "policy pin ($CMD_OUT)" || return 1
  assert_contains "$CMD_OUT" "/bin/busybox: $old -> $new" "policy pin reports the change" || return 1
  assert_contains "$CMD_OUT" "1 of 1 pins changed; hash $("$RUNTIME" policy hash "$HARSH") -> $("$RUNTIME" policy hash "$pinned")" || return 1
  assert_eq "$before" "$(sha "$HARSH")" "the policy given is not edited" || return 1
  assert_eq "$new" "$(jq -r '.exec[0].sha256' "$pinned")" "the pinned copy's digest" || return 1
  assert_eq "$(jq -S 'del(.exec)' "$HARSH")" "$(jq -S 'del(.exec)' "$pinned")" "nothing else changed" || return 1
  # Without --out: the policy on stdout, the report on stderr.
  assert_eq "$(cat "$pinned")" "$("$RUNTIME" policy pin --bundle "$b" "$HARSH" 2>/dev/null)" "stdout is the policy" || return 1
  run_policy "$pinned" "$b"
  assert_run_ok "create under the refreshed pin" || return 1
  assert_line "$OUT" '^pinned-ok$' || return 1

  # A pin that is a symlink in the bundle moves to the file it names, resolved inside the rootfs
  # (the canonical path create checks); an absolute link is resolved from the rootfs's own root.
  mv "$b/rootfs/bin/busybox" "$b/rootfs/bin/busybox.real"
  ln -s busybox.real "$b/rootfs/bin/busybox"
  _run_cmd "$RUNTIME" policy pin --bundle "$b" "$HARSH" --out "$CASEDIR/sym.json"
  assert_eq 0 "$CMD_RC" "policy pin through a symlink ($CMD_OUT)" || return 1
  assert_contains "$CMD_OUT" "/bin/busybox -> /bin/busybox.real: $old -> $new" || return 1
  assert_eq /bin/busybox.real "$(jq -r '.exec[0].path' "$CASEDIR/sym.json")" "the pin's canonical path" || return 1
  mkdir -p "$b/rootfs/etc"
  echo pin-me >"$b/rootfs/etc/pin-me"
  ln -sfn /etc/pin-me "$b/rootfs/bin/busybox"
  _run_cmd "$RUNTIME" policy pin --bundle "$b" "$HARSH" --out "$CASEDIR/abs.json"
  assert_eq 0 "$CMD_RC" "policy pin through an absolute symlink ($CMD_OUT)" || return 1
  assert_eq "/etc/pin-me $(sha "$b/rootfs/etc/pin-me")" "$(jq -r '.exec[0] | "\(.path) \(.sha256)"' "$CASEDIR/abs.json")" \
    "resolved inside the rootfs" || return 1
  [ ! -e /etc/pin-me ] || fail "control: the host has an /etc/pin-me" || return 1

  # --rootfs follows a symlink on the way inside the root, never out of it: bin -> /usr/bin
  # (absolute) names the rootfs's usr/bin/busybox, not the host's. A leaf symlink is refused.
  local r=$CASEDIR/rootfs-pin
  mkdir -p "$r/usr/bin"
  ln -s /usr/bin "$r/bin"
  cp "$b/rootfs/bin/busybox.real" "$r/usr/bin/busybox"
  _run_cmd "$RUNTIME" policy pin --rootfs "$r" "$HARSH" --out "$CASEDIR/rootfs.json"
  assert_eq 0 "$CMD_RC" "policy pin --rootfs through bin -> /usr/bin ($CMD_OUT)" || return 1
  assert_eq "$new" "$(jq -r '.exec[0].sha256' "$CASEDIR/rootfs.json")" "resolved inside the rootfs" || return 1
  assert_ne "$(sha /usr/bin/busybox)" "$new" "control: the host's busybox is another file" || return 1
  rm "$r/usr/bin/busybox"
  ln -s /etc/hostname "$r/usr/bin/busybox"
  _run_cmd "$RUNTIME" policy pin --rootfs "$r" "$HARSH"
  assert_ne 0 "$CMD_RC" "policy pin --rootfs of a leaf symlink" || return 1
  assert_contains "$CMD_OUT" "exec allowlist: /bin/busybox: a symlink" || return 1
  # A pin that names a FIFO is never opened for reading (policy pin would block on it).
  rm "$r/usr/bin/busybox"
  mkfifo "$r/usr/bin/busybox"
  _run_cmd timeout 10 "$RUNTIME" policy pin --rootfs "$r" "$HARSH"
  assert_contains "$CMD_OUT" "exec allowlist: /bin/busybox: not a regular file" "a FIFO refused ($CMD_RC)" || return 1
}

tcase "files: outside the rules EACCES, listed paths work, refer across rules EXDEV, truncate denied" case_files
tcase "ports: unlisted connect and bind EACCES, listed ones work (listeners in the same netns)" case_ports
tcase "scope: signal and abstract UNIX socket outside the domain refused" case_scope
tcase "exec allowlist: pinned runs, a copy and a memfd do not, pins read-only, writable mounts noexec" case_exec_allowlist
tcase "exec allowlist under harsh: seccomp refuses memfd_create too" case_memfd_harsh_seccomp
tcase "exec allowlist: a changed, missing or symlinked pin fails create, nothing left" case_pin_changed_fails_create
tcase "policy pin: a stale pin is refused with the command, pin reports the change, create then runs" case_pin_refresh
tcase "exec into the container is held by the same rules" case_exec_held
tcase "a plain config.json process.landlock block (no policy) is enforced, in exec too" case_plain_config_block
# The container's own process is refused by the policy: the error reaches the user, although
# harsh's seccomp allowlist (loaded before execve) has no sendto(2) for init to report it with.
case_harsh_refused_process_says_why() {
  known_fail runc crun
  local b
  b=$(new_bundle b /bin/other) || return 1
  cp "$b/rootfs/bin/busybox" "$b/rootfs/bin/other"
  run_policy "$HARSH" "$b"
  assert_ne 0 "$RC" "run of a binary outside the exec allowlist" || return 1
  assert_contains "$ERR" 'exec \"/bin/other\"' "the error names the file" || return 1
  assert_contains "$ERR" 'EACCES' "and the reason" || return 1
  assert_contains "$ERR" 'exec allowlist' "and the hint" || return 1
}

# The pin cache (runtime/lifecycle/pin_cache.hpp): a digest is reused only for the very same,
# unchanged file, and only from an entry nobody but root could have written.
case_pin_cache() {
  known_fail runc crun
  local p id f key line
  ll_bundle b 'true' || return 1
  pins
  p=$(exec_policy ll-exec) || return 1
  # A digest is kept only for a file that has not changed for a second (coarse ctime: a write
  # in the tick of the hash would not show); the bundle's busybox was just copied.
  sleep 1.1
  run_policy "$p" "$B"
  assert_run_ok "a first run under the allowlist" || return 1
  f=$B/rootfs/bin/busybox
  key=$(printf '%x-%x' "$(stat -c %d "$f")" "$(stat -c %i "$f")")
  [ -f "$STATE/.cache/pins/$key" ] || { fail "no cache entry $STATE/.cache/pins/$key after a run"; return 1; }
  # Changed in place, same size: the next create hashes it again and refuses it.
  printf 'X' | dd of="$f" bs=1 seek=4096 conv=notrunc status=none
  id=$(newid changed)
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create after the pinned file changed (warm cache)" || return 1
  assert_contains "$ERR" "SHA-256 is $(sha "$f"), the policy pins" || return 1
  assert_nothing_left "$id" || return 1
  # An entry claiming the pinned digest for the changed file, writable by others: not used.
  # (size, mtime, ctime, when hashed: later than the settle time, so only the mode decides;
  # the file settles first, or no entry would be looked up at all)
  sleep 1.1
  line="$(stat -c '%s %.9Y %.9Z' "$f") $(($(date +%s) + 5)).0 $(jq -r '.exec[0].sha256' "$p")"
  echo "$line" >"$STATE/.cache/pins/$key"
  chmod 0666 "$STATE/.cache/pins/$key"
  id=$(newid forged)
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create with a world-writable forged cache entry" || return 1
  assert_contains "$ERR" "SHA-256 is $(sha "$f"), the policy pins" || return 1
  assert_nothing_left "$id" || return 1
  # Poisoned as on a coarse-ctime kernel: a root-only entry that says it was hashed in the tick
  # of the file's last change (where another write would not have moved ctime): not believed.
  rm -f "$STATE/.cache/pins/$key"
  (umask 077 && echo "$(stat -c '%s %.9Y %.9Z %.9Z' "$f") $(jq -r '.exec[0].sha256' "$p")" \
    >"$STATE/.cache/pins/$key")
  id=$(newid poisoned)
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create with an entry hashed in the tick of the last write" || return 1
  assert_contains "$ERR" "SHA-256 is $(sha "$f"), the policy pins" || return 1
  assert_nothing_left "$id" || return 1
  # Control: the same line, hashed after the settle time, as root's own entry is trusted (as the
  # rest of --root is), so the refusals above came from the mode check and the hash time, not
  # from a malformed line.
  rm -f "$STATE/.cache/pins/$key"
  (umask 077 && echo "$line" >"$STATE/.cache/pins/$key")
  id=$(newid trusted)
  create_in "$B" "$id"
  assert_eq 0 "$RC" "control: a root-only entry is used ($ERR)" || return 1
  rt delete --force "$id" >/dev/null 2>&1
}

tcase "exec allowlist: the pin cache reuses a digest only for the unchanged file and a root-only entry" case_pin_cache
tcase "harsh refusing the container's own process: the user reads exec EACCES and why" case_harsh_refused_process_says_why
tcase "features and policy explain report the Landlock ABI and each rule class" case_reported
tcase "harsh runs the busybox-static workload and denies a file outside its rules" case_harsh_runs_busybox

# ---------------------------------------------------------------------------------------------
# Pins on a Debian 12 rootfs, where /bin -> usr/bin (the cached tree of `scripts/rootfs.sh
# workloads`, used read-only: the bundle's root.path, "readonly": true).

case_pins_usr_merged() {
  known_fail runc crun
  local root b p p2 id zero
  root=$("$SHARNESS_SOURCE_DIR/scripts/rootfs.sh" workloads) || { fail "scripts/rootfs.sh workloads failed"; return 1; }
  [ -L "$root/bin" ] || { fail "$root/bin is not a symlink"; return 1; }
  b=$(new_bundle b /bin/sh -c 'echo "sh ran"; /bin/cat /etc/hostname; echo "cat $?"') || return 1
  cfg "$b" '.root = {"path": $r, "readonly": true}' --arg r "$root"
  zero=$(printf '0%.0s' {1..64})
  # harsh, its pins as a user would first write them: through /bin and /lib64, both links (and
  # without its "/bin" read_dir rule: a rule path is refused through a link too).
  p=$CASEDIR/ll-merged.json
  jq --arg z "$zero" '.id = "ll-merged" | .exec = [{"path": "/bin/sh", "sha256": $z},
      {"path": "/lib64/ld-linux-x86-64.so.2", "sha256": $z}]
    | .files["/usr/lib"] = ["read_file", "read_dir"] | del(.files["/bin"])' "$HARSH" >"$p"
  # Control: create refuses a pin with a link on its way, naming the file to pin and how.
  with_policy "$p"
  id=$(newid linked)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with /bin/sh pinned through /bin -> usr/bin" || return 1
  assert_contains "$ERR" "exec allowlist: /bin/sh: a symlink is on the way; its canonical path is /usr/bin/dash" || return 1
  assert_contains "$ERR" "policy pin --bundle" "the command to run" || return 1
  assert_nothing_left "$id" || return 1
  # policy pin moves each pin to its canonical path, resolved inside the rootfs, and hashes it.
  p2=$CASEDIR/ll-merged-pinned.json
  assert_ok rt policy pin --bundle "$b" "$p" --out "$p2" || return 1
  assert_contains "$CMD_OUT" "/bin/sh -> /usr/bin/dash: $zero -> $(sha "$root/usr/bin/dash")" || return 1
  assert_contains "$CMD_OUT" "/lib64/ld-linux-x86-64.so.2 -> /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2:" || return 1
  assert_eq '["/usr/bin/dash","/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"]' "$(jq -c '[.exec[].path]' "$p2")" \
    "the repinned paths" || return 1
  # Pinned again: nothing changes.
  assert_ok rt policy pin --bundle "$b" "$p2" --out "$CASEDIR/again.json" || return 1
  assert_contains "$CMD_OUT" "no pin changed (2 checked)" || return 1
  # The pinned shell runs through its link (/bin/sh), Landlock's execute right being on the inode;
  # cat, not pinned, does not (the allowlist still holds, for a file behind the same link).
  run_policy "$p2" "$b"
  assert_rc 0 || return 1
  assert_line "$OUT" '^sh ran$' "/bin/sh (pinned as /usr/bin/dash) ran" || return 1
  assert_line "$OUT" '^cat 126$' "/bin/cat, not pinned" || return 1
  assert_contains "$ERR" "Permission denied" "cat's exec refused" || return 1
}
tcase "policy pin on a /bin -> usr/bin rootfs: canonical pins, the program runs through its link" case_pins_usr_merged
finish
