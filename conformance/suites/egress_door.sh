#!/usr/bin/env bash
# The egress door itself (docs/egress.md, issue 19), on the host, without containers: the real
# `sharness-egress door` binary, started as a non-root uid with a listening socket on fd 3 and its
# log on fd 4, in a network namespace of its own ("door", where the clients run too), in front of
# real HTTPS and HTTP servers (conformance/tools/egress_upstream.py) in another ("hosts"), joined
# by a veth. The addresses are documentation ranges (203.0.113.0/24, 2001:db8::/32), named in a
# hosts file, with one private address (10.99.0.1) for the address checks; nothing leaves the
# machine and the host's own network is never touched. Clients: curl and Python on the host
# (conformance/tools/egress_client.py for what curl will not send).
#
# Every refusal has its control: the same request let through where a rule (or another door's
# config) allows it. The door is sharness's own: against another runtime, with no
# sharness-egress beside it and no SHARNESS_EGRESS, every case is skipped.
. "$(dirname "$0")/../lib.sh"

EGRESS=${SHARNESS_EGRESS:-$(dirname "$RUNTIME")/sharness-egress}
TOOLS=$SHARNESS_SOURCE_DIR/conformance/tools
SECRET=s3cr3t-Value-$$-0123456789
W=$TMP/egress
NS_DOOR=shegr-$$-door
NS_HOSTS=shegr-$$-hosts
VETH=shegr$$
DUID=$((60000 + $$ % 4000))  # the doors' uids: DUID, DUID+1, ... (no process of this machine has them)
PIDS=()

egress_cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  ip netns del "$NS_DOOR" 2>/dev/null
  ip netns del "$NS_HOSTS" 2>/dev/null
  rm -rf "/etc/netns/$NS_DOOR"
  [ "${NETNS_DIR_MADE:-0}" = 1 ] && rmdir /etc/netns 2>/dev/null  # only if empty: others may use it
  return 0
}
# Only the suite's own shell cleans up: bash was seen running this trap in a case's subshell as
# it exited (a skip's `exit 77`), which removed $TMP under the cases still to come.
trap '_egress_rc=$?; if [ "$BASHPID" = "$$" ]; then egress_cleanup; (exit $_egress_rc); _cleanup; fi' EXIT

in_door() { ip netns exec "$NS_DOOR" "$@"; }

# ---------------------------------------------------------------------------------------------
# The test hosts: a CA the doors trust (ca1) and one they do not (ca2), a certificate per host,
# the servers, and the door's own per-container CA.

mkca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/$1.key" -out "$W/$1.pem" \
    -days 2 -subj "/CN=egress test $1" -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
mkleaf() {  # CA NAME SAN
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/$2.key" -out "$W/$2.csr" \
    -subj "/CN=$2" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$3" >"$W/$2.ext"
  openssl x509 -req -in "$W/$2.csr" -CA "$W/$1.pem" -CAkey "$W/$1.key" -CAcreateserial -days 2 \
    -extfile "$W/$2.ext" -out "$W/$2.pem" 2>/dev/null
}

