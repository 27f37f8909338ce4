#!/usr/bin/env bash
# The egress door (docs/egress.md), with real clients in real containers: curl and Python's urllib
# in a Debian 12 root filesystem (scripts/rootfs.sh workloads, read-only) reach test hosts through
# the door, which create starts beside each container whose policy has an `egress` section. The
# hosts are HTTPS and HTTP servers (conformance/tools/egress_test_hosts.py) in a network namespace of
# the suite's, at 203.0.113.0/24 (and 10.1.2.3, 169.254.169.254), with their own test CA
# (conformance/tools/egress-certs.sh); names come from a hosts file the runtime config gives the
# door. Nothing leaves the machine: the suite runs in a network namespace of its own (the door
# lives in the runtime's), joined to the hosts' by one veth pair.
#
# Every refusal has its control: the same request where the rule, the runtime config or the
# absence of the door allows it, and the servers' log says what reached them.
#
# Only our runtime has policies with egress (runc and crun have no --policy): every case is a known
# failure there.

# A network namespace of the suite's own, before lib.sh (whose subreaper exec keeps it).
if [ "$(id -u)" = 0 ] && [ -z "${SHARNESS_EGRESS_NETNS:-}" ]; then
  SHARNESS_EGRESS_NETNS=1 exec unshare --net bash "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
unset SHARNESS_EGRESS_NETNS

PY=/usr/bin/python3
command -v openssl >/dev/null || { echo "FAIL: the openssl CLI is missing (apt-get install openssl)" >&2; exit 1; }
[ -x "$PY" ] || { echo "FAIL: $PY is missing (apt-get install python3): the test hosts are Python servers" >&2; exit 1; }
ROOTFS=$("$SHARNESS_SOURCE_DIR/scripts/rootfs.sh" workloads) || { echo "FAIL: scripts/rootfs.sh workloads" >&2; exit 1; }
RT_BASE=("${RT_EXTRA[@]}")

# ---- the test hosts (conformance/tools/egress-hosts.sh): a network namespace joined to the suite's
SECRET=s3cr3t-$(openssl rand -hex 12)
LONG_SECRET=$(head -c 6144 /dev/urandom | base64 -w0 | tr "+/" "-_")  # 8 KiB of base64url: the KMS's limit, a long JWT
W=$TMP/egress
. "$SHARNESS_SOURCE_DIR/conformance/tools/egress-hosts.sh"
trap '_st=$?; [ "$BASHPID" = "$$" ] && egress_hosts_down; (exit $_st); _cleanup' EXIT
egress_hosts_up "$SHARNESS_SOURCE_DIR" "$W" "$SECRET" "$LONG_SECRET" || { echo "FAIL: the test hosts" >&2; exit 1; }

# runtime_config NAME [JQ]: the runtime config the door's site comes from (the test CA, the hosts
# file, the credentials), edited by JQ; prints its path.
runtime_config() {
  jq -n --arg t "$W/pki/ca.pem" --arg h "$W/hosts" --arg c "$W/creds" \
    '{egress: {upstreamTrust: $t, hosts: $h, credentialsDir: $c}} | '"${2:-.}" >"$CASEDIR/$1.json"
  echo "$CASEDIR/$1.json"
}

# policy NAME RULES [BUDGETS]: a policy with a throwaway uid, no capabilities, no_new_privs and the
# egress rules (a JSON array); prints its path.
policy() {
  echo "{\"id\": \"$1\", \"version\": 1,
         \"identity\": {\"uid\": \"ephemeral\", \"capabilities\": [], \"noNewPrivileges\": true},
         \"egress\": {\"rules\": $2${3:+, \"budgets\": $3}}}" >"$CASEDIR/$1.json"
  echo "$CASEDIR/$1.json"
}
GITHUB='{"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}'
RULES='[{"host": "api.test", "credential": '$GITHUB'}, {"host": "api.test", "port": 80, "methods": ["GET"]},
        {"host": "plain.test"}, {"host": "right.test"}, {"host": "wrongname.test"}, {"host": "untrusted.test"},
        {"host": "private.test"}, {"host": "metadata.test", "port": 80}]'

# under POLICY RUNTIME_CONFIG: the case's later runtime calls use them.
under() { RT_EXTRA=("${RT_BASE[@]}" --config "$2" --policy "$1"); }

