#!/usr/bin/env bash
# Per-edge mutual TLS (docs/edges.md), with real containers: A (role app) reaches B (role db) over a
# declared edge, over UNIX sockets between two empty network namespaces and over TCP; C, with no
# edge to B, has no endpoint for it and cannot reach it; clients with a certificate from another
# CA, of the wrong role, or expired are refused by B's proxy and B's service receives nothing;
# the bytes between the proxies are TLS (a tap on the proxies' socket sees no plaintext); a leaf
# `ca revoke` took out of the live registry is refused (copied leaves after delete and renewal:
# conformance/adversary/edges.sh);
# certificates and keys are gone after delete and a new container never gets an old key; the
# proxies run under their own uids with no capabilities and end with their containers.
#
# The workloads are conformance/tools/edge_peer.c (built with `cc -static`): a service that
# records every byte it receives, a client, and the wire tap.
#
# Only our runtime has policies with edges (runc and crun have no --policy): every case is a
# known failure there.
. "$(dirname "$0")/../lib.sh"

EDGE=$(dirname "$RUNTIME")/sharness-edge
RT_BASE=("${RT_EXTRA[@]}")
MESH=$STATE/.edges

status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }

peer_tool() { static_tool edge_peer.c; }

# policy NAME NETWORK JSON-MEMBERS: a small policy (throwaway uid, no capabilities,
# no_new_privs, the network given) plus the edge members, in $CASEDIR/NAME.json.
policy() {
  echo "{\"id\": \"$1\", \"version\": 1, \"network\": \"$2\",
         \"identity\": {\"uid\": \"ephemeral\", \"capabilities\": [], \"noNewPrivileges\": true}${3:+, $3}}" \
    >"$CASEDIR/$1.json"
  echo "$CASEDIR/$1.json"
}
APP_UNIX='"role": "app", "edges": [{"to": "db", "over": "unix"}]'
DB_UNIX='"role": "db", "accepts": {"roles": ["app"], "over": "unix"}'
APP_TCP='"role": "app", "edges": [{"to": "db", "over": "tcp", "port": 15432}]'
DB_TCP='"role": "db", "accepts": {"roles": ["app"], "over": "tcp", "port": 5432}'

# bundle NAME SCRIPT: a busybox bundle running `sh -c SCRIPT` with edge_peer in /bin and a
# world-writable /rec for the service's record (host: $B/rootfs/rec).
bundle() {
  local tool b
  tool=$(peer_tool) || return 1
  b=$(new_bundle "$1" sh -c "$2") || return 1
  cp "$tool" "$b/rootfs/bin/edge_peer"
  mkdir -p "$b/rootfs/rec"
  chmod 0777 "$b/rootfs/rec"
  echo "$b"
}

# under POLICY: later rt calls of this case run with the operator policy POLICY.
under() { RT_EXTRA=("${RT_BASE[@]}" --policy "$1"); }

# start_db ID unix|tcp [MEMBERS]: B running its recording service (its policy gets MEMBERS too);
# waits until it listens. Sets DB_B.
start_db() {
  local id=$1 p script
  if [ "$2" = unix ]; then
    p=$(policy db-$id none "$DB_UNIX")
    script='exec /bin/edge_peer serve unix "${SHARNESS_SERVICE#unix:}" /rec/got.log'
  else
    p=$(policy db-$id loopback "$DB_TCP${3:+, $3}")
    script='exec /bin/edge_peer serve tcp "${SHARNESS_SERVICE##*:}" /rec/got.log'
  fi
  DB_B=$(bundle "b-$id" "$script") || return 1
  under "$p"
  start_detached "$DB_B" "$id" || return 1
  wait_file "$DB_B/rootfs/rec/got.log.ready" 10
}

got() { cat "$DB_B/rootfs/rec/got.log" 2>/dev/null || true; }

# run_app ID POLICY SCRIPT: A in the foreground; OUT, ERR, RC as run_in.
run_app() {
  local b
  b=$(bundle "a-$1" "$3") || return 1
  under "$2"
  run_in "$b" "$1"
}

proxy_pid() { jq -r .pid "$STATE/$1/edge.json" 2>/dev/null; }


