#!/usr/bin/env bash
# egress-certs.sh DIR: the test hosts' PKI for conformance/suites/egress.sh, made with the openssl CLI:
#   ca.pem              the upstream CA the door is told to trust (runtime config egress.upstreamTrust)
#   api.{pem,key}       api.test, plain.test, budget.test (the allowed hosts at 203.0.113.10)
#   other.{pem,key}     other.test (203.0.113.11: listed nowhere)
#   right.{pem,key}     right.test, served at 203.0.113.12, which hosts also name wrongname.test
#   private.{pem,key}   private.test (10.1.2.3)
#   untrusted.{pem,key} untrusted.test, from rogue-ca.pem, which the door is not told to trust
set -euo pipefail
d=$1
mkdir -p "$d"
cd "$d"
ca() { # NAME
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.pem" \
    -days 2 -subj "/CN=$1" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
}
leaf() { # NAME CA DNS...
  local name=$1 issuer=$2 san="" n; shift 2
  for n in "$@"; do san+="${san:+,}DNS:$n"; done
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$name.key" -out "$name.csr" \
    -subj "/CN=$1" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n' \
    "$san" >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -CAcreateserial -out "$name.pem" \
    -extfile "$name.ext" -days 1 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}
ca ca
ca rogue-ca
leaf api ca api.test plain.test budget.test
leaf other ca other.test
leaf right ca right.test
leaf private ca private.test
leaf untrusted rogue-ca untrusted.test
chmod 0644 ./*.pem ./*.key  # the door reads ca.pem as its own uid; the servers are root