# workload NAME SCRIPT: a bundle on the workload root filesystem (read-only, and never written:
# every mount point it gets exists in it) running SCRIPT with /bin/sh; the case dir is bound
# read-only at /mnt, the script in it. Prints its path.
workload() {
  local b
  b=$(new_bundle "$1" /bin/sh "/mnt/run.$1.sh") || return 1
  printf '%s\n' "$2" >"$CASEDIR/run.$1.sh"
  cfg "$b" --arg r "$ROOTFS" --arg t "$CASEDIR" \
    '.root = {path: $r, readonly: true}
     | .mounts += [{destination: "/mnt", type: "bind", source: $t, options: ["rbind", "ro"]}]
     | .process.env = ["PATH=/usr/bin:/bin", "HOME=/tmp"]'
  echo "$b"
}

# upstream ERE: the test hosts' log lines matching ERE (connections "conn ADDR:PORT from ...",
# requests "req ADDR:PORT METHOD PATH host=... auth=..."), since the case began (each case runs
# with the hosts' log as the previous one left it).
upstream() { tail -n +"$((UPSTREAM_MARK + 1))" "$W/upstream.log" 2>/dev/null | grep -E -- "$1" || true; }
# mark_upstream: from here on, upstream sees only what comes after.
mark_upstream() { UPSTREAM_MARK=$({ wc -l <"$W/upstream.log"; } 2>/dev/null || echo 0); }
UPSTREAM_MARK=0

# run_door BUNDLE ID: as run_in (OUT, ERR; RC that of create and start, not the workload's), by
# create, start and delete, so that the door's request log can be kept first: $CASEDIR/ID.door.log.
run_door() {
  local b=$1 id=$2
  create_in "$b" "$id"
  [ "$RC" = 0 ] || return 0
  rt start "$id" 2>>"$CASEDIR/$id.err" || RC=$?
  wait_status "$id" stopped 60 || RC=124
  cp "$STATE/$id/egress/door.log" "$CASEDIR/$id.door.log" 2>/dev/null || true
  rt delete --force "$id" >/dev/null 2>&1 || true
  OUT=$(<"$CASEDIR/$id.out")
  ERR=$(<"$CASEDIR/$id.err")
  return 0
}

# door_log ID: the door's request log (JSON lines) that run_door kept.
door_log() { cat "$CASEDIR/$1.door.log" 2>/dev/null || true; }

# The request each case's script makes: curl through the door (the proxy variables the policy
# set), printing the status of the CONNECT and of the request, and curl's exit code.
CURL='req() { out=$(curl -sS --max-time 10 -o /dev/null -w "%{http_connect} %{http_code}" "$@" 2>/dev/null); echo "$* -> $out rc=$?"; }'

# ---------------------------------------------------------------------------------------------