# A ports section makes Landlock handle TCP: the edges' TCP ends stay usable (B binds its
# service port, A connects to its edge port) and every other port is denied by Landlock
# (EACCES, where an unguarded connect would be refused by the empty loopback).
case_tcp_edges_under_landlock_ports() {
  known_fail runc crun
  local db a p
  db=$(newid db)
  start_db "$db" tcp '"ports": {}' || return
  a=$(newid app)
  p=$(policy app-tcp-ll loopback "$APP_TCP"', "ports": {}')
  run_app "$a" "$p" '/bin/edge_peer call tcp "${SHARNESS_EDGE_DB##*:}" hello-under-landlock; echo
    /bin/edge_peer call tcp 15433 elsewhere; echo "other port rc $?"'
  assert_rc 0
  assert_line "$OUT" '^reply:hello-under-landlock$' "A's edge port is allowed"
  assert_eq "hello-under-landlock" "$(got)" "B bound its service port under Landlock"
  assert_line "$OUT" '^other port rc [1-9]'
  assert_contains "$ERR" "connect: Permission denied" "Landlock denies a port no rule grants"
  assert_match "$(rt policy explain "$p")" 'connect only to \[15432\]'
}
# ---------------------------------------------------------------------------------------------

case_unix_both_ways_empty_netns() {
  known_fail runc crun
  local db a p
  db=$(newid db)
  start_db "$db" unix || return
  # B's network namespace: only lo, and it is down.
  assert_eq "lo" "$(nsenter -t "$(pid_of "$db")" -n ip -o link | awk -F': ' '{print $2}' | tr '\n' ' ' | sed 's/ $//')" \
    "B's interfaces"
  a=$(newid app)
  p=$(policy app none "$APP_UNIX")
  run_app "$a" "$p" 'echo "ifs=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " \n")"; echo "role=$SHARNESS_ROLE";
    echo "edge=$SHARNESS_EDGE_DB"; /bin/edge_peer call unix "${SHARNESS_EDGE_DB#unix:}" hello-from-app; echo'
  assert_rc 0
  assert_line "$OUT" '^ifs=lo$' "A's network namespace has only lo"
  assert_line "$OUT" '^role=app$'
  assert_line "$OUT" '^edge=unix:/run/sharness/edges/db.sock$'
  assert_line "$OUT" '^reply:hello-from-app$' "A got B's answer"
  assert_eq "hello-from-app" "$(got)" "B's service got A's message"
  # state reports the role and the certificate fingerprint; explain lists the edge's two checks.
  local st
  st=$(rt state "$db")
  assert_match "$st" '"org.sharness.edge.role": "db"'
  assert_match "$st" '"org.sharness.identity.fingerprint": "[0-9a-f]{64}"'
  assert_match "$(rt policy explain "$p")" 'edge to db over unix .*check 1.*check 2'
}

case_tcp_both_ways() {
  known_fail runc crun
  local db a p
  db=$(newid db)
  start_db "$db" tcp || return
  a=$(newid app)
  p=$(policy app-tcp loopback "$APP_TCP")
  run_app "$a" "$p" 'echo "edge=$SHARNESS_EDGE_DB"; /bin/edge_peer call tcp "${SHARNESS_EDGE_DB##*:}" hello-over-tcp; echo'
  assert_rc 0
  assert_line "$OUT" '^edge=tcp:127.0.0.1:15432$'
  assert_line "$OUT" '^reply:hello-over-tcp$'
  assert_eq "hello-over-tcp" "$(got)"
}

case_no_edge_no_reach() {
  known_fail runc crun
  local db c p
  db=$(newid db)
  start_db "$db" unix || return
  c=$(newid c)
  # C has an identity and an edge, but to another role; and it tries every way it can think of.
  p=$(policy web none '"role": "web", "edges": [{"to": "cache", "over": "unix"}]')
  run_app "$c" "$p" '
    env | grep "^SHARNESS_EDGE_DB" && echo "HAS-DB-ENV"
    [ -e /run/sharness/edges/db.sock ] && echo "HAS-DB-ENDPOINT"
    ls /run/sharness/edges
    for s in $(find / /run/sharness -xdev -type s 2>/dev/null) /run/sharness/edges/db.sock '"$MESH/db/$db.sock"'; do
      /bin/edge_peer call unix "$s" from-c && echo "REACHED $s"
    done
    /bin/edge_peer call tcp 5432 from-c && echo "REACHED tcp"
    echo done'
  assert_rc 0
  assert_line "$OUT" '^done$'
  assert_line "$OUT" '^cache.sock$' "C's own edge endpoint exists (control)"
  assert_not_contains "$OUT" "HAS-DB" "C has no endpoint for db"
  assert_not_contains "$OUT" "REACHED" "C reached nothing"
  assert_eq "" "$(got)" "B's service received no byte from C"
  # And C with no role at all gets no identity and no edge directory.
  c=$(newid c2)
  p=$(policy plain none)
  run_app "$c" "$p" 'ls /run/sharness 2>&1; env | grep -c ^SHARNESS_EDGE; echo done'
  assert_line "$OUT" '^done$'
  assert_line "$OUT" 'No such file or directory' "no /run/sharness without a role"
  assert_eq "" "$(got)"
}