setup_hosts() {
  mkdir -p "$W"
  mkca ca1 && mkca ca2 && mkca doorca
  mkleaf ca1 api DNS:api.example.com
  mkleaf ca1 other DNS:other.example.com,DNS:unlisted.example.com
  mkleaf ca2 untrusted DNS:untrusted.example.com
  mkleaf ca1 alias DNS:alias.example.com
  mkleaf ca1 private DNS:private.example.com,IP:10.99.0.1
  mkleaf ca1 api6 DNS:api6.example.com
  cat "$W/ca1.pem" "$W/ca2.pem" >"$W/both.pem"
  cat >"$W/hosts" <<HOSTS
203.0.113.2 api.example.com
203.0.113.3 other.example.com unlisted.example.com
203.0.113.4 untrusted.example.com
203.0.113.5 wrong.example.com alias.example.com
10.99.0.1 private.example.com
169.254.169.254 meta.example.com
2001:db8:113::2 api6.example.com
fd00:ec2::254 v6meta.example.com
HOSTS
  mkdir -p "$W/creds"
  printf '%s\n' "$SECRET" >"$W/creds/token"
  ip netns add "$NS_DOOR" && ip netns add "$NS_HOSTS"
  ip link add "${VETH}d" netns "$NS_DOOR" type veth peer name "${VETH}h" netns "$NS_HOSTS"
  in_door ip link set lo up
  in_door ip link set "${VETH}d" up
  in_door ip addr add 203.0.113.1/24 dev "${VETH}d"
  in_door ip addr add 2001:db8:113::1/64 dev "${VETH}d" nodad
  in_door ip route add 10.99.0.0/24 dev "${VETH}d"
  ip -n "$NS_HOSTS" link set lo up
  ip -n "$NS_HOSTS" link set "${VETH}h" up
  local a
  for a in 203.0.113.2/24 203.0.113.3/24 203.0.113.4/24 203.0.113.5/24 10.99.0.1/24; do
    ip -n "$NS_HOSTS" addr add "$a" dev "${VETH}h"
  done
  ip -n "$NS_HOSTS" addr add 2001:db8:113::2/64 dev "${VETH}h" nodad
  ip -n "$NS_HOSTS" addr add 203.0.113.53/24 dev "${VETH}h"
  # DNS for the doors without a hosts file: `ip netns exec` mounts /etc/netns/NAME/resolv.conf
  # over /etc/resolv.conf for what runs in that namespace (removed on exit).
  [ -d /etc/netns ] || NETNS_DIR_MADE=1
  mkdir -p "/etc/netns/$NS_DOOR"
  echo "nameserver 203.0.113.53" >"/etc/netns/$NS_DOOR/resolv.conf"
  ip netns exec "$NS_HOSTS" /usr/bin/python3 "$TOOLS/egress_dns.py" 203.0.113.53 \
    api.example.com=203.0.113.2 api6.example.com=2001:db8:113::2 private.example.com=10.99.0.1 \
    mixed.example.com=203.0.113.2,10.99.0.1 </dev/null >"$W/dns.out" 2>&1 &
  PIDS+=($!)
  ip netns exec "$NS_HOSTS" /usr/bin/python3 "$TOOLS/egress_upstream.py" "$SECRET" \
    "203.0.113.2,443,$W/api.conn,$W/api.pem,$W/api.key" "203.0.113.2,80,$W/api80.conn" \
    "203.0.113.3,443,$W/other.conn,$W/other.pem,$W/other.key" \
    "203.0.113.4,443,$W/untrusted.conn,$W/untrusted.pem,$W/untrusted.key" \
    "203.0.113.5,443,$W/alias.conn,$W/alias.pem,$W/alias.key" \
    "10.99.0.1,443,$W/private.conn,$W/private.pem,$W/private.key" \
    "2001:db8:113::2,443,$W/api6.conn,$W/api6.pem,$W/api6.key" </dev/null >"$W/servers.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q ready "$W/servers.out" 2>/dev/null && return 0; sleep 0.1; done
  echo "the test servers did not start: $(cat "$W/servers.out")" >&2
  return 1
}

# door NAME UID EGRESS-JSON [CONFIG-OVERRIDES]: a door in the door namespace under UID, its
# config $W/NAME.json (the overrides, a JSON object, replace members; null removes one), listener port in
# $W/NAME.port, log $W/NAME.log, stderr $W/NAME.err.
door() {
  local name=$1 uid=$2
  install -m 0400 -o "$uid" "$W/doorca.key" "$W/$name.cakey"  # the CA key: the door's uid only
  jq -n --arg name "$name" --arg w "$W" --argjson egress "$3" --argjson over "${4:-{\}}" \
    '{container: $name, egress: $egress, ca: {cert: "\($w)/doorca.pem", key: "\($w)/\($name).cakey"},
      upstreamTrust: "\($w)/ca1.pem", hosts: "\($w)/hosts", credentials: {dir: "\($w)/creds"}} + $over
     | with_entries(select(.value != null))' \
    >"$W/$name.json"
  launch_door "$name" "$uid" "$W/$name.json"
}

# launch_door NAME UID CONFIG: python makes the listener (fd 3) and the log (fd 4) and writes its
# pid, setpriv drops to the uid; both exec, so the pid is the door's.
launch_door() {
  local name=$1
  ip netns exec "$NS_DOOR" /usr/bin/python3 -c '
import os, socket, sys
name, uid, door, cfg = sys.argv[1:5]
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
open(name + ".port", "w").write(str(s.getsockname()[1]))
open(name + ".pid", "w").write(str(os.getpid()))
log = os.open(name + ".log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
os.dup2(s.fileno(), 3); os.dup2(log, 4)
os.set_inheritable(3, True); os.set_inheritable(4, True)  # dup2 onto itself keeps CLOEXEC
os.execvp("setpriv", ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all",
                      "--bounding-set=-all", door, "door", "--config", cfg])
' "$W/$name" "$2" "$EGRESS" "$3" </dev/null >/dev/null 2>"$W/$name.err" &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q '"door serving' "$W/$name.log" 2>/dev/null && return 0; sleep 0.05; done
  echo "door $name did not start: $(cat "$W/$name.err")" >&2
  return 1
}

