#!/usr/bin/env bash
# egress-certs.sh DIR: the test hosts' PKI for conformance/suites/egress.sh, made with the openssl CLI:
#   ca.pem              the upstream CA the door is told to trust (runtime config egress.upstreamTrust)
#   api.{pem,key}       api.test, plain.test, budget.test (the allowed hosts at 203.0.113.10)
#   other.{pem,key}     other.test (203.0.113.11: listed nowhere)
#   right.{pem,key}     right.test, served at 203.0.113.12, which hosts also name wrongname.test
#   private.{pem,key}   private.test (10.1.2.3)
#   untrusted.{pem,key} untrusted.test, from rogue-ca.pem, which the door is not told to trust
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/test-pki.bash"  # ca, issue
d=$1
mkdir -p "$d"
cd "$d"
leaf() { # NAME CA DNS...
  local name=$1 issuer=$2 san="" n; shift 2
  for n in "$@"; do san+="${san:+,}DNS:$n"; done
  issue "$name" "$issuer" "subjectAltName=$san
basicConstraints=CA:FALSE
keyUsage=digitalSignature
extendedKeyUsage=serverAuth" -days 1
}
ca ca
ca rogue-ca
leaf api ca api.test plain.test budget.test
leaf other ca other.test
leaf right ca right.test
leaf private ca private.test
leaf untrusted rogue-ca untrusted.test
chmod 0644 ./*.pem ./*.key  # the door reads ca.pem as its own uid; the servers are root