case_bad_certificates_refused() {
  known_fail runc crun
  local db d out
  db=$(newid db)
  start_db "$db" unix || return
  d=$CASEDIR/certs
  mkdir -p "$d"
  rt ca issue --role intruder --name x1 --out "$d/role" >/dev/null || fail "ca issue (wrong role)"
  rt ca issue --role app --name x2 --seconds 60 --backdate 7200 --out "$d/expired" >/dev/null ||
    fail "ca issue (expired)"
  rt ca init --dir "$d/otherca" >/dev/null || fail "ca init (other CA)"
  rt ca issue --dir "$d/otherca" --role app --name x3 --out "$d/foreign" >/dev/null || fail "ca issue (other CA)"
  # The foreign client trusts our CA (so it goes on): only B's proxy can refuse it.
  cp "$STATE/.ca/ca.pem" "$d/foreign/ca.pem"
  for k in role expired foreign; do
    RC=0
    out=$("$EDGE" connect --cert-dir "$d/$k" --socket "$MESH/db/$db.sock" --role db <<<"payload-$k" 2>"$CASEDIR/$k.err") || RC=$?
    assert_ne 0 "$RC" "a client with a bad certificate ($k) fails"
    assert_eq "" "$out" "no answer for $k"
    assert_eq "" "$(got)" "B's service received no byte after the $k client"
  done
  assert_eq 3 "$(grep -c 'service: refused' "$STATE/$db/edge.log")" "B's proxy logged three refusals"
  assert_match "$(cat "$STATE/$db/edge.log")" 'expired'
  # Control: a good certificate from our CA, role app, gets through.
  rt ca issue --role app --name probe --out "$d/good" >/dev/null || fail "ca issue (good)"
  out=$("$EDGE" connect --cert-dir "$d/good" --socket "$MESH/db/$db.sock" --role db <<<"payload-good" 2>&1)
  assert_eq "reply:payload-good" "$out" "control: the good client is answered"
  assert_eq "payload-good" "$(got)" "only the good client's bytes reached the service"
  # `ca revoke` takes the leaf out of the live registry: the same client is refused from now on.
  rt ca revoke --name probe >/dev/null || fail "ca revoke"
  RC=0
  out=$("$EDGE" connect --cert-dir "$d/good" --socket "$MESH/db/$db.sock" --role db <<<"payload-revoked" 2>/dev/null) || RC=$?
  assert_ne 0 "$RC" "a revoked leaf fails"
  assert_eq "" "$out" "no answer for a revoked leaf"
  assert_eq "payload-good" "$(got)" "B's service received no byte from the revoked leaf"
  assert_match "$(cat "$STATE/$db/edge.log")" 'service: refused: .*not live' "B's proxy says why"
}

case_wire_is_tls() {
  known_fail runc crun
  local db a p tap msg
  db=$(newid db)
  start_db "$db" unix || return
  # Interpose on the proxies' socket: A's proxy now connects to the tap, which records and relays.
  mv "$MESH/db/$db.sock" "$MESH/db.real.sock"
  "$(peer_tool)" tap "$MESH/db/$db.sock" "$MESH/db.real.sock" "$CASEDIR/wire.bin" &
  tap=$!
  for _ in $(seq 50); do [ -S "$MESH/db/$db.sock" ] && break; sleep 0.1; done
  msg=plaintext-secret-$RANDOM$RANDOM
  a=$(newid app)
  p=$(policy app none "$APP_UNIX")
  run_app "$a" "$p" "/bin/edge_peer call unix \"\${SHARNESS_EDGE_DB#unix:}\" $msg; echo"
  kill "$tap" 2>/dev/null || true
  wait "$tap" 2>/dev/null || true
  rm -f "$MESH/db/$db.sock"
  mv "$MESH/db.real.sock" "$MESH/db/$db.sock"
  assert_line "$OUT" "^reply:$msg\$" "the message went through the tap"
  assert_eq "$msg" "$(got)" "and reached the service in plaintext (control)"
  [ -s "$CASEDIR/wire.bin" ] || fail "the tap captured nothing"
  if grep -aqF "$msg" "$CASEDIR/wire.bin"; then fail "the message is in plaintext on the wire"; fi
  if grep -aqF "reply:" "$CASEDIR/wire.bin"; then fail "the answer is in plaintext on the wire"; fi
  # A TLS handshake record (0x16, version 0x03 0x01) starts the stream.
  assert_eq "160301" "$(head -c 3 "$CASEDIR/wire.bin" | od -An -tx1 | tr -d ' \n')" "TLS record header"
}

