# shellcheck shell=bash
# egress-hosts.sh: the test hosts of the egress door's suite and bench, sourced by
# conformance/suites/egress.sh and bench/egress.sh. Call from a network namespace of the caller's
# own (never the host's): egress_hosts_up joins it to a new one, $EGRESS_UPNS, by a veth pair, and
# runs conformance/tools/egress_test_hosts.py there on these addresses, with names in DIR/hosts:
#   203.0.113.10  api.test plain.test budget.test   HTTPS 443, HTTP 80
#   203.0.113.11  other.test                        HTTPS 443, HTTP 80 (listed in no rule)
#   203.0.113.12  right.test wrongname.test         HTTPS 443, a certificate for right.test only
#   203.0.113.13  untrusted.test                    HTTPS 443, from a CA the door is not told to trust
#   10.1.2.3      private.test                      HTTPS 443
#   169.254.169.254 metadata.test                   HTTP 80
# DIR gets pki/ (conformance/tools/egress-certs.sh), hosts, creds/github (the credential SECRET),
# upstream.log (every connection and request), both-cas.pem (the test CA and the rogue one).
# egress_hosts_down stops the server by pid and removes the namespace (the veth pair goes with it).

# egress_hosts_up SOURCE_DIR DIR SECRET [OTHER_SECRET...] (/check takes any of them; creds/github
# holds SECRET)
egress_hosts_up() {
  local src=$1 w=$2 secret=$3 veth=shegr$$ a p s more=()
  shift 3
  for s in "$@"; do more+=(--secret "$s"); done
  EGRESS_UPNS=sharness-egress-$$
  EGRESS_SERVER_PID=""
  mkdir -p "$w/creds"
  "$src/conformance/tools/egress-certs.sh" "$w/pki" >/dev/null || return 1
  printf '%s' "$secret" >"$w/creds/github"
  chmod 0644 "$w/creds/github"  # the door reads it as its own uid (the KMS is the production source)
  printf '%s\n' "203.0.113.10 api.test plain.test budget.test" "203.0.113.11 other.test" \
    "203.0.113.12 right.test wrongname.test" "203.0.113.13 untrusted.test" "10.1.2.3 private.test" \
    "169.254.169.254 metadata.test" >"$w/hosts"
  chmod 0644 "$w/hosts"
  cat "$w/pki/ca.pem" "$w/pki/rogue-ca.pem" >"$w/both-cas.pem"
  ip link set lo up &&
    ip netns add "$EGRESS_UPNS" &&
    ip link add "$veth" type veth peer name "${veth}u" &&
    ip link set "${veth}u" netns "$EGRESS_UPNS" &&
    ip addr add 203.0.113.1/24 dev "$veth" &&
    ip link set "$veth" up &&
    ip route add 10.1.2.3/32 dev "$veth" &&
    ip route add 169.254.169.254/32 dev "$veth" &&
    ip -n "$EGRESS_UPNS" link set lo up || return 1
  for a in 203.0.113.10/24 203.0.113.11/24 203.0.113.12/24 203.0.113.13/24 10.1.2.3/32 169.254.169.254/32; do
    ip -n "$EGRESS_UPNS" addr add "$a" dev "${veth}u" || return 1
  done
  ip -n "$EGRESS_UPNS" link set "${veth}u" up && ip -n "$EGRESS_UPNS" route add default dev "${veth}u" || return 1
  p=$w/pki
  ip netns exec "$EGRESS_UPNS" /usr/bin/python3 "$src/conformance/tools/egress_test_hosts.py" \
    --log "$w/upstream.log" --ready "$w/upstream.ready" --secret "$secret" "${more[@]}" \
    --listen 203.0.113.10 443 "$p/api.pem" "$p/api.key" --listen 203.0.113.10 80 \
    --listen 203.0.113.11 443 "$p/other.pem" "$p/other.key" --listen 203.0.113.11 80 \
    --listen 203.0.113.12 443 "$p/right.pem" "$p/right.key" \
    --listen 203.0.113.13 443 "$p/untrusted.pem" "$p/untrusted.key" \
    --listen 10.1.2.3 443 "$p/private.pem" "$p/private.key" --listen 169.254.169.254 80 \
    >"$w/upstream.out" 2>&1 &
  EGRESS_SERVER_PID=$!
  for _ in $(seq 600); do
    [ -s "$w/upstream.ready" ] && return 0
    kill -0 "$EGRESS_SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "the test hosts did not start: $(cat "$w/upstream.out")" >&2
  return 1
}

# Never fails (a caller under set -e runs it from its EXIT trap: a failure would stop its cleanup).
egress_hosts_down() {
  if [ -n "${EGRESS_SERVER_PID:-}" ]; then
    kill "$EGRESS_SERVER_PID" 2>/dev/null || true
    wait "$EGRESS_SERVER_PID" 2>/dev/null || true
  fi
  if [ -n "${EGRESS_UPNS:-}" ]; then ip netns del "$EGRESS_UPNS" 2>/dev/null || true; fi
  return 0
}