case_allowed_https_and_http() {
  known_fail runc crun
  mark_upstream
  local b id
  b=$(workload a "$CURL"'
    echo "curl: $(curl -sS --max-time 10 https://api.test/c1-curl)"
    echo "urllib: $(python3 -c "import urllib.request as u; print(u.urlopen(\"https://api.test/c1-urllib\", timeout=10).read().decode().strip())")"
    echo "http: $(python3 -c "import urllib.request as u; print(u.urlopen(\"http://api.test/c1-http\", timeout=10).read().decode().strip())")"
    echo "curl-http: $(curl -sS --max-time 10 http://api.test/c1-curl-http)"
    # control: without the proxy variables there is no way out at all
    env -u https_proxy -u HTTPS_PROXY curl -sS --max-time 5 https://api.test/c1-direct >/dev/null 2>&1; echo "direct rc=$?"') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid allowed)
  run_door "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" '^curl: hello from 203\.0\.113\.10:443 /c1-curl$' "curl over HTTPS (the door's CA trusted through /etc/ssl/certs)"
  assert_line "$OUT" '^urllib: hello from 203\.0\.113\.10:443 /c1-urllib$' "Python's urllib over HTTPS (SSL_CERT_FILE)"
  assert_line "$OUT" '^http: hello from 203\.0\.113\.10:80 /c1-http$' "urllib over plain HTTP"
  assert_line "$OUT" '^curl-http: hello from 203\.0\.113\.10:80 /c1-curl-http$' "curl over plain HTTP"
  assert_line "$OUT" '^direct rc=[1-9]' "control: the same request without the door fails"
  assert_eq "" "$(upstream 'c1-direct')" "nothing reached a host without the door"
}

case_door_own_uid_and_namespaces() {
  known_fail runc crun
  mark_upstream
  local b id door sup uid cuid
  b=$(workload d 'id -u; while [ ! -e /mnt/done ]; do sleep 0.1; done') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid door)
  start_detached "$b" "$id" || return 1
  wait_file "$CASEDIR/$id.out" 10 || return 1
  door=$(jq -r .pid "$STATE/$id/egress/door.state")
  sup=$(jq -r .supervisorPid "$STATE/$id/egress/door.state")
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$door/status")
  cuid=$(head -1 "$CASEDIR/$id.out")
  assert_ne 0 "$uid" "the door's uid"
  assert_ne "$cuid" "$uid" "the door's uid is not the container's"
  assert_eq 1 "$(cat "$STATE/.uids/$uid" 2>/dev/null | grep -c "^$id$")" "the door's uid is claimed for the container"
  assert_eq "$(host_ns net)" "$(readlink "/proc/$door/ns/net")" "the door is in the runtime's network namespace"
  local ns
  for ns in mnt pid ipc uts; do
    assert_ne "$(host_ns "$ns")" "$(readlink "/proc/$door/ns/$ns")" "the door's $ns namespace"
    assert_ne "$(readlink "/proc/$(pid_of "$id")/ns/$ns")" "$(readlink "/proc/$door/ns/$ns")" "the door's $ns namespace is not the container's"
  done
  assert_eq "0000000000000000" "$(awk '/^CapEff:/ { print $2 }' "/proc/$door/status")" "the door's effective capabilities"
  assert_eq 1 "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$door/status")" "the door's no_new_privs"
  assert_eq 0 "$(awk '/^Uid:/ { print $2 }' "/proc/$sup/status")" "its supervisor is root"
  assert_eq "0000000000000020" "$(awk '/^CapEff:/ { print $2 }' "/proc/$sup/status")" "its supervisor keeps CAP_KILL only"
  touch "$CASEDIR/done"
  wait_status "$id" stopped 10 || return 1
  assert_ok rt delete "$id"
  for p in "$door" "$sup"; do ! alive "$p" || fail "process $p outlived delete"; done
  assert_eq "" "$(ls "$STATE/.uids" 2>/dev/null)" "uid claims after delete"
  [ ! -e "$STATE/$id" ] || fail "the state dir (the door's CA key in it) outlived delete"
}

case_unlisted_host_refused_before_any_byte() {
  known_fail runc crun
  mark_upstream
  local b id
  b=$(workload u "$CURL"'
    req https://other.test/c2-https
    req http://other.test/c2-http
    python3 -c "import urllib.request as u
try: u.urlopen(\"https://other.test/c2-urllib\", timeout=10); print(\"urllib: allowed\")
except Exception as e: print(\"urllib:\", e)"') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid unlisted)
  run_door "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" '^https://other.test/c2-https -> 403 000 rc=[1-9]' "CONNECT to an unlisted host"
  assert_line "$OUT" '^http://other.test/c2-http -> 000 403 rc=0' "plain HTTP to an unlisted host"
  assert_line "$OUT" '^urllib: .*403' "urllib to an unlisted host"
  assert_eq "" "$(upstream '^conn 203\.0\.113\.11:')" "connections that reached other.test"
  assert_contains "$(door_log "$id")" '"decision":"deny","check":"host"' "the door's log"
  # control: the host is there, and records a connection that reaches it
  curl -sS --max-time 5 --cacert "$W/pki/ca.pem" --resolve other.test:443:203.0.113.11 https://other.test/c2-control >/dev/null
  assert_ne "" "$(upstream '^req 203\.0\.113\.11:443 GET /c2-control')" "control: a direct request reaches other.test"
}

FRONT='import socket, ssl
def attempt(target, sni, host, path):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(("CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (target, target)).encode())
    head = s.recv(4096).decode(errors="replace").split("\r\n")[0]
    if " 200" not in head: return "connect " + head
    ctx = ssl.create_default_context()
    ctx.check_hostname = False          # the client would go along: only the door may refuse
    ctx.verify_mode = ssl.CERT_NONE
    try: t = ctx.wrap_socket(s, server_hostname=sni)
    except Exception as e: return "tls refused (%s)" % type(e).__name__
    t.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
    data = b""
    try:
        while True:
            c = t.recv(4096)
            if not c: break
            data += c
    except Exception as e: data += b" (" + type(e).__name__.encode() + b")"
    return data.decode(errors="replace").split("\r\n")[0] or "closed"
print("same:", attempt("api.test", "api.test", "api.test", "/c3-same"))
print("sni:", attempt("api.test", "other.test", "other.test", "/c3-sni"))
print("host:", attempt("api.test", "api.test", "other.test", "/c3-host"))
print("sni-allowed:", attempt("api.test", "plain.test", "plain.test", "/c3-sni-allowed"))'

case_fronting_refused() {
  known_fail runc crun
  mark_upstream
  local b id
  printf '%s\n' "$FRONT" >"$CASEDIR/front.py"
  b=$(workload f 'python3 /mnt/front.py') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid front)
  run_in "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" '^same: HTTP/1.1 200' "control: CONNECT, SNI and Host agree"
  assert_line "$OUT" '^sni: (tls refused|HTTP/1.1 4)' "CONNECT api.test with SNI other.test"
  assert_line "$OUT" '^host: HTTP/1.1 403' "CONNECT and SNI api.test with Host other.test"
  assert_line "$OUT" '^sni-allowed: (tls refused|HTTP/1.1 4)' "CONNECT api.test with SNI of another allowed host"
  assert_ne "" "$(upstream 'GET /c3-same ')" "control: the agreeing request reached api.test"
  assert_eq "" "$(upstream '/c3-(sni|host)')" "fronted requests that reached a host"
}

case_special_addresses_refused() {
  known_fail runc crun
  mark_upstream
  local b id script
  script="$CURL"'
    req https://private.test/c4
    req http://metadata.test/c4
    req http://203.0.113.11/c4-literal'
  b=$(workload s "$script") || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid special)
  run_door "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" '^https://private.test/c4 -> 403 ' "a name resolving to 10.1.2.3"
  assert_line "$OUT" '^http://metadata.test/c4 -> 000 403 ' "a name resolving to 169.254.169.254"
  assert_line "$OUT" '^http://203.0.113.11/c4-literal -> 000 403 ' "an address literal no rule lists"
  assert_eq "" "$(upstream '^conn (10\.1\.2\.3|169\.254\.169\.254|203\.0\.113\.11):')" "connections to them"
  assert_contains "$(door_log "$id")" '"check":"address"' "the door's log"
  # control: the operator's allowAddresses lets the two names through, and a rule naming the
  # literal lets it through
  b=$(workload s2 "$script") || return 1
  under "$(policy eg2 "$(jq -c '. + [{"host": "203.0.113.11", "port": 80}]' <<<"$RULES")")" \
        "$(runtime_config rc2 '.egress.allowAddresses = ["10.1.2.3", "169.254.169.254"]')"
  run_in "$b" "$(newid special-ctl)"
  assert_run_ok "the control workload" || return 1
  assert_line "$OUT" '^https://private.test/c4 -> 200 200 rc=0' "control: private.test allowed by the operator"
  assert_line "$OUT" '^http://metadata.test/c4 -> 000 200 rc=0' "control: metadata.test allowed by the operator"
  assert_line "$OUT" '^http://203.0.113.11/c4-literal -> 000 200 rc=0' "control: the literal a rule lists"
}

# credential_injected_never_held RUNTIME_CONFIG ID_PREFIX: the workload sends the placeholder (and
# nothing), the door puts the credential in, the upstream sees it; inside, the environment, the
# files and the responses never hold it. Where the door gets it from is the runtime config's.
credential_injected_never_held() {
  known_fail runc crun
  mark_upstream
  local b id rc=$1 prefix=$2
  b=$(workload c "$CURL"'
    echo "token=$GITHUB_TOKEN"
    echo "check: $(curl -sS --max-time 10 -H "Authorization: Bearer $GITHUB_TOKEN" https://api.test/check)"
    echo "added: $(curl -sS --max-time 10 https://api.test/check)"
    echo "echo: $(curl -sS --max-time 10 https://api.test/echo | tr "\n" "|")"
    python3 -c "import urllib.request as u, os
r = u.Request(\"https://api.test/echo\", headers={\"Authorization\": \"Bearer \" + os.environ[\"GITHUB_TOKEN\"]})
print(\"urllib-echo:\", u.urlopen(r, timeout=10).read().decode().replace(chr(10), \"|\"))"
    env; cat /proc/self/environ /proc/1/environ | tr "\0" "\n"
    python3 /mnt/find.py "'"$(rev <<<"$SECRET")"'"
    echo "control: $(python3 /mnt/find.py "$(echo "$GITHUB_TOKEN" | rev)" | grep environ | head -1)"') || return 1
  # The search gets the credential reversed: the container must not be handed it to look for it.
  cat >"$CASEDIR/find.py" <<'PY'
import os, sys
needle = sys.argv[1][::-1].encode()
n = 0
for top in ["/etc", "/run", "/tmp", "/mnt", "/root", "/home", "/var", "/usr/local", "/proc/self/environ", "/proc/1/environ"]:
    for root, dirs, files in ([(os.path.dirname(top), [], [os.path.basename(top)])] if os.path.isfile(top) else os.walk(top)):
        for f in files:
            p = os.path.join(root, f)
            try:
                with open(p, "rb") as fh:
                    data = fh.read(1 << 20)
            except OSError:
                continue
            n += 1
            if needle in data:
                print("found in", p)
print("searched %d files" % n)
PY
  under "$(policy eg "$RULES")" "$rc"
  id=$(newid "$prefix")
  run_in "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" '^token=sharness:github$' "the placeholder in the environment"
  assert_line "$OUT" '^check: authorized$' "the placeholder replaced by the credential"
  assert_line "$OUT" '^added: authorized$' "the credential added to a request that had none"
  assert_line "$OUT" '^echo: ' "an echoing response"
  assert_line "$OUT" '^urllib-echo: ' "an echoing response to urllib"
  assert_line "$OUT" '^searched [1-9][0-9]* files$' "the file search ran"
  assert_eq 0 "$(grep -c "^found in" <<<"$OUT" || true)" "files holding the credential"
  assert_line "$OUT" '^control: found in /proc/self/environ$' "control: the same search finds the placeholder"
  assert_not_contains "$OUT" "$SECRET" "the credential in the environment, the files or the responses"
  # control: it did reach the upstream, as the real value
  assert_ne "" "$(upstream "GET /check host=api.test auth=Bearer $SECRET\$")" "control: the credential at the upstream"
  assert_ne "" "$(upstream "GET /echo host=api.test auth=Bearer $SECRET\$")" "control: the echoed header held it upstream"
}

# From a credentialsDir the operator names.
case_credential_injected_never_held() { credential_injected_never_held "$(runtime_config rc)" cred; }

# From the KMS (no credentialsDir): the vault holds the credential sealed (kms seal --credential), a
# KMS sidecar starts for the policy's egress credentials alone (the policy has no secrets section:
# nothing of the KMS enters the container), and the door asks it with its own leaf at start.
case_credential_from_the_kms() {
  known_fail runc crun
  local k=$CASEDIR/kms
  mkdir -p "$k"
  "$RUNTIME" kms seal --kek "$k/kek" --out "$k/vault" --credential github="$W/creds/github" >/dev/null 2>"$k/seal.err" ||
    { fail "kms seal --credential: $(<"$k/seal.err")"; return 1; }
  assert_not_contains "$(<"$k/vault")" "$SECRET" "the vault holds the credential sealed"
  credential_injected_never_held "$(runtime_config rc-kms 'del(.egress.credentialsDir) | .caDir = "'"$k/ca"'"
    | .kms = {vault: "'"$k/vault"'", kek: "'"$k/kek"'", cgroupParent: "/'"$CGPARENT"'/kms"}')" credkms || return 1
  assert_eq null "$(jq .egress.credentialsDir "$CASEDIR/rc-kms.json")" "the runtime config names no credentialsDir"
}

# The same with an 8 KiB credential (the KMS's limit; a long JWT's size): sealed, released to the
# door, injected whole into the header, and still nowhere in the container.
case_long_credential_from_the_kms() {
  known_fail runc crun
  local k=$CASEDIR/kms
  mkdir -p "$k"
  SECRET=$LONG_SECRET  # the test hosts' /check takes it too
  assert_eq 8192 "${#SECRET}" "the credential is 8 KiB"
  printf '%s\n' "$SECRET" >"$k/github"
  "$RUNTIME" kms seal --kek "$k/kek" --out "$k/vault" --credential github="$k/github" >/dev/null 2>"$k/seal.err" ||
    { fail "kms seal --credential (8 KiB): $(<"$k/seal.err")"; return 1; }
  rm -f "$k/github"
  credential_injected_never_held "$(runtime_config rc-kms 'del(.egress.credentialsDir) | .caDir = "'"$k/ca"'"
    | .kms = {vault: "'"$k/vault"'", kek: "'"$k/kek"'", cgroupParent: "/'"$CGPARENT"'/kms"}')" credlong || return 1
}

case_placeholder_to_another_host_refused() {
  known_fail runc crun
  mark_upstream
  local b id
  b=$(workload p "$CURL"'
    req -H "Authorization: Bearer $GITHUB_TOKEN" https://plain.test/c6-placeholder
    req -H "X-Token: $GITHUB_TOKEN" https://plain.test/c6-header
    req https://plain.test/c6-control') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid placeholder)
  run_door "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" 'c6-placeholder -> 200 403 ' "the placeholder sent to plain.test"
  assert_line "$OUT" 'c6-header -> 200 403 ' "the placeholder in another header"
  assert_line "$OUT" 'c6-control -> 200 200 rc=0' "control: the same request without it"
  assert_eq "" "$(upstream '/c6-(placeholder|header)')" "refused requests that reached plain.test"
  assert_contains "$(door_log "$id")" '"check":"placeholder"' "the door's log"
}

case_budgets_cut_off() {
  known_fail runc crun
  mark_upstream
  local b id
  b=$(workload r "$CURL"'
    for i in 1 2 3 4; do req https://budget.test/c7-$i; done') || return 1
  under "$(policy egb '[{"host": "budget.test"}]' '{"requests": 3}')" "$(runtime_config rc)"
  id=$(newid requests)
  run_in "$b" "$id"
  assert_run_ok "the workload" || return 1
  local i
  for i in 1 2 3; do assert_line "$OUT" "c7-$i -> 200 200 rc=0" "request $i of 3 (control)"; done
  assert_line "$OUT" 'c7-4 -> (429 000|200 429) ' "the fourth request"
  assert_eq "" "$(upstream 'GET /c7-4 ')" "the fourth request at the host"
  # bytes: 64 KiB comes back whole once, and the second is cut off under a 100 KB budget
  b=$(workload r2 '
    for i in 1 2; do echo "big $i: $(curl -sS --max-time 10 https://budget.test/big 2>/dev/null | wc -c)"; done') || return 1
  under "$(policy egbb '[{"host": "budget.test"}]' '{"bytes": 100000}')" "$(runtime_config rc)"
  run_in "$b" "$(newid bytes)"
  assert_run_ok "the bytes workload" || return 1
  assert_line "$OUT" '^big 1: 65536$' "control: the first 64 KiB"
  # what the second may bring back: 100000 bytes both ways, less the first (65536 and its headers)
  assert_line "$OUT" '^big 2: ([0-9]{1,4}|[0-2][0-9]{4}|3[0-4][0-9]{3})$' "the second, cut before the budget"
  # rate: one request per second; three at once
  b=$(workload r3 "$CURL"'
    for i in 1 2 3; do req https://budget.test/c7-rate-$i; done') || return 1
  under "$(policy egbr '[{"host": "budget.test"}]' '{"requestsPerSecond": 1}')" "$(runtime_config rc)"
  run_in "$b" "$(newid rate)"
  assert_run_ok "the rate workload" || return 1
  assert_line "$OUT" 'c7-rate-1 -> 200 200 rc=0' "control: the first request"
  assert_line "$OUT" 'c7-rate-[23] -> (429 000|200 429) ' "a request past the rate"
}

case_upstream_certificate_checked() {
  known_fail runc crun
  mark_upstream
  local b id script
  script="$CURL"'
    req https://untrusted.test/c8-untrusted
    req https://wrongname.test/c8-wrongname
    req https://right.test/c8-right'
  b=$(workload t "$script") || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid tls)
  run_door "$b" "$id"
  assert_run_ok "the workload" || return 1
  assert_line "$OUT" 'c8-untrusted -> 200 502 ' "an upstream whose CA the door was not told to trust"
  assert_line "$OUT" 'c8-wrongname -> 200 502 ' "an upstream whose certificate names another host"
  assert_line "$OUT" 'c8-right -> 200 200 rc=0' "control: the same server under the name it has"
  assert_eq "" "$(upstream '/c8-(untrusted|wrongname)')" "requests that reached them"
  assert_contains "$(door_log "$id")" '"check":"upstream-tls"' "the door's log"
  # control: with the rogue CA in the door's trust, untrusted.test is reached
  b=$(workload t2 "$script") || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc2 ".egress.upstreamTrust = \"$W/both-cas.pem\"")"
  run_in "$b" "$(newid tls-ctl)"
  assert_run_ok "the control workload" || return 1
  assert_line "$OUT" 'c8-untrusted -> 200 200 rc=0' "control: trusted, it is reached"
}

case_killed_door_leaves_no_network() {
  known_fail runc crun
  mark_upstream
  local b id door
  b=$(workload k "$CURL"'
    req https://plain.test/c9-before
    while [ ! -e /mnt/go ]; do sleep 0.1; done
    req https://plain.test/c9-after
    python3 -c "import socket
for a in [(\"203.0.113.10\", 443), (\"203.0.113.1\", 22), (\"127.0.0.1\", 3128)]:
    try: socket.create_connection(a, timeout=3); print(\"direct\", a[0], \"connected\")
    except OSError as e: print(\"direct\", a[0], e.strerror)"
    echo "routes: $(tail -n +2 /proc/net/route | wc -l)"
    echo "links: $(ls /sys/class/net | tr "\n" " ")"') || return 1
  under "$(policy eg "$RULES")" "$(runtime_config rc)"
  id=$(newid kill)
  start_detached "$b" "$id" || return 1
  wait_grep "$CASEDIR/$id.out" 'c9-before' 15 || return 1
  door=$(jq -r .pid "$STATE/$id/egress/door.state")
  alive "$door" || fail "the door $door is not running"
  kill -KILL "$door"
  for _ in $(seq 100); do alive "$door" || break; sleep 0.05; done
  ! alive "$door" || fail "the door $door outlived SIGKILL"
  touch "$CASEDIR/go"
  wait_status "$id" stopped 30 || return 1
  cp "$STATE/$id/egress/door.log" "$CASEDIR/$id.door.log"
  OUT=$(<"$CASEDIR/$id.out")
  assert_line "$OUT" 'c9-before -> 200 200 rc=0' "control: through the door before it was killed"
  assert_line "$OUT" 'c9-after -> 000 000 rc=[1-9]' "after: nothing answers"
  assert_line "$OUT" '^direct 203.0.113.10 Network is unreachable$' "a direct connection"
  assert_line "$OUT" '^direct 127.0.0.1 Connection refused$' "the door's port"
  assert_line "$OUT" '^routes: 0$' "routes in the container"
  assert_line "$OUT" '^links: lo $' "links in the container"
  assert_eq "" "$(upstream 'c9-after')" "requests after the kill"
  assert_contains "$(door_log "$id")" "the container has no way out now" "the supervisor's record"
}

case_explain_and_map() {
  known_fail runc crun
  mark_upstream
  local p
  p=$(policy eg "$RULES")
  assert_ok rt policy explain "$p"
  assert_contains "$CMD_OUT" "[ok]      egress door: the only way out, to 8 rule(s)" "explain's line"
  assert_ok rt policy map "$p"
  assert_contains "$CMD_OUT" '"destination": "/etc/ssl/certs"' "map: the trust bind"
  assert_contains "$CMD_OUT" '"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"' "map: the CA variables"
  assert_contains "$CMD_OUT" 'sharness-egress' "map: the hooks"
}

# A door that cannot start (its upstream trust file is missing) fails create with the door's own
# words, and leaves nothing: no state, no uid claim, no process. Control: the same with the file there.
case_door_cannot_start() {
  known_fail runc crun
  mark_upstream
  local b p id
  b=$(workload ns 'true') || return 1
  p=$(policy eg "$RULES")
  under "$p" "$(runtime_config rcbad ".egress.upstreamTrust = \"$CASEDIR/no-such-ca.pem\"")"
  id=$(newid nostart)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a door that cannot start"
  assert_contains "$ERR" "egress door for $id: exit 1: sharness-egress door:" "create's error, the door's words"
  assert_contains "$ERR" "no-such-ca.pem" "what the door could not open"
  assert_nothing_left "$id"
  assert_eq "" "$(ls "$STATE/.uids" 2>/dev/null)" "uid claims after the failed create"
  under "$p" "$(runtime_config rc)"
  id=$(newid nostart-ctl)
  must_create "$b" "$id" || return 1
  assert_ok rt delete --force "$id"
}

# Rootless, the door cannot be started (a throwaway host uid, setns into the container's network
# namespace): create refuses, naming why, and leaves nothing. Control: the same create as root.
case_rootless_refused() {
  known_fail runc crun
  mark_upstream
  local b p rc id
  b=$(workload rl 'true') || return 1
  p=$CASEDIR/rl.json  # no throwaway uid, which is refused rootless too, and first
  echo "{\"id\": \"rl\", \"version\": 1, \"egress\": {\"rules\": $RULES}}" >"$p"
  rc=$(runtime_config rc)
  mkdir -m 0777 "$CASEDIR/rl-state"
  _run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$RUNTIME" --root "$CASEDIR/rl-state" --config "$rc" \
    --policy "$p" create --bundle "$b" rl
  assert_ne 0 "$CMD_RC" "create as uid 65534"
  assert_contains "$CMD_OUT" "policy rl: egress needs root: the door runs as its own host uid" "the refusal"
  assert_eq "" "$(ls "$CASEDIR/rl-state")" "what the refused create left"
  under "$p" "$rc"
  id=$(newid rl-root)
  must_create "$b" "$id" || return 1
  assert_ok rt delete --force "$id"
}

# hello under harsh plus an egress section (and the socket calls busybox's nc needs): its table gets
# the attempts through the door, held by the door, and every attempt is held. harsh's exec pin is
# refreshed from this host's busybox, as landlock_abi.sh does.
case_hello_harsh_egress() {
  known_fail runc crun
  mark_upstream
  local harsh=$CASEDIR/harsh.json p=$CASEDIR/harsh-egress.json
  rt policy pin --rootfs / "$SHARNESS_SOURCE_DIR/policies/harsh.json" --out "$harsh" >/dev/null
  jq '.id = "harsh-egress" | .network = "loopback" | .egress = {rules: [{host: "api.test"}]}
      | .syscalls.allow = (.syscalls.allow + ["socket", "connect", "setsockopt", "getsockopt", "sendto", "recvfrom",
                                              "poll", "getsockname", "getpeername", "shutdown"] | unique)' "$harsh" >"$p"
  _run_cmd rt hello --policy "$p"
  assert_eq 0 "$CMD_RC" "hello's exit (every attempt held): $CMD_OUT"
  assert_line "$CMD_OUT" '^reach an unlisted host via the door +denied +egress door \(own uid, outside\): host in no rule, 403 +Boundary$' "the unlisted host's row"
  assert_line "$CMD_OUT" '^reach 169\.254\.169\.254 via the door +denied +egress door \(own uid, outside\): address in no rule, 403 +Boundary$' "the metadata row"
  assert_line "$CMD_OUT" '^connect to the outside \(1\.1\.1\.1:80\) +denied ' "going around the door"
  assert_line "$CMD_OUT" '^([0-9]+) of \1 attempts held' "the summary"
  # control: without the egress section hello has no such rows
  _run_cmd rt hello --policy "$harsh"
  assert_not_contains "$CMD_OUT" "via the door" "harsh's own table"
}

tcase "allowed host over HTTPS and HTTP: curl and urllib through the door; without it nothing" case_allowed_https_and_http
tcase "the door: its own uid and mount/pid/ipc/uts namespaces, the host's network; gone on delete" case_door_own_uid_and_namespaces
tcase "an unlisted host is refused before a byte reaches it (control: it is reachable directly)" case_unlisted_host_refused_before_any_byte
tcase "fronting: SNI or Host naming another host than CONNECT is refused" case_fronting_refused
tcase "private and metadata resolutions and an unlisted literal are refused (control: allowAddresses, a rule)" case_special_addresses_refused
tcase "the credential reaches the upstream; the container's env, files and responses never hold it" case_credential_injected_never_held
tcase "the same with the credential from the KMS (door-only KMS, door's own leaf): upstream has it, the container never" case_credential_from_the_kms
tcase "an 8 KiB credential from the KMS (the limit) reaches the upstream whole; the container never holds it" case_long_credential_from_the_kms
tcase "the placeholder sent to another host is refused" case_placeholder_to_another_host_refused
tcase "budgets: requests, bytes and rate cut off at their limits" case_budgets_cut_off
tcase "untrusted upstream certificate and wrong host name refused (control: trusted, right name)" case_upstream_certificate_checked
tcase "killing the door leaves the container with no network" case_killed_door_leaves_no_network
tcase "policy explain and map show the door" case_explain_and_map
tcase "a door that cannot start fails create with its words, nothing left (control: it starts)" case_door_cannot_start
tcase "rootless: create refuses a policy with egress, naming why (control: as root it is created)" case_rootless_refused
tcase "hello under harsh plus egress: the attempts through the door are held, every attempt held" case_hello_harsh_egress
finish