case_keys_gone_after_delete() {
  known_fail runc crun
  local a p b key1 fp1 key2 fp2 idir out uid
  a=$(newid app)
  p=$(policy app none "$APP_UNIX")
  b=$(bundle "a-$a" 'id -u; cat /run/sharness/identity/key.pem; (echo x >/run/sharness/identity/key.pem) 2>/dev/null || echo read-only')
  under "$p"
  must_create "$b" "$a" || return
  idir=$STATE/$a/identity
  key1=$(cat "$idir/key.pem")
  fp1=$(rt state "$a" | jq -r '.annotations["org.sharness.identity.fingerprint"]')
  assert_match "$fp1" '^[0-9a-f]{64}$'
  assert_eq "$fp1" "$(openssl x509 -in "$idir/cert.pem" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f)" \
    "state's fingerprint is the certificate's"
  assert_match "$(openssl x509 -in "$idir/cert.pem" -noout -ext subjectAltName)" "URI:spiffe://sharness.local/role/app/$a"
  grep -q " $idir " /proc/self/mountinfo || fail "the identity is not on its own mount"
  assert_eq tmpfs "$(stat -f -c %T "$idir")" "identity filesystem"
  must_start "$a"
  wait_status "$a" stopped 10
  out=$(<"$CASEDIR/$a.out")
  uid=$(head -1 <<<"$out")
  assert_ne 0 "$uid" "the workload runs under a throwaway uid"
  assert_eq "400 $uid" "$(stat -c '%a %u' "$idir/key.pem")" "key: 0400, owned by the workload's uid only"
  assert_contains "$out" "$key1" "the workload reads its key"
  assert_line "$out" '^read-only$' "the identity mount is read-only"
  rt delete "$a" >/dev/null 2>&1 || fail "delete $a"
  [ ! -e "$idir" ] || fail "identity dir left after delete: $(ls -la "$idir")"
  if grep -q " $idir " /proc/self/mountinfo; then fail "identity tmpfs still mounted after delete"; fi
  if grep -rqsF -- "$(sed -n 2p <<<"$key1")" "$STATE" 2>/dev/null; then fail "the key is still somewhere under the state dir"; fi
  # A new container with the same id gets a new key and certificate.
  must_create "$b" "$a" || return
  key2=$(cat "$STATE/$a/identity/key.pem")
  fp2=$(rt state "$a" | jq -r '.annotations["org.sharness.identity.fingerprint"]')
  assert_ne "$key1" "$key2" "a new key"
  assert_ne "$fp1" "$fp2" "a new certificate"
  rt delete --force "$a" >/dev/null 2>&1
}

# app_to_db CMD: B (role db, serving over a UNIX edge) and A (role app, an edge to db) running CMD,
# both started detached; sets db, a and b (A's bundle).
app_to_db() {
  local p
  db=$(newid db)
  start_db "$db" unix || return 1
  a=$(newid app)
  p=$(policy app none "$APP_UNIX")
  b=$(bundle "a-$a" "$1")
  under "$p"
  start_detached "$b" "$a"
}
# What A runs to make one call over its edge when the test writes the message to /rec/go.
CALL_ON_GO='while [ ! -e /rec/go ]; do sleep 0.1; done; /bin/edge_peer call unix "${SHARNESS_EDGE_DB#unix:}" "$(cat /rec/go)" >/rec/out; sleep 60'

