#!/usr/bin/env bash
# kms-certs.sh DIR: a test PKI made with the openssl CLI, in the shape the edges' CA issues
# (URI SAN spiffe://sharness.local/role/<role>/<id>):
#   ca.pem            the CA every good certificate chains to
#   kms.{pem,key}     role kms (the KMS's own)
#   app.{pem,key}     role app, id app (the caller the KMS accepts)
#   app2.{pem,key}    role app, id app2 (another container of the same role)
#   db.{pem,key}      role db (right CA, wrong role)
#   rogue.{pem,key}   role app, but from another CA (rogue-ca.pem)
#   expired.{pem,key} role app, right CA, expired
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/test-pki.bash"  # ca, issue
d=$1
mkdir -p "$d"
cd "$d"
leaf() { # NAME ROLE CA [X509_ARGS...]
  local name=$1 role=$2 issuer=$3; shift 3
  issue "$name" "$issuer" "subjectAltName=URI:spiffe://sharness.local/role/$role/$name
basicConstraints=CA:FALSE
keyUsage=digitalSignature
extendedKeyUsage=serverAuth,clientAuth" "$@"
}
ca ca
ca rogue-ca
leaf kms kms ca -days 1
leaf app app ca -days 1
leaf app2 app ca -days 1
leaf db db ca -days 1
leaf rogue app rogue-ca -days 1
# Expired: valid from 3 days ago to 2 days ago (x509 -not_before/-not_after need OpenSSL 3.4;
# on 3.0, `openssl ca` with -startdate/-enddate does it).
mkdir -p expca/newcerts && : >expca/index.txt && echo 01 >expca/serial
cat >expca/ca.cnf <<CNF
[ca]
default_ca = d
[d]
dir = $PWD/expca
database = \$dir/index.txt
new_certs_dir = \$dir/newcerts
serial = \$dir/serial
default_md = sha256
policy = p
copy_extensions = none
[p]
commonName = supplied
[x]
subjectAltName = URI:spiffe://sharness.local/role/app/expired
extendedKeyUsage = clientAuth
CNF
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout expired.key -out expired.csr -subj /CN=expired 2>/dev/null
openssl ca -batch -config expca/ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem -extensions x \
  -startdate "$(date -u -d '-3 days' +%Y%m%d%H%M%SZ)" -enddate "$(date -u -d '-2 days' +%Y%m%d%H%M%SZ)" -notext 2>/dev/null
rm -rf expired.csr expca
chmod 0644 ./*.pem ./*.key
