#!/usr/bin/env bash
# Adversarial, per-edge mutual TLS ("Edge leaves cannot be revoked, and stay valid up
# to leafSeconds after their container is deleted"). A workload can read its own leaf (cert.pem
# and key.pem on its identity tmpfs: it must, to be a TLS end itself), so it can copy them out.
# The copy must die with the container: after `delete`, and after a renewal replaced the leaf,
# every proxy refuses it in the handshake (docs/edges.md "Revocation"), on both ends of an edge:
#   - a client holding a deleted container's leaf, at the accepting proxy of a container that
#     accepts that role: refused, the service gets no byte (and already once it stopped);
#   - a server holding a deleted container's leaf, reached by a live container's client proxy:
#     refused, it gets no byte of the payload;
#   - a client holding the leaf a renewal replaced (still within its validity): refused.
# Each attempt first shows the copied leaf IS accepted while its container is live (the control).
#
# Only our runtime has policies with edges (runc and crun have no --policy): every case is a
# known failure there.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

EDGE=$(dirname "$RUNTIME")/sharness-edge
RT_BASE=("${RT_EXTRA[@]}")
MESH=$STATE/.edges

# policy NAME JSON-MEMBERS: a small policy (throwaway uid, no capabilities, no_new_privs, no
# network) plus the edge members, in $CASEDIR/NAME.json.
policy() {
  echo "{\"id\": \"$1\", \"version\": 1, \"network\": \"none\",
         \"identity\": {\"uid\": \"ephemeral\", \"capabilities\": [], \"noNewPrivileges\": true}, $2}" \
    >"$CASEDIR/$1.json"
  echo "$CASEDIR/$1.json"
}
APP='"role": "app", "edges": [{"to": "db", "over": "unix"}]'
DB='"role": "db", "accepts": {"roles": ["app"], "over": "unix"}'
# The workload copies its leaf (as any process in it can) into /rec/leaf, then waits.
COPY_LEAF='mkdir -p /rec/leaf && cp /run/sharness/identity/cert.pem /run/sharness/identity/key.pem /run/sharness/identity/ca.pem /rec/leaf/ && echo copied >/rec/leaf/done'

# bundle NAME SCRIPT: a busybox bundle running `sh -c SCRIPT` with edge_peer in /bin and a
# world-writable /rec (host: $B/rootfs/rec).
bundle() {
  local tool b
  tool=$(static_tool edge_peer.c) || return 1
  b=$(new_bundle "$1" sh -c "$2") || return 1
  cp "$tool" "$b/rootfs/bin/edge_peer"
  mkdir -p "$b/rootfs/rec"
  chmod 0777 "$b/rootfs/rec"
  echo "$b"
}

under() { RT_EXTRA=("${RT_BASE[@]}" --policy "$1"); }

# start_db ID [SCRIPT-PREFIX]: a db container (role db, accepting app over UNIX) whose service
# records every byte it gets in /rec/got.log; waits until it listens. Sets DB_B.
start_db() {
  DB_B=$(bundle "b-$1" "${2:+$2; }exec /bin/edge_peer serve unix \"\${SHARNESS_SERVICE#unix:}\" /rec/got.log") || return 1
  under "$(policy "db-$1" "$DB")"
  start_detached "$DB_B" "$1" || return 1
  wait_file "$DB_B/rootfs/rec/got.log.ready" 10
}
got() { cat "$DB_B/rootfs/rec/got.log" 2>/dev/null || true; }

# start_app ID SCRIPT: an app container (role app, an edge to db) running SCRIPT. Sets APP_B.
start_app() {
  APP_B=$(bundle "a-$1" "$2") || return 1
  under "$(policy "app-$1" "$APP")"
  start_detached "$APP_B" "$1"
}

# knock CERT_DIR MSG: one TLS client connection to the db proxy of $db with the leaf in CERT_DIR,
# as a process on the host would make it. Sets KNOCK (what came back) and KRC.
knock() {
  KRC=0
  KNOCK=$("$EDGE" connect --cert-dir "$1" --socket "$MESH/db/$db.sock" --role db <<<"$2" 2>"$CASEDIR/knock.err") || KRC=$?
}

fp_of() { rt state "$1" | jq -r '.annotations["org.sharness.identity.fingerprint"]'; }