case_proxies_own_uid_no_caps_end_with_container() {
  known_fail runc crun
  local db a p b apid bpid s pid init_uid proxy_uids=()
  app_to_db 'sleep 60' || return
  apid=$(proxy_pid "$a")
  bpid=$(proxy_pid "$db")
  [ -n "$apid" ] && [ -n "$bpid" ] || { fail "no proxy pids in edge.json"; return; }
  for pid in "$apid" "$bpid"; do
    s=$(cat "/proc/$pid/status") || { fail "proxy $pid is not running"; continue; }
    proxy_uids+=("$(status_field "$s" Uid | awk '{print $1}')")
    assert_eq "sharness-edge" "$(status_field "$s" Name)"
    for f in CapInh CapPrm CapEff CapBnd CapAmb; do
      assert_eq 0000000000000000 "$(status_field "$s" $f)" "proxy $pid $f"
    done
    assert_eq 1 "$(status_field "$s" NoNewPrivs)" "proxy $pid NoNewPrivs"
    assert_eq 0 "$(status_field "$s" Groups | wc -w)" "proxy $pid supplementary groups"
  done
  for id in "$a" "$db"; do
    init_uid=$(status_field "$(cat "/proc/$(pid_of "$id")/status")" Uid | awk '{print $1}')
    for u in "${proxy_uids[@]}"; do
      assert_ne "$init_uid" "$u" "a proxy shares $id's uid"
      assert_ne 0 "$u" "a proxy runs as root"
    done
  done
  assert_ne "${proxy_uids[0]}" "${proxy_uids[1]}" "each proxy has its own uid"
  # The container ends: its proxy ends with it (before any delete).
  rt kill "$a" KILL >/dev/null 2>&1
  wait_status "$a" stopped 10
  for _ in $(seq 50); do [ -d "/proc/$apid" ] && [ "$(awk '{print $3}' "/proc/$apid/stat" 2>/dev/null)" != Z ] || break; sleep 0.1; done
  [ -d "/proc/$apid" ] && [ "$(awk '{print $3}' "/proc/$apid/stat" 2>/dev/null)" != Z ] &&
    fail "A's proxy $apid outlived A"
  # delete stops B's proxy and releases its uid.
  rt delete --force "$db" >/dev/null 2>&1 || fail "delete $db"
  [ -d "/proc/$bpid" ] && [ "$(awk '{print $3}' "/proc/$bpid/stat" 2>/dev/null)" != Z ] &&
    fail "B's proxy $bpid outlived delete"
  [ ! -e "$STATE/.uids/${proxy_uids[1]}" ] || fail "B's proxy uid claim left after delete"
  [ ! -e "$MESH/db/$db.sock" ] || fail "B's server socket left after delete"
  rt delete --force "$a" >/dev/null 2>&1
  [ ! -e "$STATE/.uids/${proxy_uids[0]}" ] || fail "A's proxy uid claim left after delete"
}

# The proxy's harsh bounds: a seccomp filter (mode 2), no_new_privs, no capabilities, small
# rlimits, Landlock; and the edge still carries a message both ways through it.
case_proxy_sandbox() {
  known_fail runc crun
  local db a p b pid s lim
  app_to_db "$CALL_ON_GO" || return
  for pid in "$(proxy_pid "$a")" "$(proxy_pid "$db")"; do
    s=$(cat "/proc/$pid/status") || { fail "proxy $pid is not running"; continue; }
    assert_eq 2 "$(status_field "$s" Seccomp)" "proxy $pid: a seccomp filter"
    assert_eq 1 "$(status_field "$s" NoNewPrivs)" "proxy $pid NoNewPrivs"
    assert_eq 0000000000000000 "$(status_field "$s" CapEff)" "proxy $pid CapEff"
    assert_eq 0000000000000000 "$(status_field "$s" CapBnd)" "proxy $pid CapBnd"
    lim=$(cat "/proc/$pid/limits")
    assert_match "$lim" 'Max core file size +0 +0 ' "proxy $pid RLIMIT_CORE"
    assert_match "$lim" 'Max open files +224 +224 ' "proxy $pid RLIMIT_NOFILE"
    assert_match "$lim" 'Max processes +72 +72 ' "proxy $pid RLIMIT_NPROC"
  done
  assert_match "$(cat "$STATE/$db/edge.log")" 'seccomp allowlist, landlock ABI [0-9]+: fs \[' "the log says what binds it"
  echo "through-the-filter" >"$b/rootfs/rec/go"
  wait_file "$b/rootfs/rec/out" 10
  assert_eq "reply:through-the-filter" "$(cat "$b/rootfs/rec/out" 2>/dev/null)" "A got B's answer through both filtered proxies"
  assert_eq "through-the-filter" "$(got)" "B's service got the message"
  # Neither proxy was killed by its filter: both still serve.
  for pid in "$(proxy_pid "$a")" "$(proxy_pid "$db")"; do
    assert_eq 2 "$(status_field "$(cat "/proc/$pid/status" 2>/dev/null)" Seccomp)" "proxy $pid still running"
  done
  assert_not_contains "$(cat "$STATE/$db/edge.log" "$STATE/$a/edge.log")" "the proxy ended" "no proxy died"
}

