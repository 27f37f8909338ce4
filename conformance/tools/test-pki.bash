# shellcheck shell=bash
# test-pki.bash: what the suites' test PKIs (kms-certs.sh, egress-certs.sh) share, made with the
# openssl CLI in the current directory, P-256 keys throughout.
#   ca NAME                          a self-signed CA: NAME.pem, NAME.key (2 days)
#   issue NAME ISSUER EXT [ARGS...]  a leaf NAME.{pem,key} (CN=NAME) signed by ISSUER.{pem,key},
#                                    with EXT the lines of its extension file; ARGS to `x509 -req`
ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.pem" \
    -days 2 -subj "/CN=$1" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
}
issue() {
  local name=$1 issuer=$2 ext=$3; shift 3
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$name.key" -out "$name.csr" \
    -subj "/CN=$name" 2>/dev/null
  printf '%s\n' "$ext" >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -CAcreateserial -out "$name.pem" \
    -extfile "$name.ext" "$@" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}