case_copied_client_leaf_after_delete() {
  known_fail runc crun
  local a leaf
  db=$(newid db)
  start_db "$db" || return
  a=$(newid app)
  start_app "$a" "$COPY_LEAF; sleep 60" || return
  wait_file "$APP_B/rootfs/rec/leaf/done" 10
  leaf=$CASEDIR/stolen
  cp -r "$APP_B/rootfs/rec/leaf" "$leaf"
  assert_match "$(openssl x509 -in "$leaf/cert.pem" -noout -ext subjectAltName)" "URI:spiffe://sharness.local/role/app/$a" \
    "the workload copied its own leaf"
  # Control: while A is live, its leaf is a good client of B.
  knock "$leaf" while-live
  assert_eq 0 "$KRC" "control: the copied leaf connects while its container is live: $(cat "$CASEDIR/knock.err")"
  assert_eq "reply:while-live" "$KNOCK" "control: answered"
  assert_eq "while-live" "$(got)" "control: B's service got the bytes"
  rt delete --force "$a" >/dev/null 2>&1 || fail "delete $a"
  # The attempt: the same leaf, well within its day of validity, after delete.
  openssl x509 -in "$leaf/cert.pem" -noout -checkend 3600 >/dev/null || fail "the copied leaf expired (so this proves nothing)"
  knock "$leaf" after-delete
  assert_ne 0 "$KRC" "the copied leaf is refused after delete"
  assert_eq "" "$KNOCK" "no answer after delete"
  assert_eq "while-live" "$(got)" "B's service received no byte after delete"
  assert_match "$(cat "$STATE/$db/edge.log")" "service: refused: .*not live" "B's proxy refused it as not live"
  held "a deleted container's copied leaf, as a client of a live db" "B's proxy: not in the live registry, refused in the handshake"
}

# Before delete: once the container's init has exited, its proxy's supervisor revokes the leaf.
case_copied_leaf_after_stop() {
  known_fail runc crun
  local a leaf
  db=$(newid db)
  start_db "$db" || return
  a=$(newid app)
  start_app "$a" "$COPY_LEAF; sleep 60" || return
  wait_file "$APP_B/rootfs/rec/leaf/done" 10
  leaf=$CASEDIR/stolen
  cp -r "$APP_B/rootfs/rec/leaf" "$leaf"
  knock "$leaf" while-running
  assert_eq "reply:while-running" "$KNOCK" "control: the copied leaf connects while A runs: $(cat "$CASEDIR/knock.err")"
  rt kill "$a" KILL >/dev/null 2>&1 || fail "kill $a"
  wait_status "$a" stopped 10
  for _ in $(seq 50); do grep -q 'its leaves are revoked' "$STATE/$a/edge.log" && break; sleep 0.1; done
  knock "$leaf" after-stop
  assert_ne 0 "$KRC" "the copied leaf is refused once A stopped"
  assert_eq "" "$KNOCK"
  assert_eq "while-running" "$(got)" "B's service received no byte after A stopped"
  assert_eq stopped "$(status_of "$a")" "A is stopped, not deleted"
  held "a stopped (not deleted) container's copied leaf, as a client" "A's supervisor revoked it when A's init exited"
}

# The server end: a process that holds a deleted db container's leaf stands where A's proxy looks
# for db instances (as a reused network address, or anything that reaches a client proxy, would);
# A's proxy must refuse it before sending the payload.
case_copied_server_leaf_after_delete() {
  known_fail runc crun
  command -v openssl >/dev/null || { fail "no openssl"; return; }
  local a leaf fake fpid msg
  db=$(newid db)
  start_db "$db" "$COPY_LEAF" || return
  wait_file "$DB_B/rootfs/rec/leaf/done" 10
  leaf=$CASEDIR/stolen
  cp -r "$DB_B/rootfs/rec/leaf" "$leaf"
  a=$(newid app)
  start_app "$a" 'for n in 1 2; do while [ ! -e /rec/go$n ]; do sleep 0.1; done
      /bin/edge_peer call unix "${SHARNESS_EDGE_DB#unix:}" "$(cat /rec/go$n)" >/rec/out$n; echo >>/rec/out$n; done; sleep 60' || return
  # fake NAME: a TLS server with the stolen leaf on $MESH/db/NAME.sock, printing what it reads.
  fake() {
    fake=$MESH/db/$1.sock
    # (A relative path: s_server fails on a socket path longer than 31 bytes.)
    (cd "$MESH/db" && umask 0 && sleep 30 | exec openssl s_server -unix "$1.sock" -cert "$leaf/cert.pem" \
      -key "$leaf/key.pem" -CAfile "$leaf/ca.pem" -Verify 1 -tls1_3 -num_tickets 0 -naccept 1 -ign_eof \
      >"$CASEDIR/fake-$1.out" 2>&1) &
    fpid=$!
    for _ in $(seq 50); do [ -S "$fake" ] && break; sleep 0.1; done
    [ -S "$fake" ] || fail "the fake server did not listen: $(cat "$CASEDIR/fake-$1.out")"
  }
  stop_fake() {
    kill "$fpid" 2>/dev/null || true
    wait "$fpid" 2>/dev/null || true
    rm -f "$fake"
  }
  # go N MSG: A's workload makes call N with MSG (the file appears whole: no empty read).
  go() { echo "$2" >"$APP_B/rootfs/rec/go$1.tmp" && mv "$APP_B/rootfs/rec/go$1.tmp" "$APP_B/rootfs/rec/go$1"; }
  # Control: while B is live, its leaf is a good server for A (B's own socket set aside, so the
  # fake is the only instance).
  mv "$MESH/db/$db.sock" "$MESH/db-real.sock"
  fake control
  msg=to-the-live-leaf-$RANDOM
  go 1 "$msg"
  wait_file "$APP_B/rootfs/rec/out1" 10
  stop_fake
  mv "$MESH/db-real.sock" "$MESH/db/$db.sock"
  assert_contains "$(cat "$CASEDIR/fake-control.out")" "$msg" "control: the copied server leaf gets A's payload while B is live"
  rt delete --force "$db" >/dev/null 2>&1 || fail "delete $db"
  [ ! -e "$MESH/db/$db.sock" ] || fail "B's socket is still registered"
  # The attempt: the same leaf after delete.
  openssl x509 -in "$leaf/cert.pem" -noout -checkend 3600 >/dev/null || fail "the copied leaf expired (so this proves nothing)"
  fake attempt
  msg=to-the-deleted-leaf-$RANDOM
  go 2 "$msg"
  wait_file "$APP_B/rootfs/rec/out2" 10
  stop_fake
  assert_not_contains "$(cat "$CASEDIR/fake-attempt.out")" "$msg" "the fake server got no byte of the payload"
  assert_not_contains "$(cat "$APP_B/rootfs/rec/out2")" "reply:" "A got no answer"
  assert_match "$(cat "$STATE/$a/edge.log")" "edge to db: refused: .*not live" "A's proxy refused the server as not live"
  held "a deleted container's copied leaf, as a server for a live app" "A's proxy: not in the live registry, refused in the handshake"
}