# Renewal: with a 20 s leaf, both containers outlive their first certificates; each gets a new
# key and certificate (state reports the new fingerprint), and the edge works after the old
# ones expired (B would refuse A's expired certificate, A would refuse B's).
case_leaf_renewal() {
  known_fail runc crun
  local rc db a p b fa1 fb1 fa2 fb2 ka1 kb1 i x
  rc=$CASEDIR/runtime.json
  echo '{"edges": {"leafSeconds": 20}}' >"$rc"
  RT_BASE=("${RT_BASE[@]}" --config "$rc")
  app_to_db "$CALL_ON_GO" || return
  fp() { rt state "$1" | jq -r '.annotations["org.sharness.identity.fingerprint"]'; }
  # The renewer (the proxy's parent) keeps CAP_CHOWN, CAP_DAC_OVERRIDE and CAP_KILL only.
  local sup
  sup=$(jq -r .supervisorPid "$STATE/$db/edge.json")
  assert_eq 0000000000000023 "$(status_field "$(cat "/proc/$sup/status")" CapEff)" "supervisor CapEff"
  assert_eq 0000000000000023 "$(status_field "$(cat "/proc/$sup/status")" CapBnd)" "supervisor CapBnd"
  assert_eq 0 "$(status_field "$(cat "/proc/$sup/status")" Uid | awk '{print $1}')" "supervisor uid"
  fa1=$(fp "$a"); fb1=$(fp "$db")
  ka1=$(cat "$STATE/$a/identity/key.pem"); kb1=$(cat "$STATE/$db/identity/key.pem")
  cp "$STATE/$a/identity/cert.pem" "$CASEDIR/a1.pem"
  cp "$STATE/$db/identity/cert.pem" "$CASEDIR/b1.pem"
  assert_match "$(openssl x509 -in "$CASEDIR/a1.pem" -noout -checkend 25 || true)" 'will expire' "a 20 s leaf"
  # The old certificates expire (openssl -checkend 0 fails).
  expired() { ! openssl x509 -in "$1" -noout -checkend 0 >/dev/null; }
  for ((i = 0; i < 300; i++)); do
    expired "$CASEDIR/a1.pem" && expired "$CASEDIR/b1.pem" && break
    sleep 0.1
  done
  expired "$CASEDIR/a1.pem" || fail "A's first certificate did not expire"
  expired "$CASEDIR/b1.pem" || fail "B's first certificate did not expire"
  fa2=$(fp "$a"); fb2=$(fp "$db")
  assert_ne "$fa1" "$fa2" "A has a new certificate"
  assert_ne "$fb1" "$fb2" "B has a new certificate"
  for x in "$a:$fa2" "$db:$fb2"; do
    assert_eq "${x#*:}" "$(openssl x509 -in "$STATE/${x%%:*}/identity/cert.pem" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f)" \
      "state reports the certificate ${x%%:*} holds now"
  done
  assert_ne "$ka1" "$(cat "$STATE/$a/identity/key.pem")" "A has a new key"
  assert_ne "$kb1" "$(cat "$STATE/$db/identity/key.pem")" "B has a new key"
  openssl x509 -in "$STATE/$a/identity/cert.pem" -noout -checkend 0 >/dev/null || fail "A's new certificate is not valid"
  assert_match "$(openssl x509 -in "$STATE/$a/identity/cert.pem" -noout -ext subjectAltName)" "URI:spiffe://sharness.local/role/app/$a"
  echo "after-renewal" >"$b/rootfs/rec/go"
  wait_file "$b/rootfs/rec/out" 10
  assert_eq "reply:after-renewal" "$(cat "$b/rootfs/rec/out" 2>/dev/null)" "the edge works after the first leaves expired"
  assert_eq "after-renewal" "$(got)"
  assert_match "$(cat "$STATE/$a/edge.log")" 'renewed: certificate' "A's proxy took its new certificate"
  assert_match "$(cat "$STATE/$db/edge.log")" 'renewed: certificate' "B's proxy took its new certificate"
}

