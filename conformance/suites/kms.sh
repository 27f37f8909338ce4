#!/usr/bin/env bash
# KMS sidecar (docs/kms.md): real containers whose config.json hooks start
# sharness-kms before the workload (createRuntime) and stop it on delete (poststop), with the
# KMS socket dir, a client certificate and sharness-kms-client bind-mounted read-only. The
# workload runs the client; the suite checks what the KMS gives, refuses and hides.
#
# Needs SHARNESS_KMS, SHARNESS_KMS_CLIENT and SHARNESS_KMS_SEAL (our sharness-runtime, for
# `kms seal`); the containers themselves run under $SHARNESS_RUNTIME (any runtime).
. "$(dirname "$0")/../lib.sh"

if [ -z "${SHARNESS_KMS:-}" ] || [ -z "${SHARNESS_KMS_CLIENT:-}" ] || [ -z "${SHARNESS_KMS_SEAL:-}" ]; then
  echo "FAIL: set SHARNESS_KMS, SHARNESS_KMS_CLIENT and SHARNESS_KMS_SEAL (CTest does)" >&2
  exit 1
fi
command -v openssl >/dev/null || { echo "FAIL: the openssl CLI is missing (apt-get install openssl)" >&2; exit 1; }

# ---- shared material: a PKI, two master keys we know, a vault sealed under a root-only KEK
K=$TMP/kms
mkdir -p "$K/app" "$K/app2" "$K/db" "$K/rogue" "$K/expired"
"$SHARNESS_SOURCE_DIR/conformance/tools/kms-certs.sh" "$K/pki" >/dev/null
for who in app app2 db rogue expired; do
  cp "$K/pki/$who.pem" "$K/$who/cert.pem"
  cp "$K/pki/$who.key" "$K/$who/key.pem"
  cp "$K/pki/ca.pem" "$K/$who/ca.pem"
done
MASTER_DB=$(openssl rand -hex 32)
MASTER_WEB=$(openssl rand -hex 32)
echo "$MASTER_DB" >"$K/db.master"
echo "$MASTER_WEB" >"$K/web.master"
"$SHARNESS_KMS_SEAL" kms seal --kek "$K/kek" --out "$K/vault" db="$K/db.master" web="$K/web.master" >/dev/null 2>&1 ||
  { echo "kms seal failed" >&2; exit 1; }
cp "$K/db.master" "$K/db.master.copy"  # for the credential case's second vault (the same db key)
rm -f "$K/db.master" "$K/web.master"  # from here on the master keys exist only in the vault (and in this shell)
KMS_CG=$CGPARENT/kms

# expected_key VAULT_MASTER_HEX VAULT HOST OP: HKDF-SHA256 computed by the openssl CLI, apart
# from the KMS (docs/kms.md "Derivation").
expected_key() {
  openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt "hexkey:$1" -kdfopt "info:sharness-kms/v1|$2|$3|$4" HKDF |
    tr -d ':\n' | tr 'A-F' 'a-f'
}

CLIENT_ARGS=(--socket /run/kms/kms.sock --ca /etc/kms/ca.pem --cert /etc/kms/cert.pem --key /etc/kms/key.pem)

# kms_bundle NAME ID [CERT_DIR] -- ARGS...: a busybox bundle whose hooks run a KMS named ID that
# allows vault db, hosts db.internal and cache.internal, operation read, 600 s; the workload
# gets the socket dir at /run/kms, CERT_DIR (default: the app role's) at /etc/kms and the
# client at /usr/bin/sharness-kms-client, all read-only. Sets B, KCFG, KLOG, KSOCK.
kms_bundle() {
  local name=$1 id=$2 certs=$K/app
  shift 2
  if [ "$1" != -- ]; then certs=$1; shift; fi
  shift
  new_bundle "$name" "$@" >/dev/null
  KSOCK=$CASEDIR/sock-$id
  mkdir -p "$KSOCK"
  KLOG=$CASEDIR/kms-$id.log
  KCFG=$CASEDIR/kms-$id.json
  KSTATE=$TMP/kms-state
  cat >"$KCFG" <<JSON
{"name": "$id", "vault": "$K/vault", "kek": "$K/kek", "socket": "$KSOCK/kms.sock",
 "tls": {"ca": "$K/pki/ca.pem", "cert": "$K/pki/kms.pem", "key": "$K/pki/kms.key"},
 "callerRole": "app", "callerId": "app", "log": "$KLOG", "stateRoot": "$KSTATE", "cgroupParent": "/$KMS_CG",
 "allow": {"vaults": ["db"], "hosts": ["db.internal", "cache.internal"], "operations": ["read"], "maxTtl": 600},
 "workloadMayAsk": true}
JSON
  cfg "$B" '.hooks.createRuntime += [{"path": $kms, "args": ["sharness-kms", "start", "--config", $c]}]
          | .hooks.poststop += [{"path": $kms, "args": ["sharness-kms", "stop", "--config", $c]}]
          | .mounts += [{"destination": "/run/kms", "type": "bind", "source": $s, "options": ["rbind", "ro"]},
                        {"destination": "/etc/kms", "type": "bind", "source": $certs, "options": ["rbind", "ro"]},
                        {"destination": "/usr/bin/sharness-kms-client", "type": "bind", "source": $cl,
                         "options": ["bind", "ro"]}]' \
    --arg kms "$SHARNESS_KMS" --arg c "$KCFG" --arg s "$KSOCK" --arg certs "$certs" --arg cl "$SHARNESS_KMS_CLIENT"
}

# The KMS's pieces on the host, for a KMS named ID.
kms_gate_pid() { cut -d' ' -f1 "$TMP/kms-state/$1/kms.pid" 2>/dev/null; }
kms_worker_pid() {
  local f p
  # (cgroupfs files report size 0: read them, do not test -s)
  for f in "$CGROOT/pids/$KMS_CG/$1/worker/cgroup.procs" "$CGROOT/unified/$KMS_CG/$1/worker/cgroup.procs" \
    "$CGROOT/$KMS_CG/$1/worker/cgroup.procs"; do
    p=$(head -1 "$f" 2>/dev/null) || continue
    [ -n "$p" ] && { echo "$p"; return 0; }
  done
  return 0
}
# kms_frozen ID: prints FROZEN or THAWED (v1 freezer.state; v2 cgroup.events "frozen 1").
kms_frozen() {
  local v1=$CGROOT/freezer/$KMS_CG/$1/worker/freezer.state d
  if [ -e "$v1" ]; then cat "$v1"; return 0; fi
  for d in "$CGROOT/unified/$KMS_CG/$1/worker" "$CGROOT/$KMS_CG/$1/worker"; do
    [ -e "$d/cgroup.events" ] || continue
    if grep -qx 'frozen 1' "$d/cgroup.events"; then echo FROZEN; else echo THAWED; fi
    return 0
  done
  echo "no-freezer"
}
worker_requests() { grep -c 'worker: request' "$1" 2>/dev/null || true; }