# Renewal: a leaf of 30 s is renewed when a third of it is left; the copy of the first leaf,
# still valid for seconds, is refused from the renewal on, while the new leaf is accepted.
case_copied_leaf_after_renewal() {
  known_fail runc crun
  local rc a leaf fp1 fp2 i
  rc=$CASEDIR/runtime.json
  echo '{"edges": {"leafSeconds": 30}}' >"$rc"
  RT_BASE=("${RT_BASE[@]}" --config "$rc")
  db=$(newid db)
  start_db "$db" || return
  a=$(newid app)
  start_app "$a" "$COPY_LEAF; sleep 60" || return
  wait_file "$APP_B/rootfs/rec/leaf/done" 10
  leaf=$CASEDIR/stolen
  cp -r "$APP_B/rootfs/rec/leaf" "$leaf"
  fp1=$(fp_of "$a")
  assert_eq "$fp1" "$(openssl x509 -in "$leaf/cert.pem" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f)" \
    "the copy is A's first leaf"
  knock "$leaf" before-renewal
  assert_eq "reply:before-renewal" "$KNOCK" "control: the first leaf is accepted before the renewal: $(cat "$CASEDIR/knock.err")"
  for ((i = 0; i < 300; i++)); do
    fp2=$(fp_of "$a")
    [ "$fp2" != "$fp1" ] && break
    sleep 0.1
  done
  assert_ne "$fp1" "$fp2" "A's leaf was renewed"
  for ((i = 0; i < 20; i++)); do grep -q 'previous leaf is revoked' "$STATE/$a/edge.log" && break; sleep 0.1; done
  openssl x509 -in "$leaf/cert.pem" -noout -checkend 1 >/dev/null || fail "the first leaf expired already (so this proves nothing)"
  knock "$leaf" after-renewal
  assert_ne 0 "$KRC" "the first leaf is refused after the renewal"
  assert_eq "" "$KNOCK"
  assert_eq "before-renewal" "$(got)" "B's service received no byte from the replaced leaf"
  # Control: the leaf A holds now is accepted.
  cp -r "$STATE/$a/identity" "$CASEDIR/now"
  knock "$CASEDIR/now" with-the-new-leaf
  assert_eq "reply:with-the-new-leaf" "$KNOCK" "control: the renewed leaf is accepted: $(cat "$CASEDIR/knock.err")"
  held "a copy of a leaf that a renewal replaced (still valid)" "the supervisor revoked it once the proxy took the new one"
}

tcase "a deleted container's copied leaf is refused by an accepting proxy" case_copied_client_leaf_after_delete
tcase "a deleted container's copied leaf is refused as a server by a client proxy" case_copied_server_leaf_after_delete
tcase "a stopped container's copied leaf is refused, before delete" case_copied_leaf_after_stop
tcase "a leaf replaced by a renewal is refused" case_copied_leaf_after_renewal
adversary_finish