port() { cat "$W/$1.port"; }

# get DOOR URL [CURL ARGS...]: curl through DOOR; OUT is the body, CODE the status (for a refused
# CONNECT, the CONNECT answer's).
get() {
  local d=$1 url=$2
  shift 2
  OUT=$(in_door curl -sS --max-time 20 --path-as-is -x "http://127.0.0.1:$(port "$d")" --cacert "$W/doorca.pem" \
    -o - -w '\n%{http_code} %{http_connect}' "$@" "$url" 2>"$W/curl.err") || true
  local last=${OUT##*$'\n'}
  OUT=${OUT%$'\n'*}
  CODE=${last%% *}
  [ "$CODE" = 000 ] && CODE=${last##* }
  echo "# $url -> $CODE" >&2
  return 0
}

# The last log line of DOOR and one field of it.
last_log() { tail -n 1 "$W/$1.log"; }
log_field() { last_log "$1" | jq -r ".$2"; }
conns() { cat "$W/$1.conn" 2>/dev/null | wc -l; }

RULES_A='{"rules": [
  {"host": "api.example.com", "methods": ["GET", "HEAD", "POST"], "pathPrefixes": ["/ok", "/echo", "/big", "/post"]},
  {"host": "api.example.com", "pathPrefixes": ["/secret", "/split"],
   "credential": {"vault": "token", "inject": "bearer", "env": "TOKEN"}},
  {"host": "api.example.com", "port": 80},
  {"host": "other.example.com"}, {"host": "private.example.com"}, {"host": "meta.example.com"},
  {"host": "untrusted.example.com"}, {"host": "wrong.example.com"}, {"host": "alias.example.com"},
  {"host": "api6.example.com"}, {"host": "v6meta.example.com"}, {"host": "10.99.0.1"}]}'

if [ -x "$EGRESS" ]; then
  setup_hosts || exit 1
  door a "$DUID" "$RULES_A" || exit 1
  # b: the controls of the address and trust refusals (an operator's allowAddresses, a second CA).
  door b $((DUID + 1)) '{"rules": [{"host": "private.example.com"}, {"host": "untrusted.example.com"}]}' \
    "{\"allowAddresses\": [\"10.99.0.0/24\"], \"upstreamTrust\": \"$W/both.pem\"}" || exit 1
  BUDGET_RULES='[{"host": "api.example.com", "methods": ["GET"], "pathPrefixes": ["/ok", "/big"]}]'
  door requests $((DUID + 2)) "{\"rules\": $BUDGET_RULES, \"budgets\": {\"requests\": 3}}" || exit 1
  door bytes $((DUID + 3)) "{\"rules\": $BUDGET_RULES, \"budgets\": {\"bytes\": 6000}}" || exit 1
  door rate $((DUID + 4)) "{\"rules\": $BUDGET_RULES, \"budgets\": {\"requestsPerSecond\": 1}}" || exit 1
  # dns: no hosts file, names from the DNS server through the C library's resolver.
  door dns $((DUID + 5)) '{"rules": [{"host": "api.example.com"}, {"host": "api6.example.com"},
    {"host": "private.example.com"}, {"host": "mixed.example.com"}, {"host": "nowhere.example.com"}]}' \
    '{"hosts": null}' || exit 1
fi

need_door() { [ -x "$EGRESS" ] || skip "the egress door is sharness's own (no $EGRESS; set SHARNESS_EGRESS)"; }

# ---------------------------------------------------------------------------------------------