# perl scanners (perl is in Debian's essential set): does any readable byte of a process's
# memory, or of a tree of files, contain the raw bytes or the hex text of KEY_HEX?
hex_of() { printf %s "$1" | od -An -tx1 | tr -d ' \n'; }  # TEXT -> its bytes in hex, as scan_mem takes them
scan_mem() { # PID KEY_HEX -> prints "found" or "absent"
  perl -e '
    my ($pid, $hex) = @ARGV; my $raw = pack("H*", $hex); my $found = 0;
    open(my $maps, "<", "/proc/$pid/maps") or die "maps: $!";
    open(my $mem, "<:raw", "/proc/$pid/mem") or die "mem: $!";
    while (<$maps>) {
      my ($a, $b, $perm, $path) = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/ or next;
      next unless $perm =~ /^r/; next if $path =~ /secretmem|\[vvar\]|\[vsyscall\]/;
      my ($s, $e) = (hex $a, hex $b); my $buf;
      sysseek($mem, $s, 0) or next;
      my $n = sysread($mem, $buf, $e - $s); next unless $n;
      if (index($buf, $raw) >= 0 || index($buf, $hex) >= 0) { $found = 1; last; }
    }
    print $found ? "found\n" : "absent\n";' "$1" "$2"
}
scan_tree() { # DIR KEY_HEX -> "found" or "absent" (skips proc, sys, dev)
  perl -MFile::Find -e '
    my ($dir, $hex) = @ARGV; my $raw = pack("H*", $hex); my $found = 0;
    find({ no_chdir => 1, wanted => sub {
      if (-d $_ && m{^\Q$dir\E/(proc|sys|dev)$}) { $File::Find::prune = 1; return; }
      return unless -f $_ && ! -l $_;
      open(my $f, "<:raw", $_) or return; local $/; my $c = <$f> // "";
      $found = 1 if index($c, $raw) >= 0 || index($c, $hex) >= 0;
    }}, $dir);
    print $found ? "found\n" : "absent\n";' "$1" "$2"
}

# ---------------------------------------------------------------------------------------------

case_derived_key() {
  local id want other
  id=$(newid kd)
  kms_bundle b "$id" -- sh -c "for h in db.internal db.internal cache.internal; do
      sharness-kms-client ${CLIENT_ARGS[*]} --vault db --host \$h --op read --ttl 60 || exit \$?; done"
  run_in "$B" "$id"
  assert_eq 0 "$RC" "client in the container: $ERR"
  want=$(expected_key "$MASTER_DB" db db.internal read)
  other=$(expected_key "$MASTER_DB" db cache.internal read)
  assert_eq "$want" "$(sed -n 1p <<<"$OUT")" "first request: HKDF-SHA256(master, db|db.internal|read)"
  assert_eq "$want" "$(sed -n 2p <<<"$OUT")" "the same request twice gives the same key"
  assert_eq "$other" "$(sed -n 3p <<<"$OUT")" "another allowed host gives its own key"
  assert_ne "$want" "$other" "two hosts, two keys"
  assert_ne "$MASTER_DB" "$want" "the derived key is not the master key"
}

