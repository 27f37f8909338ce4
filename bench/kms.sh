#!/usr/bin/env bash
# bench/kms.sh [BUILD_DIR]: what the KMS's freezer gate costs. Starts one sharness-kms (its own
# temp PKI, vault, state dir and cgroup parent), sends N requests with sharness-kms-client, and
# reads the gate's own per-request figures from its log ("thaw X ms, freeze Y ms": the time
# from writing the freezer file to the kernel reporting the new state, CLOCK_MONOTONIC inside
# the gate), plus the client's wall time per request. Writes bench/results/kms.md.
# Not a test: nothing here asserts a time. KMS_BENCH_N (default 200) requests.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${1:-$repo/build}
n=${KMS_BENCH_N:-200}
[ "$(id -u)" = 0 ] || { echo "bench/kms.sh: must run as root" >&2; exit 1; }
for b in sharness-kms sharness-kms-client sharness-runtime; do
  [ -x "$build/$b" ] || { echo "bench/kms.sh: $build/$b missing (make build)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/sharness-kms-bench.XXXXXX)
cfg=$tmp/kms.json
cleanup() {
  "$build/sharness-kms" stop --config "$cfg" >/dev/null 2>&1 || true
  # The KMS removes its own cgroup; the parent named in its config is the bench's to remove.
  local d
  for d in /sys/fs/cgroup/sharness-kms-bench-$$ /sys/fs/cgroup/*/sharness-kms-bench-$$; do
    [ -d "$d" ] && rmdir "$d" 2>/dev/null || true
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

"$repo/conformance/tools/kms-certs.sh" "$tmp/pki" >/dev/null
"$build/sharness-runtime" kms seal --kek "$tmp/kek" --out "$tmp/vault" db >/dev/null 2>&1
mkdir -p "$tmp/sock"
cat >"$cfg" <<JSON
{"name": "bench", "vault": "$tmp/vault", "kek": "$tmp/kek", "socket": "$tmp/sock/kms.sock",
 "tls": {"ca": "$tmp/pki/ca.pem", "cert": "$tmp/pki/kms.pem", "key": "$tmp/pki/kms.key"},
 "callerRole": "app", "callerId": "app", "log": "$tmp/kms.log", "stateRoot": "$tmp/state", "cgroupParent": "/sharness-kms-bench-$$",
 "allow": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "maxTtl": 600}, "workloadMayAsk": true}
JSON
"$build/sharness-kms" start --config "$cfg"

wall=$tmp/wall
for ((i = 0; i < n; i++)); do
  t0=$EPOCHREALTIME
  "$build/sharness-kms-client" --socket "$tmp/sock/kms.sock" --ca "$tmp/pki/ca.pem" --cert "$tmp/pki/app.pem" \
    --key "$tmp/pki/app.key" --vault db --host db.internal --op read >/dev/null
  t1=$EPOCHREALTIME
  echo "$(( (10#${t1/./} - 10#${t0/./}) ))" >>"$wall"   # microseconds
done
grep -o 'thaw [0-9.]* ms, freeze [0-9.]* ms' "$tmp/kms.log" | awk '{print $2}' >"$tmp/thaw"
grep -o 'thaw [0-9.]* ms, freeze [0-9.]* ms' "$tmp/kms.log" | awk '{print $5}' >"$tmp/freeze"
awk '{printf "%.3f\n", $1 / 1000}' "$wall" >"$tmp/wall.ms"

# stats FILE: median p10 p90 min max (ms)
stats() {
  sort -g "$1" | awk '{v[NR] = $1} END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    p10 = v[int(NR * 0.1) + 1]; p90 = v[int(NR * 0.9)];
    printf "%.3f | %.3f | %.3f | %.3f | %.3f", m, p10, p90, v[1], v[NR] }'
}
mode="cgroup v1 freezer (freezer.state)"
[ -e /sys/fs/cgroup/freezer ] || mode="cgroup v2 (cgroup.freeze)"
out=$repo/bench/results/kms.md
mkdir -p "$(dirname "$out")"
{
  echo "# KMS sidecar: freeze and thaw per request"
  echo
  echo "Written by \`bench/kms.sh\` on $(date -u +%Y-%m-%dT%H:%MZ): $n requests from \`sharness-kms-client\` to one"
  echo "\`sharness-kms\`, one TLS 1.3 connection each. Freezer: $mode. Kernel $(uname -r), $(nproc) CPUs."
  echo "Thaw and freeze are the gate's own measurements (write of the freezer file until the kernel reports"
  echo "the new state); the client column is the whole request as the caller sees it (process start,"
  echo "X25519 key, mTLS handshake, thaw, derive, seal, freeze, open)."
  echo
  echo "| ms | median | p10 | p90 | min | max |"
  echo "| --- | --- | --- | --- | --- | --- |"
  echo "| thaw | $(stats "$tmp/thaw") |"
  echo "| freeze | $(stats "$tmp/freeze") |"
  echo "| client request, end to end | $(stats "$tmp/wall.ms") |"
  echo
  echo "Reference from the seeds: freeze about 0.28 ms, thaw about 0.13 ms (DESIGN.md §2: 0.3 / 0.1 ms)."
  echo "Other work on the machine (parallel builds) widens the tails; the medians are the figures."
} >"$out"
cat "$out"