case_https_allowed() {
  need_door
  get a https://api.example.com/ok/hello
  assert_eq 200 "$CODE" "GET through the door"
  assert_line "$OUT" '^GET /ok/hello$' "the server got the request"
  assert_eq allow "$(log_field a decision)"
  assert_eq number "$(log_field a 'rule | type')"
  assert_eq /ok/hello "$(log_field a path)"
  # Python's urllib, with the door's CA as its trust.
  local py
  py=$(in_door /usr/bin/python3 "$TOOLS/egress_client.py" urllib "$(port a)" https://api.example.com/echo/py "$W/doorca.pem")
  assert_line "$py" '^200$' "urllib through the door"
  assert_line "$py" '^GET /echo/py$'
  # The leaf is the door's, for exactly that name.
  local subj
  subj=$(in_door curl -sS -v -x "http://127.0.0.1:$(port a)" --cacert "$W/doorca.pem" https://api.example.com/ok 2>&1 |
    grep -E 'issuer:|subjectAltName' | tr '\n' ' ')
  assert_contains "$subj" "egress test doorca" "the leaf comes from the door's CA"
  assert_contains "$subj" '"api.example.com" matched'
  # IPv6: a name that resolves to 2001:db8::/32.
  get a https://api6.example.com/ok/six
  assert_eq 200 "$CODE" "an IPv6 upstream"
  assert_eq 1 "$(conns api6)"
}

case_dns() {
  need_door
  get dns https://api.example.com/ok/dns
  assert_eq 200 "$CODE" "a name from DNS (A)"
  get dns https://api6.example.com/ok/dns
  assert_eq 200 "$CODE" "a name from DNS (AAAA)"
  get dns https://private.example.com/ok
  assert_eq 403 "$CODE" "a name DNS resolves to 10.99.0.1"
  assert_eq address "$(log_field dns check)"
  local before
  before=$(conns api)
  get dns https://mixed.example.com/ok
  assert_eq 403 "$CODE" "one of its addresses is private: the name is refused"
  assert_contains "$(log_field dns reason)" "10.99.0.1"
  assert_eq "$before" "$(conns api)" "no connection to its public address either"
  get dns https://nowhere.example.com/ok
  assert_eq 403 "$CODE" "no such name"
  assert_eq address "$(log_field dns check)"
  assert_contains "$(log_field dns reason)" "no address"
  # The door read its resolver configuration before confining itself, and is still alive.
  [ -d "/proc/$(cat "$W/dns.pid")" ] || fail "the door died"
}

case_http_allowed_and_unlisted_literal() {
  need_door
  get a http://api.example.com/plain/x
  assert_eq 200 "$CODE" "plain HTTP, rule port 80"
  assert_line "$OUT" '^GET /plain/x$'
  assert_eq number "$(log_field a 'rule | type')"
  local before
  before=$(conns api80)
  get a http://203.0.113.2/plain/x
  assert_eq 403 "$CODE" "an address literal no rule lists"
  assert_eq host "$(log_field a check)"
  assert_eq "$before" "$(conns api80)" "the server saw no connection"
  get a https://203.0.113.2/ok
  assert_eq 403 "$CODE" "the same literal through CONNECT"
}

case_unlisted_host_refused_before_any_byte() {
  need_door
  local before
  before=$(conns other)
  get a https://unlisted.example.com/ok
  assert_eq 403 "$CODE" "CONNECT to a host no rule lists"
  assert_eq host "$(log_field a check)"
  assert_eq CONNECT "$(log_field a method)"
  assert_eq "$before" "$(conns other)" "the server (same address as other.example.com) saw no connection"
  # Control: the listed name of the same server goes through, and the server sees it.
  get a https://other.example.com/ok
  assert_eq 200 "$CODE"
  assert_eq $((before + 1)) "$(conns other)"
  get a http://other.example.com/ok
  assert_eq 403 "$CODE" "port 80 of a host listed for 443 only"
}

case_fronting_refused() {
  need_door
  local out c=("$TOOLS/egress_client.py" tls "$(port a)")
  # CONNECT to an allowed name, SNI of another (allowed) one.
  out=$(in_door /usr/bin/python3 "${c[@]}" api.example.com:443 other.example.com other.example.com /ok "$W/doorca.pem")
  assert_line "$out" '^HTTP/1.1 200' "CONNECT itself is allowed"
  assert_line "$out" '^tls refused:' "SNI other than the CONNECT host"
  assert_eq sni "$(log_field a check)"
  # SNI right, Host another.
  out=$(in_door /usr/bin/python3 "${c[@]}" api.example.com:443 api.example.com other.example.com /ok "$W/doorca.pem")
  assert_line "$out" '^HTTP/1.1 403' "Host other than the CONNECT host"
  assert_eq host-header "$(log_field a check)"
  # Control: all three agree.
  out=$(in_door /usr/bin/python3 "${c[@]}" api.example.com:443 api.example.com api.example.com /ok "$W/doorca.pem")
  assert_line "$out" '^HTTP/1.1 200 OK' "CONNECT, SNI and Host agree"
  # Plain HTTP: the URL's host and Host must agree too.
  get a http://api.example.com/ok -H 'Host: other.example.com'
  assert_eq 403 "$CODE" "plain request with another Host"
  assert_eq host-header "$(log_field a check)"
}

case_private_and_metadata_addresses_refused() {
  need_door
  local before
  before=$(conns private)
  get a https://private.example.com/ok
  assert_eq 403 "$CODE" "a name resolving to 10.99.0.1"
  assert_eq address "$(log_field a check)"
  assert_contains "$(log_field a reason)" "private (RFC 1918)"
  assert_eq "$before" "$(conns private)" "the server saw no connection"
  get a https://meta.example.com/
  assert_eq 403 "$CODE" "a name resolving to 169.254.169.254"
  assert_contains "$(log_field a reason)" "cloud metadata"
  get a https://v6meta.example.com/
  assert_eq 403 "$CODE" "a name resolving to fd00:ec2::254"
  assert_contains "$(log_field a reason)" "cloud metadata"
  # Controls: the rule that names the address literally, and an operator's allowAddresses.
  get a https://10.99.0.1/ok
  assert_eq 200 "$CODE" "the rule naming 10.99.0.1"
  get b https://private.example.com/ok
  assert_eq 200 "$CODE" "allowAddresses 10.99.0.0/24"
}

case_paths_and_methods() {
  need_door
  local p
  for p in /ok/../secret /ok/./x '/ok//x' /ok%2fx /ok%2Fx '/ok%2e%2e/x' '/ok/%2e%2e/secret' '/ok\x'; do
    get a "https://api.example.com$p"
    assert_eq 403 "$CODE" "path $p"
    assert_eq path "$(log_field a check)"
  done
  get a https://api.example.com/ok-evil
  assert_eq 403 "$CODE" "a prefix holds whole segments"
  assert_eq path "$(log_field a check)"
  get requests https://api.example.com/ok/x -X DELETE
  assert_eq 403 "$CODE" "DELETE under a rule of GET"
  assert_eq method "$(log_field requests check)"
  get a https://api.example.com/ok/x -X TRACE
  assert_eq 403 "$CODE" "TRACE"
  # Controls: an encoded byte that is not / decodes and matches; the right method goes through.
  get a https://api.example.com/ok/%41x
  assert_eq 200 "$CODE" "an encoded letter"
  assert_eq /ok/Ax "$(log_field a path)"
  get a https://api.example.com/ok/x
  assert_eq 200 "$CODE"
}

case_credential_injected_and_scrubbed() {
  need_door
  # Control: straight to the server (the door bypassed), the secret comes back in the echo, so
  # the scrub below is not vacuous.
  local direct
  direct=$(in_door curl -sS --cacert "$W/ca1.pem" --resolve api.example.com:443:203.0.113.2 \
    -H "Authorization: Bearer $SECRET" https://api.example.com/secret/x)
  assert_contains "$direct" "$SECRET" "the server echoes the secret"
  get a https://api.example.com/secret/x
  assert_eq 200 "$CODE" "the server saw Authorization: Bearer SECRET (else 401)"
  assert_not_contains "$OUT" "$SECRET" "the echoed header and body are scrubbed"
  assert_contains "$OUT" "authorization: Bearer ${SECRET//?/*}"
  assert_contains "$OUT" "accept-encoding: identity"
  # The workload's placeholder is replaced where it sent it.
  get a https://api.example.com/secret/y -H 'Authorization: Bearer sharness:token'
  assert_eq 200 "$CODE" "the placeholder replaced"
  assert_not_contains "$OUT" "$SECRET"
  # Cut across three-byte chunks: scrubbed all the same.
  get a https://api.example.com/split
  assert_eq 200 "$CODE"
  assert_eq "head ${SECRET//?/*} middle ${SECRET//?/*} tail" "$(head -n 1 <<<"$OUT")" "scrubbed across chunk boundaries"
  # Python's urllib with the placeholder, as a tool reading TOKEN would send it.
  local py
  py=$(in_door /usr/bin/python3 "$TOOLS/egress_client.py" urllib "$(port a)" https://api.example.com/secret/py \
    "$W/doorca.pem" "Authorization=Bearer sharness:token")
  assert_line "$py" '^200$'
  assert_not_contains "$py" "$SECRET"
  # Over plain HTTP a credential is never sent.
  assert_not_contains "$(cat "$W/a.log")" "$SECRET" "the log never holds it"
}

case_placeholder_elsewhere_refused() {
  need_door
  local before
  before=$(conns other)
  get a https://other.example.com/ok -H 'X-Token: sharness:token'
  assert_eq 403 "$CODE" "the placeholder to a host no rule of its vault lists"
  assert_eq placeholder "$(log_field a check)"
  get a https://api.example.com/ok/x -H 'Authorization: Bearer sharness:token'
  assert_eq 403 "$CODE" "the placeholder in a request the credential's rule does not cover"
  get a https://other.example.com/ok -X POST --data 'token=sharness:token'
  assert_eq 403 "$CODE" "the placeholder in a body"
  assert_eq placeholder "$(log_field a check)"
  # Control: the same requests without it.
  get a https://other.example.com/ok -H 'X-Token: none'
  assert_eq 200 "$CODE"
  get a https://other.example.com/ok -X POST --data 'token=none'
  assert_eq 200 "$CODE"
  assert_contains "$OUT" "got 10 bytes: token=none"
}

case_encoded_answer_to_credentialed_request() {
  need_door
  get a 'https://api.example.com/secret/z?gzip'
  assert_eq 502 "$CODE" "a gzip body the door could not scrub"
  assert_eq encoding "$(log_field a check)"
  # Control: an encoded answer to a request without a credential passes as it is.
  get a 'https://api.example.com/ok/z?gzip' --compressed
  assert_eq 200 "$CODE"
  assert_contains "$OUT" "GET /ok/z?gzip"
}

case_budgets() {
  need_door
  local i codes=""
  for i in 1 2 3 4; do get requests https://api.example.com/ok/$i; codes+="$CODE "; done
  assert_eq "200 200 200 429 " "$codes" "three requests, then the budget"
  assert_eq budget-requests "$(log_field requests check)"
  # Bytes: 6000 both ways; a 2000-byte answer goes, a 10000-byte one is cut.
  get bytes 'https://api.example.com/big?n=2000'
  assert_eq 200 "$CODE" "within the bytes budget"
  assert_eq 2000 "${#OUT}"
  get bytes 'https://api.example.com/big?n=10000'
  assert_ne 10000 "${#OUT}" "the answer is cut"
  assert_eq budget-bytes "$(log_field bytes check)"
  get bytes https://api.example.com/ok/after
  assert_eq 429 "$CODE" "nothing more once the bytes are spent"
  # Rate: one a second; five in one curl run cannot all pass.
  OUT=$(in_door curl -sS --max-time 20 -x "http://127.0.0.1:$(port rate)" --cacert "$W/doorca.pem" -o /dev/null \
    -w '%{http_code}\n' https://api.example.com/ok/1 https://api.example.com/ok/2 https://api.example.com/ok/3 \
    https://api.example.com/ok/4 https://api.example.com/ok/5)
  assert_line "$OUT" '^200$' "the first within the rate"
  assert_line "$OUT" '^429$' "more than one a second"
  assert_contains "$(cat "$W/rate.log")" '"check":"budget-rate"'
}

case_upstream_certificate_checked() {
  need_door
  get a https://untrusted.example.com/ok
  assert_eq 502 "$CODE" "a certificate from a CA the door does not trust"
  assert_eq upstream-tls "$(log_field a check)"
  assert_contains "$(log_field a reason)" "certificate verify failed"
  get a https://wrong.example.com/ok
  assert_eq 502 "$CODE" "a certificate for another name (alias.example.com)"
  assert_eq upstream-tls "$(log_field a check)"
  # Controls: the same server under the name its certificate has; the other CA trusted.
  get a https://alias.example.com/ok
  assert_eq 200 "$CODE"
  get b https://untrusted.example.com/ok
  assert_eq 200 "$CODE"
}

# The door resumes TLS sessions upstream (egress/upstream_sessions.hpp), keyed by host and port:
# a session made for alias.example.com is never offered for wrong.example.com, although the
# same server (and ticket key) answers both, so the name check is not skipped.
case_upstream_session_per_name() {
  need_door
  get a https://alias.example.com/ok
  assert_eq 200 "$CODE"
  get a https://alias.example.com/ok
  assert_eq 200 "$CODE"
  assert_eq resumed "$(tail -n 1 "$W/alias.conn.tls")" "the second connection to the same name resumes"
  get a https://wrong.example.com/ok
  assert_eq 502 "$CODE" "a session for alias.example.com offered for wrong.example.com"
  assert_eq upstream-tls "$(log_field a check)"
  assert_contains "$(log_field a reason)" "hostname mismatch"
}

case_fail_closed() {
  need_door
  local c=(/usr/bin/python3 "$TOOLS/egress_client.py" raw "$(port a)") out
  out=$(in_door "${c[@]}" 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 400' "an HTTP/2 preface"
  out=$(in_door "${c[@]}" 'GET http://api.example.com/ok/1 HTTP/1.1\r\nHost: api.example.com\r\n\r\nGET http://api.example.com/ok/2 HTTP/1.1\r\nHost: api.example.com\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 400' "pipelined requests"
  out=$(in_door "${c[@]}" "GET http://api.example.com/ok HTTP/1.1\\r\\nHost: api.example.com\\r\\nX-Big: $(head -c 40000 /dev/zero | tr '\0' a)\\r\\n\\r\\n")
  assert_match "$out" '^HTTP/1.1 400' "a head over 32 KiB"
  out=$(in_door "${c[@]}" 'POST http://api.example.com/ok HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 400' "Content-Length and chunked at once"
  out=$(in_door "${c[@]}" 'GET http://api.example.com/ok HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 403' "a protocol upgrade"
  out=$(in_door "${c[@]}" 'GET http://api.example.com/ok HTTP/1.1\r\nHost: api.example.com\r\n folded: x\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 400' "an obs-fold line"
  # A tunnel the door cannot inspect: CONNECT, then not TLS.
  out=$(in_door "${c[@]}" 'CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n')
  assert_match "$out" '^HTTP/1.1 200' "CONNECT answered"
  out=$(in_door /usr/bin/python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
print(s.recv(1000).split(b"\r\n")[0].decode())
s.sendall(b"GET /ok HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
print(repr(s.recv(1000)))' "$(port a)")
  assert_not_contains "$out" "GET /ok" "plain HTTP inside a CONNECT is not forwarded"
  assert_eq parse "$(log_field a check)"
  # Control: a chunked request body is read and forwarded (re-chunked).
  get a https://api.example.com/post/x -X POST -H 'Transfer-Encoding: chunked' --data-binary 'hello chunks'
  assert_eq 200 "$CODE"
  assert_contains "$OUT" "got 12 bytes: hello chunks"
}

case_log_lines() {
  need_door
  local n
  n=$(wc -l <"$W/a.log")
  get a https://api.example.com/ok/logged
  get a https://api.example.com/ok/x -X PUT
  tail -n +$((n + 1)) "$W/a.log" >"$CASEDIR/lines"
  assert_eq 2 "$(wc -l <"$CASEDIR/lines")" "one line per request"
  jq -e 'has("time") and has("container") and has("rule") and has("method") and has("host") and has("path")
         and has("status") and has("bytesOut") and has("bytesIn") and has("decision")' "$CASEDIR/lines" >/dev/null
  assert_eq 'allow 200 a GET api.example.com /ok/logged number' \
    "$(head -n 1 "$CASEDIR/lines" | jq -r '[.decision, .status, .container, .method, .host, .path, (.rule | type)] | join(" ")')"
  assert_eq 'deny 403 path PUT' "$(tail -n 1 "$CASEDIR/lines" | jq -r '[.decision, .status, .check, .method] | join(" ")')"
  [ "$(head -n 1 "$CASEDIR/lines" | jq .bytesIn)" -gt 0 ] || fail "bytesIn counted"
}

case_door_unprivileged_and_confined() {
  need_door
  local pid st
  pid=$(cat "$W/a.pid")
  st=$(cat "/proc/$pid/status")
  assert_line "$st" "^Uid:[[:space:]]+$DUID[[:space:]]+$DUID[[:space:]]+$DUID" "the door's uid"
  assert_line "$st" '^CapEff:[[:space:]]+0+$'
  assert_line "$st" '^CapPrm:[[:space:]]+0+$'
  assert_line "$st" '^CapBnd:[[:space:]]+0+$'
  assert_line "$st" '^NoNewPrivs:[[:space:]]+1$'
  assert_line "$st" '^Seccomp:[[:space:]]+2$'
  assert_contains "$(head -n 1 "$W/a.log")" "landlock"
  # fds: 0-2, the listener and the log, and nothing else while idle.
  assert_eq "0 1 2 3 4" "$(ls "/proc/$pid/fd" | sort -n | tr '\n' ' ' | sed 's/ $//')"
  # Root is refused before anything is read (control: the same config under a uid serves, above).
  in_door /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
os.dup2(s.fileno(), 3); os.dup2(os.open("/dev/null", os.O_WRONLY), 4)
os.set_inheritable(3, True); os.set_inheritable(4, True)
os.execv(sys.argv[1], [sys.argv[1], "door", "--config", sys.argv[2]])' "$EGRESS" "$W/a.json" >"$CASEDIR/root.out" 2>&1 && \
    fail "the door ran as root"
  assert_contains "$(cat "$CASEDIR/root.out")" "does not run as root"
  # A config with an unknown key is refused, naming it.
  jq '. + {"bogus": 1}' "$W/a.json" >"$W/bad.json"
  if launch_door bad $((DUID + 5)) "$W/bad.json" 2>"$CASEDIR/bad.out"; then fail "a config with an unknown key served"; fi
  assert_contains "$(cat "$W/bad.err")" "bogus"
}

case_stops_when_listener_shut() {
  need_door
  install -m 0400 -o $((DUID + 6)) "$W/doorca.key" "$W/stop.cakey"
  jq --arg k "$W/stop.cakey" '.ca.key = $k | .container = "stop"' "$W/a.json" >"$W/stop.json"
  # The starter keeps the listener, lets the door serve one request, then shuts the listener.
  OUT=$(in_door /usr/bin/python3 -c '
import os, socket, subprocess, sys, time
door, uid, cfg, log, ca = sys.argv[1:6]
def onto(fd, target):  # fd becomes `target` (inherited); nothing else keeps it
    if fd != target:
        os.dup2(fd, target)
        os.close(fd)
    os.set_inheritable(target, True)
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(8)
onto(l.detach(), 3)
onto(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), 4)
s = socket.socket(fileno=os.dup(3))
p = subprocess.Popen(["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all",
                      "--bounding-set=-all", door, "door", "--config", cfg], pass_fds=(3, 4))
try:
    for _ in range(100):
        if "door serving" in open(log).read(): break
        time.sleep(0.05)
    r = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-x",
                        "http://127.0.0.1:%d" % s.getsockname()[1], "--cacert", ca, "https://api.example.com/ok/stop"],
                       capture_output=True, text=True)
    print("served", r.stdout)
    s.shutdown(socket.SHUT_RD)
    print("exit", p.wait(timeout=20))
finally:
    if p.poll() is None: p.kill()  # never left behind' "$EGRESS" $((DUID + 6)) "$W/stop.json" "$W/stop.log" "$W/doorca.pem")
  assert_line "$OUT" '^served 200$' "the door served while the listener was open"
  assert_line "$OUT" '^exit 0$' "and exits 0 once it is shut"
  assert_contains "$(tail -n 1 "$W/stop.log")" "door stops: the listener is closed"
}

tcase "https: an allowed host and path answer through the door (curl, urllib, IPv6)" case_https_allowed
tcase "dns: names resolved once through the C library's resolver, every address checked" case_dns
tcase "http: an allowed plain request answers; an unlisted address literal is refused" case_http_allowed_and_unlisted_literal
tcase "an unlisted host is refused before any byte reaches it" case_unlisted_host_refused_before_any_byte
tcase "fronting: an SNI or a Host other than the CONNECT host is refused" case_fronting_refused
tcase "names resolving to private or metadata addresses are refused (IPv4, IPv6)" case_private_and_metadata_addresses_refused
tcase "paths with .., ., //, encoded / and other methods are refused" case_paths_and_methods
tcase "a credential reaches the upstream and is scrubbed from what comes back" case_credential_injected_and_scrubbed
tcase "a placeholder sent anywhere its rule does not cover is refused" case_placeholder_elsewhere_refused
tcase "an encoded answer to a credentialed request is refused" case_encoded_answer_to_credentialed_request
tcase "budgets: requests, bytes and rate cut off" case_budgets
tcase "upstream certificates: untrusted and wrong-name refused" case_upstream_certificate_checked
tcase "upstream TLS sessions: resumed for the same name only" case_upstream_session_per_name
tcase "fail closed: h2, pipelining, big heads, smuggling, upgrades, uninspectable tunnels" case_fail_closed
tcase "one JSON log line per request" case_log_lines
tcase "the door runs unprivileged and confined, and refuses root and bad configs" case_door_unprivileged_and_confined
tcase "the door serves until its listener is shut, then exits 0" case_stops_when_listener_shut
finish