case_refusals() {
  local id
  id=$(newid kr)
  kms_bundle b "$id" -- sh -c "
    c() { sharness-kms-client ${CLIENT_ARGS[*]} \"\$@\" >/dev/null 2>>/tmp/why; echo \$?; }
    c --vault web --host db.internal --op read
    c --vault nosuch --host db.internal --op read
    c --vault db --host evil.example --op read
    c --vault db --host db.internal --op write
    c --vault db --host db.internal --op read --ttl 601
    c --vault db --host db.internal --op read --ttl 600
    cat /tmp/why >&2"
  run_in "$B" "$id"
  assert_eq 0 "$RC" "container ran: $ERR"
  assert_eq "2 2 2 2 2 0" "$(tr '\n' ' ' <<<"$OUT" | sed 's/ $//')" "exit codes: 4 policy refusals, ttl 601 refused, 600 served"
  assert_contains "$ERR" 'vault "web" is not allowed'
  assert_contains "$ERR" 'vault "nosuch" is not allowed'
  assert_contains "$ERR" 'host "evil.example" is not allowed'
  assert_contains "$ERR" 'operation "write" is not allowed'
  assert_contains "$ERR" 'ttl 601s is more than the allowed 600s'
}

# A wrong certificate is refused in the handshake: the worker is never thawed and sees no byte.
# app2 has the right CA and role but names another container (the KMS serves its own only).
case_wrong_certificate() {
  local id who before after
  id=$(newid kc)
  kms_bundle b "$id" -- sh -c "sharness-kms-client ${CLIENT_ARGS[*]} --vault db --host db.internal --op read; sleep 60"
  must_create "$B" "$id"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  before=$(worker_requests "$KLOG")
  assert_eq 1 "$before" "the good client's request reached the worker"
  for who in app2 db rogue expired; do
    RC=0
    "$SHARNESS_KMS_CLIENT" --socket "$KSOCK/kms.sock" --ca "$K/$who/ca.pem" --cert "$K/$who/cert.pem" \
      --key "$K/$who/key.pem" --vault db --host db.internal --op read >"$CASEDIR/$who.out" 2>"$CASEDIR/$who.err" || RC=$?
    assert_eq 3 "$RC" "client with the $who certificate: TLS refused ($(<"$CASEDIR/$who.err"))"
    assert_eq "" "$(<"$CASEDIR/$who.out")" "no key for the $who certificate"
  done
  after=$(worker_requests "$KLOG")
  assert_eq "$before" "$after" "the worker received nothing from the refused clients"
  assert_eq 4 "$(grep -c 'refused before any payload, worker not thawed' "$KLOG")" "gate log: 4 refusals"
  assert_contains "$(<"$KLOG")" 'peer id "app2", expected "app"'
  assert_contains "$(<"$KLOG")" 'peer role "db", expected "app"'
  assert_contains "$(<"$KLOG")" 'unable to get local issuer certificate'
  assert_contains "$(<"$KLOG")" 'certificate has expired'
  assert_eq FROZEN "$(kms_frozen "$id")" "worker still frozen"
}

case_replay_to_another_key() {
  local id key
  id=$(newid kp)
  kms_bundle b "$id" -- sh -c "mkdir -p /tmp/r && cd /tmp/r &&
    sharness-kms-client ${CLIENT_ARGS[*]} --vault db --host db.internal --op read --save-response resp --save-key k &&
    sharness-kms-client --open-response resp --key-file k --vault db --host db.internal --op read --ttl 60 &&
    { sharness-kms-client --open-response resp --vault db --host db.internal --op read --ttl 60; echo rc=\$?; }"
  run_in "$B" "$id"
  key=$(expected_key "$MASTER_DB" db db.internal read)
  assert_eq "$key" "$(sed -n 1p <<<"$OUT")" "live answer"
  assert_eq "$key" "$(sed -n 2p <<<"$OUT")" "the saved response opens with its own one-time key (control)"
  assert_eq "rc=4" "$(sed -n 3p <<<"$OUT")" "the same response replayed to a fresh one-time key does not open"
  assert_contains "$ERR" "authentication failed"
}

# Files, environment, memory of the workload; the socket's bytes: no master key anywhere.
case_master_key_unreachable() {
  local id pid derived trace sockfd
  id=$(newid km)
  kms_bundle b "$id" -- sharness-kms-client "${CLIENT_ARGS[@]}" --vault db --host db.internal --op read --hold 60
  must_create "$B" "$id"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  pid=$(<"$CASEDIR/$id.pid")
  derived=$(expected_key "$MASTER_DB" db db.internal read)
  assert_eq "$derived" "$(head -1 "$CASEDIR/$id.out")"
  assert_eq found "$(scan_mem "$pid" "$derived")" "control: the scan finds the derived key the client holds"
  assert_eq absent "$(scan_mem "$pid" "$MASTER_DB")" "master key in the workload's memory"
  assert_eq absent "$(scan_mem "$pid" "$MASTER_WEB")" "other vault's master key in the workload's memory"
  assert_not_contains "$(tr '\0' '\n' <"/proc/$pid/environ")" "$MASTER_DB" "workload environment"
  assert_eq absent "$(scan_tree "/proc/$pid/root" "$MASTER_DB")" "master key in the workload's files"
  assert_eq absent "$(scan_tree "/proc/$pid/root" "$MASTER_WEB")" "master key in the workload's files"
  # The socket's bytes, from a host-side client under strace (-xx: every byte as \xNN).
  command -v strace >/dev/null || skip "strace missing (the socket-bytes half)"
  trace=$CASEDIR/trace
  strace -f -xx -s 65536 -e trace=connect,read,write,sendto,recvfrom,sendmsg,recvmsg -o "$trace" \
    "$SHARNESS_KMS_CLIENT" --socket "$KSOCK/kms.sock" --ca "$K/app/ca.pem" --cert "$K/app/cert.pem" \
    --key "$K/app/key.pem" --vault db --host db.internal --op read >"$CASEDIR/host.out"
  assert_eq "$derived" "$(<"$CASEDIR/host.out")"
  sockfd=$(sed -n 's/^[0-9 ]*connect(\([0-9]*\), {sa_family=AF_UNIX.*/\1/p' "$trace" | head -1)
  [ -n "$sockfd" ] || fail "no connect() in the trace"
  grep -E "^[0-9 ]*(read|write|sendto|recvfrom|sendmsg|recvmsg)\($sockfd," "$trace" | grep -o '"[^"]*"' |
    tr -d '"\\x\n' >"$CASEDIR/wire.hex"
  [ -s "$CASEDIR/wire.hex" ] || fail "no socket bytes captured"
  local wire; wire=$(<"$CASEDIR/wire.hex")
  assert_not_contains "$wire" "$MASTER_DB" "master key on the wire"
  assert_not_contains "$wire" "$derived" "derived key (raw) on the wire"
  assert_not_contains "$wire" "$(hex_of "$derived")" "derived key (hex text) on the wire"
  assert_not_contains "$wire" "$(hex_of 'sharness-kms/1')" "protocol plaintext on the wire (it is TLS)"
  # control: the same search finds the derived key in what the client wrote to stdout
  assert_contains "$(grep -E '^[0-9 ]*write\(1,' "$trace" | tr -d '\\x')" "$(hex_of "$derived")" "control: stdout"
}

# Root on the host: the secret pages do not read through /proc/<pid>/mem; the KMS is not dumpable.
case_secret_pages_and_dumpable() {
  local id w g out
  id=$(newid ks)
  kms_bundle b "$id" -- sleep 60
  must_create "$B" "$id"
  w=$(kms_worker_pid "$id")
  g=$(kms_gate_pid "$id")
  [ -n "$w" ] && [ -n "$g" ] || fail "no KMS processes (worker '$w', gate '$g')"
  assert_contains "$(<"$KLOG")" "in memfd_secret" "the worker says its keys are in memfd_secret"
  out=$(perl -e '
    my $pid = shift; my ($s, $h);
    open(my $m, "<", "/proc/$pid/maps") or die; while (<$m>) {
      $s //= hex($1) if m{^([0-9a-f]+)-\S+ rw-s .*/secretmem};
      $h //= hex($1) if m{^([0-9a-f]+)-\S+ rw-p .*\[heap\]};
    }
    die "no secretmem mapping\n" unless defined $s;
    open(my $mem, "<:raw", "/proc/$pid/mem") or die "open mem: $!";
    my $buf;
    sysseek($mem, $h, 0); my $n = sysread($mem, $buf, 64); print "heap=", ($n // "err:$!"), "\n";
    sysseek($mem, $s, 0); $n = sysread($mem, $buf, 32); print "secret=", (defined $n ? "read $n" : "err:$!"), "\n";' "$w")
  assert_contains "$out" "heap=64" "control: root reads the worker's ordinary memory"
  assert_contains "$out" "secret=err:Input/output error" "root reading the secret pages"
  # Not dumpable: /proc/<pid>/ files belong to root, not to the process's uid.
  for p in "$w" "$g"; do
    assert_ne 0 "$(awk '/^Uid:/ {print $2}' "/proc/$p/status")" "KMS process $p runs as root"
    assert_eq 0 "$(stat -c %u "/proc/$p/mem")" "/proc/$p/mem owner (a dumpable process owns it)"
  done
  assert_eq 0 "$(cat "/proc/$w/limits" | awk '/Max core file size/ {print $5}')" "RLIMIT_CORE"
}

case_frozen_between_requests() {
  local id
  id=$(newid kf)
  kms_bundle b "$id" -- sh -c "sharness-kms-client ${CLIENT_ARGS[*]} --vault db --host db.internal --op read; sleep 60"
  must_create "$B" "$id"
  assert_eq FROZEN "$(kms_frozen "$id")" "frozen before the first request"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  assert_eq FROZEN "$(kms_frozen "$id")" "frozen after the first request"
  _run_cmd rt exec "$id" sharness-kms-client "${CLIENT_ARGS[@]}" --vault db --host cache.internal --op read
  assert_eq 0 "$CMD_RC" "second request: $CMD_OUT"
  assert_eq "$(expected_key "$MASTER_DB" db cache.internal read)" "$CMD_OUT"
  assert_eq FROZEN "$(kms_frozen "$id")" "frozen after the second request"
  _run_cmd "$SHARNESS_KMS" status --config "$KCFG"
  assert_eq 0 "$CMD_RC" "sharness-kms status: $CMD_OUT"
  assert_eq "true true $(kms_worker_pid "$id")" "$(jq -r '"\(.running) \(.workerFrozen) \(.workerPid)"' <<<"$CMD_OUT")" \
    "status: running, worker frozen, its pid"
  assert_eq 2 "$(grep -c 'served; thaw' "$KLOG")" "the gate thawed and froze once per request"
}

case_isolation_and_gone_after_delete() {
  local id w g cpid uid links d st
  id=$(newid ki)
  kms_bundle b "$id" -- sleep 60
  cfg "$B" '.process.user.uid = 1000 | .process.user.gid = 1000'
  must_create "$B" "$id"
  must_start "$id"
  cpid=$(<"$CASEDIR/$id.pid")
  w=$(kms_worker_pid "$id")
  g=$(kms_gate_pid "$id")
  for p in "$w" "$g"; do
    uid=$(awk '/^Uid:/ {print $2}' "/proc/$p/status")
    assert_ne 1000 "$uid" "KMS process $p shares the workload's uid"
    assert_ne 0 "$uid" "KMS process $p runs as root"
    assert_eq "0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000" \
      "$(awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ {printf "%s ", $2}' "/proc/$p/status" | sed 's/ $//')" "capabilities of $p"
    assert_eq 1 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$p/status")" "no_new_privs of $p"
    assert_eq 2 "$(awk '/^Seccomp:/ {print $2}' "/proc/$p/status")" "seccomp filter on $p"
    assert_ne "$(host_ns net)" "$(readlink "/proc/$p/ns/net")" "KMS process $p in the host network namespace"
    assert_ne "$(readlink "/proc/$cpid/ns/net")" "$(readlink "/proc/$p/ns/net")" "KMS $p shares the workload's netns"
    links=$(nsenter -t "$p" -n ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
    assert_eq "lo " "$links" "network interfaces of $p"
    assert_ne "$(host_ns mnt)" "$(readlink "/proc/$p/ns/mnt")" "mount namespace of $p"
    assert_ne "$(host_ns ipc)" "$(readlink "/proc/$p/ns/ipc")" "ipc namespace of $p"
  done
  assert_ne "$(host_ns pid)" "$(readlink "/proc/$w/ns/pid")" "the worker's pid namespace"
  assert_eq 1 "$(awk '/^NSpid:/ {print $NF}' "/proc/$w/status")" "the worker is pid 1 of its own pid namespace"
  assert_ne "$(awk '/^Uid:/ {print $2}' "/proc/$w/status")" "$(awk '/^Uid:/ {print $2}' "/proc/$g/status")" \
    "gate and worker share a uid"
  assert_eq 1 "$(cat "$CGROOT/pids/$KMS_CG/$id/worker/pids.max" 2>/dev/null || cat "$CGROOT/unified/$KMS_CG/$id/worker/pids.max" 2>/dev/null ||
    cat "$CGROOT/$KMS_CG/$id/worker/pids.max")" \
    "worker pids.max"
  _run_cmd rt kill "$id" KILL
  wait_status "$id" stopped
  _run_cmd rt delete "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  # (a zombie is gone too: it holds no memory or namespace, and waits only for its reaper,
  # this shell as subreaper here, the shim under containerd)
  for p in "$w" "$g"; do
    st=$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    [ -z "$st" ] || [ "$st" = Z ] || fail "KMS process $p still alive after delete (state $st)"
  done
  [ ! -e "$KSOCK/kms.sock" ] || fail "KMS socket left after delete"
  _run_cmd "$SHARNESS_KMS" status --config "$KCFG"
  assert_eq 3 "$CMD_RC" "sharness-kms status after delete: $CMD_OUT"
  [ ! -e "$TMP/kms-state/$id" ] || fail "KMS state dir left after delete"
  for d in "$CGROOT"/*/"$KMS_CG/$id" "$CGROOT/$KMS_CG/$id"; do
    [ ! -d "$d" ] || fail "KMS cgroup left after delete: $d"
  done
}

# A KEK others could read, or a vault sealed under another KEK: start refuses, so create fails
# (createRuntime hook), and nothing of the KMS is left (state, uid claims, cgroups, socket).
case_bad_kek_refused() {
  local id d other
  for bad in mode other; do
    id=$(newid "kk-$bad")
    kms_bundle b "$id" -- true
    if [ "$bad" = mode ]; then
      cp "$K/kek" "$CASEDIR/kek-$bad" && chmod 0644 "$CASEDIR/kek-$bad"
    else
      "$SHARNESS_KMS_SEAL" kms seal --kek "$CASEDIR/kek-$bad" --out "$CASEDIR/unused-vault" db >/dev/null 2>&1
    fi
    cfg_kms() { jq --arg k "$CASEDIR/kek-$bad" '.kek = $k' "$KCFG" >"$KCFG.new" && mv "$KCFG.new" "$KCFG"; }
    cfg_kms
    create_in "$B" "$id"
    assert_ne 0 "$RC" "create with a bad KEK ($bad)"
    if [ "$bad" = mode ]; then
      assert_contains "$ERR" "lets others read it"
    else
      assert_contains "$ERR" "sealed under another key-encryption key"
    fi
    assert_nothing_left "$id"
    [ ! -e "$TMP/kms-state/$id" ] || fail "KMS state dir left: $TMP/kms-state/$id"
    [ ! -e "$KSOCK/kms.sock" ] || fail "KMS socket left"
    for d in "$CGROOT"/*/"$KMS_CG/$id" "$CGROOT/$KMS_CG/$id"; do
      [ ! -d "$d" ] || fail "KMS cgroup left: $d"
    done
    other=$(grep -l "^$id\$" "$TMP/kms-state/.uids"/* 2>/dev/null || true)
    assert_eq "" "$other" "uid claims left for $id"
  done
}

# The policy's secrets section (docs/policy.md): no hand-written hooks. create places the KMS
# (its certificate from the runtime's CA, role kms; the client's is the container's own
# identity), the workload asks through SHARNESS_KMS_SOCKET, and delete leaves nothing of it.
# Only our runtime reads policies (runc/crun: no --policy).
# under_secrets_policy: later rt calls of this case run with a policy whose secrets section
# allows vault db, host db.internal, op read, the workload asking itself (workloadMayAsk), and a
# runtime config naming the suite's vault.
# An optional JQ_FILTER argument edits the policy (e.g. '.secrets.allowWeakerMemory = true').
under_secrets_policy() {
  local pol rc
  pol=$CASEDIR/kms-app.json
  jq -n '{id: "kms-app", version: 1, role: "app",
          secrets: {vaults: ["db"], hosts: ["db.internal"], operations: ["read"], ttl: 600, workloadMayAsk: true}}' |
    jq "${1:-.}" >"$pol"
  SECRETS_POLICY=$pol
  rc=$CASEDIR/runtime.json
  jq -n --arg ca "$CASEDIR/ca" --arg v "$K/vault" --arg k "$K/kek" --arg cg "/$KMS_CG" \
    '{caDir: $ca, kms: {vault: $v, kek: $k, cgroupParent: $cg}}' >"$rc"
  SECRETS_RC=$rc
  RT_EXTRA=("${RT_EXTRA[@]}" --policy "$pol" --config "$rc")
}

# kms_running ID: the pids of processes whose command line names ID's policy-made KMS config.
kms_running() {
  # (a bracket in the pattern: grep's own command line does not match it)
  grep -ls "$STATE/$1/kms/kms\.jso[n]" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 | tr '\n' ' ' || true
}

# assert_no_kms_state ID WHEN: nothing of ID's KMS is left: its container state (KMS config,
# socket dir, certificate), its pid dir, its cgroups, its uid claims.
assert_no_kms_state() {
  local d
  [ ! -e "$STATE/$1" ] || fail "container state (KMS config, socket dir, certificate) left $2: $STATE/$1"
  [ ! -e "$STATE/.kms/$1" ] || fail "KMS pid dir left $2: $STATE/.kms/$1"
  for d in "$CGROOT"/*/"$KMS_CG/$1" "$CGROOT/$KMS_CG/$1"; do
    [ ! -d "$d" ] || fail "KMS cgroup left $2: $d"
  done
  assert_eq "" "$(grep -l "^$1\$" "$STATE/.kms/.uids"/* 2>/dev/null || true)" "KMS uid claims left $2"
}

case_policy_secrets() {
  known_fail runc crun
  local id gate want
  id=$(newid kp)
  under_secrets_policy
  new_bundle b sh -c 'c() { sharness-kms-client --socket "$SHARNESS_KMS_SOCKET" --ca /etc/kms/ca.pem \
      --cert /etc/kms/cert.pem --key /etc/kms/key.pem --vault db --op read --host "$1"; echo "rc $?"; }
    c db.internal; c evil.example; sleep 60' >/dev/null
  must_create "$B" "$id"
  gate=$(cut -d' ' -f1 "$STATE/.kms/$id/kms.pid" 2>/dev/null)
  [ -n "$gate" ] && [ -d "/proc/$gate" ] || fail "no KMS gate running after create (pid file $STATE/.kms/$id/kms.pid)"
  assert_ne "" "$(kms_running "$id")" "kms_running sees the KMS (the failed-create case relies on it)"
  assert_eq "$(jq -r .annotations.\"org.sharness.identity.uri\" "$STATE/$id/config.json")" \
    "spiffe://sharness.local/role/app/$id" "the container's identity (the KMS's only client)"
  must_start "$id"
  want=$(expected_key "$MASTER_DB" db db.internal read)
  for _ in $(seq 100); do grep -q '^rc [0-9]' "$CASEDIR/$id.out" 2>/dev/null && [ "$(grep -c '^rc' "$CASEDIR/$id.out")" = 2 ] && break; sleep 0.1; done
  assert_eq "$want rc 0 rc 2" "$(tr '\n' ' ' <"$CASEDIR/$id.out" | sed 's/ $//')" \
    "allowed host: the derived key; evil.example: refused (exit 2)"
  assert_contains "$(<"$CASEDIR/$id.err")" 'host "evil.example" is not allowed'
  _run_cmd rt kill "$id" KILL
  wait_status "$id" stopped
  _run_cmd rt delete "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  st=$(awk '/^State:/ {print $2}' "/proc/$gate/status" 2>/dev/null || true)
  [ -z "$st" ] || [ "$st" = Z ] || fail "KMS gate $gate still alive after delete (state $st)"
  assert_no_kms_state "$id" "after delete"
}

# secrets.workloadMayAsk (docs/kms.md "Callers"): by default the KMS answers only the egress
# door, so the workload's own derive request is refused, naming the key; the control is the same
# workload, same request, under the same policy with workloadMayAsk: true: it gets its key.
case_workload_may_ask() {
  known_fail runc crun
  local id ask='sharness-kms-client --socket "$SHARNESS_KMS_SOCKET" --ca /etc/kms/ca.pem \
      --cert /etc/kms/cert.pem --key /etc/kms/key.pem --vault db --op read --host db.internal; echo "rc $?"'
  local base=("${RT_EXTRA[@]}")
  under_secrets_policy 'del(.secrets.workloadMayAsk)'
  id=$(newid kw)
  new_bundle b sh -c "$ask" >/dev/null
  run_in "$B" "$id"
  assert_eq "rc 2" "$OUT" "the workload's derive without workloadMayAsk: refused by the KMS (exit 2)"
  assert_contains "$ERR" "secrets.workloadMayAsk is false" "the refusal names the key"
  assert_not_contains "$OUT" "$(expected_key "$MASTER_DB" db db.internal read)" "no key handed out"
  # control: the same, with the policy saying so
  RT_EXTRA=("${base[@]}")
  under_secrets_policy '.secrets.workloadMayAsk = true'
  id=$(newid kw)
  new_bundle b sh -c "$ask" >/dev/null
  run_in "$B" "$id"
  assert_eq "$(expected_key "$MASTER_DB" db db.internal read) rc 0" "$(tr '\n' ' ' <<<"$OUT" | sed 's/ $//')" \
    "control: with workloadMayAsk the workload gets its derived key: $ERR"
}

# A credential (an API token the egress door injects) is released to the container's door only:
# the workload asking with its own leaf is refused, from inside and from the host; the control is
# the same request with the door's leaf (role egress, issued at create), which gets the token.
# A policy with secrets and an egress rule that carries the credential; the vault holds it.
case_credential_only_to_the_door() {
  known_fail runc crun
  local id pol rc token vault ask
  token=tok-$(openssl rand -hex 16)
  printf '%s\n' "$token" >"$CASEDIR/github.token"
  vault=$CASEDIR/vault-cred
  "$SHARNESS_KMS_SEAL" kms seal --kek "$K/kek" --out "$vault" --credential github="$CASEDIR/github.token" \
    db="$K/db.master.copy" >/dev/null 2>"$CASEDIR/seal.err" || { fail "kms seal --credential: $(<"$CASEDIR/seal.err")"; return 1; }
  rm -f "$CASEDIR/github.token"
  assert_not_contains "$(<"$vault")" "$token" "the vault holds the token sealed"
  pol=$CASEDIR/kms-egress.json
  jq -n '{id: "kms-egress", version: 1, role: "app",
          secrets: {vaults: ["db"], hosts: ["db.internal"], operations: ["read"], ttl: 600, workloadMayAsk: true},
          egress: {rules: [{host: "api.test", credential: {vault: "github", inject: "bearer", env: "GITHUB_TOKEN"}}]}}' >"$pol"
  rc=$CASEDIR/runtime.json
  jq -n --arg ca "$CASEDIR/ca" --arg v "$vault" --arg k "$K/kek" --arg cg "/$KMS_CG" \
    '{caDir: $ca, kms: {vault: $v, kek: $k, cgroupParent: $cg}}' >"$rc"
  RT_EXTRA=("${RT_EXTRA[@]}" --policy "$pol" --config "$rc")
  id=$(newid kc)
  ask='sharness-kms-client --socket "$SHARNESS_KMS_SOCKET" --ca /etc/kms/ca.pem --cert /etc/kms/cert.pem \
      --key /etc/kms/key.pem --credential github --host api.test; echo "rc $?"; echo "env $GITHUB_TOKEN"; sleep 60'
  new_bundle b sh -c "$ask" >/dev/null
  must_create "$B" "$id"
  grep -q '"msg":"door serving' "$STATE/$id/egress/door.log" ||
    fail "control: the door fetched its credential from the KMS and serves: $(cat "$STATE/$id/egress/door.err" 2>/dev/null)"
  must_start "$id"
  for _ in $(seq 100); do grep -q '^env ' "$CASEDIR/$id.out" 2>/dev/null && break; sleep 0.1; done
  assert_line "$(<"$CASEDIR/$id.out")" '^rc 2$' "the workload's credential request (its own leaf): refused by the KMS"
  assert_contains "$(<"$CASEDIR/$id.err")" "a credential goes to the egress door only" "the refusal says why"
  assert_line "$(<"$CASEDIR/$id.out")" '^env sharness:github$' "the workload sees the placeholder"
  assert_not_contains "$(<"$CASEDIR/$id.out")" "$token" "the token inside the container"
  # From the host, the workload's leaf again (refused), and the door's (the control: released).
  local sock=$STATE/$id/kms/kms.sock/kms.sock idir door=$STATE/$id/egress/kms-tls
  idir=$STATE/$id/identity  # the container's own leaf (bound at /etc/kms)
  _run_cmd "$SHARNESS_KMS_CLIENT" --socket "$sock" --ca "$idir/ca.pem" --cert "$idir/cert.pem" --key "$idir/key.pem" \
    --credential github --host api.test
  assert_eq 2 "$CMD_RC" "the workload's leaf from the host: refused ($CMD_OUT)"
  assert_not_contains "$CMD_OUT" "$token" "no token to the workload's leaf"
  _run_cmd "$SHARNESS_KMS_CLIENT" --socket "$sock" --ca "$door/ca.pem" --cert "$door/cert.pem" --key "$door/key.pem" \
    --credential github --host api.test
  assert_eq "0 $token" "$CMD_RC $CMD_OUT" "control: the door's leaf gets the token"
  # The door's leaf, another host than the rule ties: refused.
  _run_cmd "$SHARNESS_KMS_CLIENT" --socket "$sock" --ca "$door/ca.pem" --cert "$door/cert.pem" --key "$door/key.pem" \
    --credential github --host evil.test
  assert_eq 2 "$CMD_RC" "the door's leaf for a host no rule ties to the credential: refused ($CMD_OUT)"
  _run_cmd rt kill "$id" KILL
  wait_status "$id" stopped
  _run_cmd rt delete "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  assert_no_kms_state "$id" "after delete"
}

# door_only_kms TOKEN_FILE: a vault holding TOKEN_FILE as credential "github", a policy whose one
# rule ties it to api.test (no secrets: the KMS answers the door alone, nothing of it enters the
# container) and a runtime config naming the vault and this case's CA. Sets RT_EXTRA.
door_only_kms() {
  local vault=$CASEDIR/vault-cred pol=$CASEDIR/door-only.json rc=$CASEDIR/runtime.json
  "$SHARNESS_KMS_SEAL" kms seal --kek "$K/kek" --out "$vault" --credential github="$1" >/dev/null \
    2>"$CASEDIR/seal.err" || { fail "kms seal --credential: $(<"$CASEDIR/seal.err")"; return 1; }
  jq -n '{id: "door-only", version: 1, role: "app",
          egress: {rules: [{host: "api.test", credential: {vault: "github", inject: "bearer", env: "GITHUB_TOKEN"}}]}}' >"$pol"
  jq -n --arg ca "$CASEDIR/ca" --arg v "$vault" --arg k "$K/kek" --arg cg "/$KMS_CG" \
    '{caDir: $ca, kms: {vault: $v, kek: $k, cgroupParent: $cg}}' >"$rc"
  RT_EXTRA=("${RT_EXTRA[@]}" --policy "$pol" --config "$rc")
}

# ask_credential SOCKET LEAF_DIR: the door's request (sharness-kms-client --credential) with the
# leaf in LEAF_DIR; sets CMD_RC, CMD_OUT.
ask_credential() {
  _run_cmd "$SHARNESS_KMS_CLIENT" --socket "$1" --ca "$2/ca.pem" --cert "$2/cert.pem" --key "$2/key.pem" \
    --credential github --host api.test
}

# Two containers of one policy: every leaf comes from the host's one CA, with the same roles.
# Container B's door leaf (role egress, id B) at container A's KMS is refused in the handshake,
# before the worker thaws; controls: A's door leaf at A's KMS, and B's at B's, are answered. The
# credential is 8 KiB, the limit: the door gets it whole; one byte more does not seal.
case_credential_bound_to_its_container() {
  known_fail runc crun
  local a b token before
  token=$(head -c 6144 /dev/urandom | base64 -w0)  # 8192 characters: a long JWT's size
  assert_eq 8192 "${#token}" "the token is 8 KiB"
  printf '%s\n' "$token" >"$CASEDIR/github.token"
  printf '%sx\n' "$token" >"$CASEDIR/over.token"
  _run_cmd "$SHARNESS_KMS_SEAL" kms seal --kek "$K/kek" --out "$CASEDIR/vault-over" --credential jwt="$CASEDIR/over.token"
  assert_ne 0 "$CMD_RC" "kms seal of 8193 bytes: refused"
  assert_contains "$CMD_OUT" 'credential "jwt": 8193 bytes, more than the limit of 8192 bytes' "the error names both"
  [ ! -e "$CASEDIR/vault-over" ] || fail "a vault was written for the refused credential"
  door_only_kms "$CASEDIR/github.token" || return 1
  rm -f "$CASEDIR/github.token" "$CASEDIR/over.token"
  a=$(newid ka)
  b=$(newid kb)
  new_bundle ba sleep 60 >/dev/null
  must_create "$B" "$a"
  new_bundle bb sleep 60 >/dev/null
  must_create "$B" "$b"
  local sock_a=$STATE/$a/kms/kms.sock/kms.sock sock_b=$STATE/$b/kms/kms.sock/kms.sock
  local door_a=$STATE/$a/egress/kms-tls door_b=$STATE/$b/egress/kms-tls log_a=$STATE/$a/kms/kms.log
  for d in "$a" "$b"; do
    grep -q '"msg":"door serving' "$STATE/$d/egress/door.log" ||
      fail "control: door $d fetched its 8 KiB credential and serves: $(cat "$STATE/$d/egress/door.err" 2>/dev/null)"
  done
  assert_eq "URI:spiffe://sharness.local/role/egress/$b" \
    "$(openssl x509 -in "$door_b/cert.pem" -noout -ext subjectAltName | sed -n 2p | tr -d ' ')" "B's door leaf"
  cmp -s "$door_a/ca.pem" "$door_b/ca.pem" || fail "A's and B's leaves should come from one CA"
  before=$(worker_requests "$log_a")
  ask_credential "$sock_a" "$door_b"
  assert_eq 3 "$CMD_RC" "B's door leaf at A's KMS: refused in the handshake ($CMD_OUT)"
  assert_not_contains "$CMD_OUT" "$token" "no token to B's leaf"
  assert_contains "$(<"$log_a")" "peer id \"$b\", expected \"$a\"" "A's KMS says whose leaf it refused"
  assert_eq "$before" "$(worker_requests "$log_a")" "A's worker never saw B's request"
  ask_credential "$sock_a" "$door_a"
  assert_eq "0 $token" "$CMD_RC $CMD_OUT" "control: A's door leaf at A's KMS gets the whole 8 KiB token"
  ask_credential "$sock_b" "$door_b"
  assert_eq "0 $token" "$CMD_RC $CMD_OUT" "control: B's door leaf at B's own KMS is answered"
  for d in "$a" "$b"; do
    _run_cmd rt delete --force "$d"
    assert_eq 0 "$CMD_RC" "delete $d: $CMD_OUT"
    assert_no_kms_state "$d" "after delete"
  done
}

# Where the credential may be: the door holds it (it injects it) and the KMS worker in its
# memfd_secret pages (which root cannot read). It must be in no other memory (the workload's,
# the KMS gate's, the KMS worker's ordinary pages), no log and no file of the container's or of
# its state dir. Control: the same scan finds it in the door's memory.
case_credential_only_in_the_door_memory() {
  known_fail runc crun
  local id token hex pid door gate worker
  token=cred-$(openssl rand -hex 24)
  hex=$(hex_of "$token")
  printf '%s\n' "$token" >"$CASEDIR/github.token"
  door_only_kms "$CASEDIR/github.token" || return 1
  rm -f "$CASEDIR/github.token"
  id=$(newid kd)
  new_bundle b sh -c 'echo "env $GITHUB_TOKEN"; sleep 60' >/dev/null
  must_create "$B" "$id"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  assert_eq "env sharness:github" "$(<"$CASEDIR/$id.out")" "the workload sees the placeholder"
  pid=$(<"$CASEDIR/$id.pid")
  door=$(jq -r .pid "$STATE/$id/egress/door.state")
  gate=$(cut -d' ' -f1 "$STATE/.kms/$id/kms.pid")
  worker=$(kms_worker_pid "$id")
  [ -n "$door" ] && [ -n "$gate" ] && [ -n "$worker" ] || fail "no door, gate or worker ('$door' '$gate' '$worker')"
  assert_eq found "$(scan_mem "$door" "$hex")" "control: the scan finds the credential in the door's memory"
  # Controls: the same scan reads each process (what it surely holds: the placeholder, the rule's host).
  assert_eq found "$(scan_mem "$pid" "$(hex_of sharness:github)")" "control: the placeholder in the workload's memory"
  assert_eq found "$(scan_mem "$gate" "$(hex_of api.test)")" "control: the rule's host in the KMS gate's memory"
  assert_eq found "$(scan_mem "$worker" "$(hex_of api.test)")" "control: the rule's host in the KMS worker's memory"
  assert_eq absent "$(scan_mem "$pid" "$hex")" "the credential in the workload's memory"
  assert_eq absent "$(scan_mem "$gate" "$hex")" "the credential in the KMS gate's memory"
  assert_eq absent "$(scan_mem "$worker" "$hex")" "the credential in the KMS worker's memory outside memfd_secret"
  assert_eq absent "$(scan_tree "/proc/$pid/root" "$hex")" "the credential in the container's files"
  assert_not_contains "$(tr '\0' '\n' <"/proc/$pid/environ")" "$token" "the credential in the workload's environment"
  assert_eq absent "$(scan_tree "$STATE/$id" "$hex")" "the credential in the state dir (KMS and door logs included)"
  assert_contains "$(cat "$STATE/$id/kms/kms.log")" 'request 1 ' "control: the KMS logged the door's request"
  _run_cmd rt delete --force "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  assert_no_kms_state "$id" "after delete"
}

# A create that fails after the createRuntime hook started the KMS (here: its --pid-file cannot
# be written) runs the poststop hooks as delete would: no KMS process, cgroup or uid claim left.
case_failed_create_stops_the_kms() {
  known_fail runc crun
  local id
  id=$(newid kf)
  under_secrets_policy
  new_bundle b sleep 60 >/dev/null
  _cgpath_for "$B" "$id"
  _run_cmd rt create --bundle "$B" --pid-file "$CASEDIR/no-such-dir/$id.pid" "$id"
  assert_ne 0 "$CMD_RC" "create with an unwritable pid file"
  assert_contains "$CMD_OUT" "no-such-dir" "the error names the pid file"
  assert_eq "" "$(kms_running "$id")" "KMS processes left after the failed create"
  assert_no_kms_state "$id" "after the failed create"
}

# ---- the weaker memory mode: a kernel without memfd_secret, made real for the processes under
# test by without-memfd-secret (a seccomp filter answering ENOSYS to memfd_secret, inherited by
# everything they start). This machine has memfd_secret: the other cases are the control.

# weak_mapping PID MASTER_HEX: the worker's mappings that are mlocked (lo), excluded from core
# dumps (dd) and wiped on fork (wf), per /proc/PID/smaps, and whether root reads the master key
# in them through /proc/PID/mem (the weakness the mode admits). Prints "mappings=N key=found|absent".
weak_mapping() {
  perl -e '
    my ($pid, $hex) = @ARGV; my $raw = pack("H*", $hex); my ($n, $found, $range) = (0, 0);
    open(my $sm, "<", "/proc/$pid/smaps") or die "smaps: $!";
    open(my $mem, "<:raw", "/proc/$pid/mem") or die "mem: $!";
    while (<$sm>) {
      $range = [hex $1, hex $2] if /^([0-9a-f]+)-([0-9a-f]+) /;
      next unless /^VmFlags:(.*)$/;
      my %f = map { $_ => 1 } split " ", $1;
      next unless $f{lo} && $f{dd} && $f{wf};
      $n++; my $buf;
      sysseek($mem, $range->[0], 0) or next;
      $found = 1 if sysread($mem, $buf, $range->[1] - $range->[0]) && index($buf, $raw) >= 0;
    }
    print "mappings=$n key=", ($found ? "found" : "absent"), "\n";' "$1" "$2"
}

need_without_memfd_secret() {
  [ -x "${SHARNESS_WITHOUT_MEMFD_SECRET:-}" ] || { skip "SHARNESS_WITHOUT_MEMFD_SECRET (the seccomp launcher) not set"; return 1; }
}

# Hand-written hooks, the KMS started through the launcher: without allowWeakerMemory it refuses
# (naming memfd_secret and the key), and nothing is left; with it, it serves the same derived
# key from mlocked, MADV_DONTDUMP, MADV_WIPEONFORK memory, and says so in its log.
case_weaker_memory_by_hand() {
  need_without_memfd_secret || return 0
  local id w got
  id=$(newid kw)
  kms_bundle b "$id" -- sleep 60
  cfg "$B" '.hooks.createRuntime[0] = {"path": $l, "args": ["without-memfd-secret", $kms, "start", "--config", $c]}' \
    --arg l "$SHARNESS_WITHOUT_MEMFD_SECRET" --arg kms "$SHARNESS_KMS" --arg c "$KCFG"
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create whose KMS meets a kernel without memfd_secret, weaker mode not allowed"
  assert_contains "$ERR" "memfd_secret" "the refusal names memfd_secret"
  assert_contains "$ERR" "allowWeakerMemory" "the refusal says how to allow the weaker mode"
  assert_nothing_left "$id"
  [ ! -e "$TMP/kms-state/$id" ] || fail "KMS state dir left: $TMP/kms-state/$id"

  id=$(newid kw)
  kms_bundle b "$id" -- sleep 60
  jq '.allowWeakerMemory = true' "$KCFG" >"$KCFG.new" && mv "$KCFG.new" "$KCFG"
  cfg "$B" '.hooks.createRuntime[0] = {"path": $l, "args": ["without-memfd-secret", $kms, "start", "--config", $c]}' \
    --arg l "$SHARNESS_WITHOUT_MEMFD_SECRET" --arg kms "$SHARNESS_KMS" --arg c "$KCFG"
  must_create "$B" "$id"
  assert_contains "$(<"$KLOG")" "WEAKER MODE" "the worker logs the weaker mode"
  assert_contains "$(<"$KLOG")" "MADV_DONTDUMP, MADV_WIPEONFORK" "the log names what the weaker mode does"
  assert_not_contains "$(<"$KLOG")" "in memfd_secret" "no memfd_secret claimed"
  w=$(kms_worker_pid "$id")
  [ -n "$w" ] || fail "no KMS worker"
  assert_eq "mappings=1 key=found" "$(weak_mapping "$w" "$MASTER_DB")" \
    "one mlocked+dontdump+wipeonfork mapping holds the master key, and root reads it (the admitted weakness)"
  grep -q secretmem "/proc/$w/maps" && fail "a secretmem mapping in the weaker mode"
  assert_eq 0 "$(stat -c %u "/proc/$w/mem")" "the worker is still not dumpable"
  must_start "$id"
  _run_cmd rt exec "$id" sharness-kms-client "${CLIENT_ARGS[@]}" --vault db --host db.internal --op read
  assert_eq 0 "$CMD_RC" "request to the weaker-mode KMS: $CMD_OUT"
  assert_eq "$(expected_key "$MASTER_DB" db db.internal read)" "$CMD_OUT" "the same derived key as with memfd_secret"
}

# The policy's secrets.allowWeakerMemory, with the whole runtime (its probe, its hooks, the KMS)
# under the launcher: without the key create refuses, naming memfd_secret; `policy explain`
# says MISSING and exits 1. With it explain says WEAKER MODE, kms.json carries the key, the KMS
# logs the mode and the workload gets its derived key.
case_policy_weaker_memory() {
  known_fail runc crun
  need_without_memfd_secret || return 0
  local id orig=$RUNTIME base=("${RT_EXTRA[@]}")
  RT_EXTRA=("$orig" "${base[@]}")
  RUNTIME=$SHARNESS_WITHOUT_MEMFD_SECRET
  under_secrets_policy
  _run_cmd "$SHARNESS_WITHOUT_MEMFD_SECRET" "$orig" policy explain "$SECRETS_POLICY"
  assert_eq 1 "$CMD_RC" "policy explain without memfd_secret, weaker mode not allowed: $CMD_OUT"
  assert_contains "$CMD_OUT" "[MISSING] secrets: KMS sidecar"
  assert_contains "$CMD_OUT" "secrets.allowWeakerMemory"
  id=$(newid kwp)
  new_bundle b sleep 60 >/dev/null
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create under the strict policy without memfd_secret"
  assert_contains "$ERR" "memfd_secret" "the refusal names memfd_secret"
  assert_eq "" "$(kms_running "$id")" "no KMS after the refusal"
  [ ! -e "$STATE/$id" ] || fail "container state left: $STATE/$id"

  RT_EXTRA=("$orig" "${base[@]}")
  under_secrets_policy '.secrets.allowWeakerMemory = true'
  _run_cmd "$SHARNESS_WITHOUT_MEMFD_SECRET" "$orig" policy explain "$SECRETS_POLICY"
  assert_eq 0 "$CMD_RC" "policy explain, weaker mode allowed: $CMD_OUT"
  assert_contains "$CMD_OUT" "WEAKER MODE on this kernel (no memfd_secret)"
  id=$(newid kwp)
  new_bundle b sh -c 'sharness-kms-client --socket "$SHARNESS_KMS_SOCKET" --ca /etc/kms/ca.pem \
      --cert /etc/kms/cert.pem --key /etc/kms/key.pem --vault db --op read --host db.internal' >/dev/null
  must_create "$B" "$id"
  assert_eq true "$(jq .allowWeakerMemory "$STATE/$id/kms/kms.json")" "the policy's key in the KMS config"
  assert_contains "$(<"$STATE/$id/kms/kms.log")" "WEAKER MODE" "the KMS logs the weaker mode"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  assert_eq "$(expected_key "$MASTER_DB" db db.internal read)" "$(<"$CASEDIR/$id.out")" "the workload's derived key"
  wait_status "$id" stopped
  _run_cmd rt delete "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  assert_eq "" "$(kms_running "$id")" "KMS gone after delete"
}

# `policy map` shows the KMS's hooks, mounts and env (the path create takes, placeholders for the
# state root and id); `policy apply` writes SHARNESS_KMS_SOCKET and the "sharness" block's
# secrets, with no vault, KEK or key in config.json; `run` of that config with no --policy then
# places the KMS from the block (create's path), the workload gets its key, delete leaves nothing.
case_policy_apply_then_run() {
  known_fail runc crun
  local id base=("${RT_EXTRA[@]}") b2 out st
  under_secrets_policy
  _run_cmd "$RUNTIME" policy map "$SECRETS_POLICY"
  assert_eq 0 "$CMD_RC" "policy map: $CMD_OUT"
  assert_eq '["sharness-kms","start","--config","<state root>/<container id>/kms/kms.json"]' \
    "$(jq -c '.hooks.createRuntime[] | select(.args[0] == "sharness-kms") | .args' <<<"$CMD_OUT")" "map: createRuntime hook"
  assert_eq '["sharness-kms","stop","--config","<state root>/<container id>/kms/kms.json"]' \
    "$(jq -c '.hooks.poststop[] | select(.args[0] == "sharness-kms") | .args' <<<"$CMD_OUT")" "map: poststop hook"
  assert_eq "/etc/kms /run/kms /usr/bin/sharness-kms-client" \
    "$(jq -r '[.mounts[].destination | select(test("kms"))] | sort | join(" ")' <<<"$CMD_OUT")" "map: the KMS mounts"
  assert_contains "$(jq -r '.process.env[]' <<<"$CMD_OUT")" "SHARNESS_KMS_SOCKET=/run/kms/kms.sock" "map: env"

  id=$(newid kap)
  new_bundle b sh -c 'sharness-kms-client --socket "$SHARNESS_KMS_SOCKET" --ca /etc/kms/ca.pem \
      --cert /etc/kms/cert.pem --key /etc/kms/key.pem --vault db --op read --host db.internal' >/dev/null
  _run_cmd "$RUNTIME" policy apply --policy "$SECRETS_POLICY" --bundle "$B"
  assert_eq 0 "$CMD_RC" "policy apply: $CMD_OUT"
  assert_eq '{"vaults":["db"],"hosts":["db.internal"],"operations":["read"],"ttl":600,"workloadMayAsk":true}' \
    "$(jq -c .sharness.secrets "$B/config.json")" "apply: the block's secrets"
  assert_contains "$(jq -r '.process.env[]' "$B/config.json")" "SHARNESS_KMS_SOCKET=/run/kms/kms.sock" "apply: env"
  assert_not_contains "$(<"$B/config.json")" "$K/vault" "apply: no vault path in config.json"
  assert_eq "$(scan_tree "$B" "$MASTER_DB")" absent "apply: no master key in the bundle"

  # Without trustBundleClaims the block is a client's claim: refused, naming it.
  RT_EXTRA=("${base[@]}" --config "$SECRETS_RC")
  create_in "$B" "$id"
  assert_ne 0 "$RC" "create of an applied config without trustBundleClaims"
  assert_contains "$ERR" "config.json: sharness: a policy claim"
  jq '.trustBundleClaims = true' "$SECRETS_RC" >"$SECRETS_RC.trusted"
  RT_EXTRA=("${base[@]}" --config "$SECRETS_RC.trusted")  # no --policy: the block is the policy
  must_create "$B" "$id"
  assert_eq true "$(jq '[.hooks.createRuntime[].args[0]] | index("sharness-kms") != null' "$STATE/$id/config.json")" \
    "create added the KMS hook from the block"
  must_start "$id"
  wait_file "$CASEDIR/$id.out" 10
  wait_status "$id" stopped
  assert_eq "$(expected_key "$MASTER_DB" db db.internal read)" "$(<"$CASEDIR/$id.out")" \
    "the workload's derived key, from a config written by policy apply: $(<"$CASEDIR/$id.err")"
  _run_cmd rt delete "$id"
  assert_eq 0 "$CMD_RC" "delete: $CMD_OUT"
  assert_eq "" "$(kms_running "$id")" "KMS gone after delete"
  [ ! -e "$STATE/$id" ] || fail "container state left: $STATE/$id"

  # The block and --policy together: refused (apply every policy with policy apply).
  b2=$B
  id=$(newid kap)
  RT_EXTRA=("${base[@]}" --policy "$SECRETS_POLICY" --config "$SECRETS_RC.trusted")
  create_in "$b2" "$id"
  assert_ne 0 "$RC" "create of an applied config with --policy"
  assert_contains "$ERR" "applied by \`policy apply\`"
}

# `hello` under harsh plus a role and secrets: the KMS lines (what may be asked for, the master
# keys elsewhere, this host's secret-page mode) before the table, every attempt held with a real
# KMS per container (a throwaway vault hello sealed), and no KMS cgroup parent left.
case_hello_shows_the_kms() {
  known_fail runc crun
  local pol
  pol=$CASEDIR/harsh-kms.json
  jq '.id = "harsh-kms" | .role = "app" | .secrets = {vaults: ["db"], hosts: ["db.internal"], operations: ["read"], ttl: 600, workloadMayAsk: true}' \
    "$(installed_policies)/harsh.json" >"$pol"
  _run_cmd env TMPDIR="$CASEDIR" "$RUNTIME" hello --policy "$pol"
  assert_eq 0 "$CMD_RC" "hello under harsh-kms: $CMD_OUT"
  assert_contains "$CMD_OUT" "KMS: a sharness-kms sidecar per container (policy harsh-kms"
  assert_contains "$CMD_OUT" "may ask for: keys derived (HKDF-SHA256) for vaults [db], hosts [db.internal], operations [read], each for at most 600 s"
  assert_contains "$CMD_OUT" "the master keys are elsewhere: never in the container"
  assert_contains "$CMD_OUT" "frozen between calls"
  assert_contains "$CMD_OUT" "secret pages: memfd_secret"
  assert_match "$CMD_OUT" "[0-9]+ of [0-9]+ attempts held[;.]" "hello's summary"
  assert_not_contains "$CMD_OUT" "NOT held"
  [ -z "$(ls -d "$CGROOT"/*/sharness-hello-*-kms 2>/dev/null)" ] || fail "hello's KMS cgroup parent left"
  _run_cmd env TMPDIR="$CASEDIR" "$RUNTIME" hello
  assert_contains "$CMD_OUT" "KMS: none (policy harsh has no \"secrets\" section" "control: harsh has no KMS"
}

tcase "the client in the container gets HKDF keys: same request same key, other host other key" case_derived_key
tcase "a vault, host, operation or ttl outside the policy is refused" case_refusals
tcase "another container's, a wrong-role, other-CA or expired certificate is refused before any byte reaches the worker" case_wrong_certificate
tcase "a response replayed to another one-time key does not open" case_replay_to_another_key
tcase "the master key is in no file, env, memory or socket byte the workload reaches" case_master_key_unreachable
tcase "root cannot read the KMS's secret pages via /proc/pid/mem; the KMS is not dumpable" case_secret_pages_and_dumpable
tcase "the KMS cgroup is frozen between requests" case_frozen_between_requests
tcase "the KMS runs as other uids, no caps, only lo, own pid ns, and is gone after delete" case_isolation_and_gone_after_delete
tcase "a policy's secrets section places the KMS: derived key inside, other host refused, gone after delete" case_policy_secrets
tcase "without secrets.workloadMayAsk the workload's derive is refused (control: with it, its key)" case_workload_may_ask
tcase "a credential goes to the door's leaf only: the workload's leaf is refused (control: the door's gets it)" case_credential_only_to_the_door
tcase "another container's door leaf (same CA, same role) is refused by this KMS (control: each door at its own); an 8 KiB credential goes through, 8 KiB + 1 does not seal" case_credential_bound_to_its_container
tcase "the credential is in the door's memory only: not the workload's, the KMS gate's or worker's ordinary pages, no log or file (control: found in the door)" case_credential_only_in_the_door_memory
tcase "a create that fails after the KMS started stops it (poststop), nothing left" case_failed_create_stops_the_kms
tcase "a KEK others can read or a vault under another KEK fails create, nothing left" case_bad_kek_refused
tcase "policy map shows the KMS hooks; policy apply then run (no --policy) places the KMS" case_policy_apply_then_run
tcase "hello shows the KMS (what may be asked, keys elsewhere) and runs its containers with one" case_hello_shows_the_kms
tcase "without memfd_secret the KMS refuses unless allowWeakerMemory; with it: mlocked, dontdump, wipeonfork" case_weaker_memory_by_hand
tcase "a policy's secrets.allowWeakerMemory: refused without it, weaker mode (explained, logged) with it" case_policy_weaker_memory
finish