# Several instances of one role: each registers <root>/.edges/db/<id>.sock; A's proxy takes
# them in turn (two calls: one each), and skips one whose proxy is gone.
case_several_instances_of_a_role() {
  known_fail runc crun
  local db1 db2 b1 b2 a p b g1 g2
  db1=$(newid db1); start_db "$db1" unix || return; b1=$DB_B
  db2=$(newid db2); start_db "$db2" unix || return; b2=$DB_B
  [ -S "$MESH/db/$db1.sock" ] && [ -S "$MESH/db/$db2.sock" ] || fail "both instances registered: $(ls "$MESH/db")"
  a=$(newid app)
  p=$(policy app none "$APP_UNIX")
  b=$(bundle "a-$a" 'for phase in 1 2; do
      while [ ! -e /rec/go$phase ]; do sleep 0.1; done
      for m in $(cat /rec/go$phase); do /bin/edge_peer call unix "${SHARNESS_EDGE_DB#unix:}" "$m"; echo; done >/rec/out$phase.tmp
      mv /rec/out$phase.tmp /rec/out$phase
    done; sleep 60')
  under "$p"
  start_detached "$b" "$a" || return
  echo "m1 m2" >"$b/rootfs/rec/go1"
  wait_file "$b/rootfs/rec/out1" 10
  assert_eq "reply:m1 reply:m2" "$(tr '\n' ' ' <"$b/rootfs/rec/out1" | sed 's/ $//')" "both calls answered"
  g1=$(cat "$b1/rootfs/rec/got.log"); g2=$(cat "$b2/rootfs/rec/got.log")
  assert_match "$g1" '^m[12]$' "instance 1 got one call"
  assert_match "$g2" '^m[12]$' "instance 2 got one call"
  assert_ne "$g1" "$g2" "the two calls went to different instances"
  # Instance 1 stops: its socket stays registered until delete, but nobody answers on it.
  rt kill "$db1" KILL >/dev/null 2>&1
  wait_status "$db1" stopped 10
  # A loaded host can take seconds to end the proxy; one still alive would accept and never answer.
  local pp
  pp=$(proxy_pid "$db1")
  [ -n "$pp" ] || fail "instance 1's proxy pid is not in its state"
  for _ in $(seq 200); do [ -d "/proc/$pp" ] || break; sleep 0.1; done
  [ ! -d "/proc/$pp" ] || fail "instance 1's proxy still runs 20 s after its container stopped"
  echo "m3 m4 m5" >"$b/rootfs/rec/go2"
  wait_file "$b/rootfs/rec/out2" 30
  assert_eq "reply:m3 reply:m4 reply:m5" "$(tr '\n' ' ' <"$b/rootfs/rec/out2" | sed 's/ $//')" "every call answered by the live one"
  assert_eq "${g2}m3m4m5" "$(cat "$b2/rootfs/rec/got.log")" "instance 2 got the rest"
  assert_eq "$g1" "$(cat "$b1/rootfs/rec/got.log")" "the stopped instance got nothing more"
}

# Proxy to proxy over TCP between network namespaces: A and B each join a network namespace
# this case makes (named after the case, removed at the end), joined by a veth pair. B's proxy
# listens on B's address at the service's port and registers it; A's proxy connects from A's
# namespace. tcpdump on B's end of the veth sees the TLS records, never the message.
case_tcp_between_network_namespaces() {
  known_fail runc crun
  command -v tcpdump >/dev/null || { skip "no tcpdump (scripts/install-deps.sh installs it)"; return; }
  local nsa=sh-edge-a$$ nsb=sh-edge-b$$ db a b pa pb msg cap capid
  ip netns add "$nsa" && ip netns add "$nsb" || { fail "ip netns add"; return; }
  # shellcheck disable=SC2064
  trap "ip netns del $nsa 2>/dev/null; ip netns del $nsb 2>/dev/null; true" EXIT  # the veth goes with them
  ip link add vea$$ netns "$nsa" type veth peer name veb$$ netns "$nsb" || { fail "veth pair"; return; }
  ip -n "$nsa" addr add 10.231.77.1/24 dev vea$$ && ip -n "$nsb" addr add 10.231.77.2/24 dev veb$$ &&
    ip -n "$nsa" link set vea$$ up && ip -n "$nsb" link set veb$$ up &&
    ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up || { fail "addresses"; return; }
  net_policy() { # NAME MEMBERS: like policy, with no "network" key (the bundle's namespace stays)
    echo "{\"id\": \"$1\", \"version\": 1,
           \"identity\": {\"uid\": \"ephemeral\", \"capabilities\": [], \"noNewPrivileges\": true}, $2}" >"$CASEDIR/$1.json"
    echo "$CASEDIR/$1.json"
  }
  join() { cfg "$1" --arg p "/run/netns/$2" '.linux.namespaces |= (map(select(.type != "network")) + [{"type": "network", "path": $p}])'; }
  db=$(newid db)
  pb=$(net_policy db-net '"role": "db", "accepts": {"roles": ["app"], "over": "tcp", "port": 5432}')
  DB_B=$(bundle "b-$db" 'exec /bin/edge_peer serve tcp "${SHARNESS_SERVICE##*:}" /rec/got.log') || return
  join "$DB_B" "$nsb" || return
  under "$pb"
  start_detached "$DB_B" "$db" || return
  wait_file "$DB_B/rootfs/rec/got.log.ready" 10
  [ -e "$MESH/db/$db@10.231.77.2:5432.tcp" ] || fail "B's network address is not registered: $(ls "$MESH/db")"
  cap=$CASEDIR/wire.pcap
  ip netns exec "$nsb" tcpdump -Z root --immediate-mode -i veb$$ -U -w "$cap" tcp port 5432 2>"$CASEDIR/tcpdump.err" &
  capid=$!
  for _ in $(seq 50); do grep -q "listening on" "$CASEDIR/tcpdump.err" && break; sleep 0.1; done
  msg=plaintext-over-veth-$RANDOM$RANDOM
  a=$(newid app)
  pa=$(net_policy app-net '"role": "app", "edges": [{"to": "db", "over": "tcp", "port": 5432}]')
  b=$(bundle "a-$a" "/bin/edge_peer call tcp \"\${SHARNESS_EDGE_DB##*:}\" $msg; echo") || return
  join "$b" "$nsa" || return
  under "$pa"
  run_in "$b" "$a"
  # Until the capture holds both ends' FIN (the whole connection), at most five seconds.
  for _ in $(seq 50); do [ "$(tcpdump -r "$cap" -nn 2>/dev/null | grep -c 'Flags \[F')" -ge 2 ] && break; sleep 0.1; done
  kill "$capid" 2>/dev/null; wait "$capid" 2>/dev/null
  assert_rc 0
  assert_line "$OUT" "^reply:$msg\$" "A got B's answer"
  assert_eq "$msg" "$(got)" "B's service got the message"
  assert_match "$(cat "$STATE/$db/edge.log")" "service: accepted spiffe://sharness.local/role/app/$a" "B's proxy checked A"
  [ -s "$cap" ] || fail "tcpdump captured nothing: $(cat "$CASEDIR/tcpdump.err")"
  assert_match "$(tcpdump -r "$cap" -nn 2>/dev/null | head -3)" '10.231.77.1\.[0-9]+ > 10.231.77.2\.5432' "the capture is the proxies' connection"
  grep -aqF "$msg" "$cap" && fail "the message is in plaintext on the wire"
  grep -aqF "reply:" "$cap" && fail "the answer is in plaintext on the wire"
  LC_ALL=C grep -aqP '\x16\x03\x01' "$cap" || fail "no TLS handshake record in the capture"
}

tcase "A reaches B over a unix edge, both ways, both network namespaces empty" case_unix_both_ways_empty_netns
tcase "A reaches B over a tcp edge, both ways" case_tcp_both_ways
tcase "with a ports section, Landlock allows the tcp edge ports and denies others" case_tcp_edges_under_landlock_ports
tcase "C with no edge to B has no endpoint and cannot reach B" case_no_edge_no_reach
tcase "another CA, wrong role, expired, revoked: refused, B's service gets no byte" case_bad_certificates_refused
tcase "the bytes between the proxies are TLS" case_wire_is_tls
tcase "keys and certificates are gone after delete; a new container gets a new key" case_keys_gone_after_delete
tcase "proxies: own uids, no capabilities, end with their containers" case_proxies_own_uid_no_caps_end_with_container
tcase "proxies: seccomp filter, no_new_privs, rlimits, and the edge still works" case_proxy_sandbox
tcase "several instances of one role: taken in turn, a dead one skipped" case_several_instances_of_a_role
tcase "proxy to proxy over TCP between two network namespaces; the wire is TLS" case_tcp_between_network_namespaces
tcase "a container outliving its leaf gets a new key and certificate and keeps working" case_leaf_renewal
finish
