#!/usr/bin/env bash
# bench/egress.sh [BUILD_DIR]: what the egress door costs (DESIGN.md §8: ≤ 2 ms per HTTPS request on
# loopback, ≤ 4 MiB RSS per door), as ratios in one run. In a network namespace of its own, with the
# egress suite's test hosts (conformance/tools/egress-hosts.sh):
#   - one HTTPS request (a new connection and TLS handshake each) through the door of a running
#     container, from its network namespace, against the same request made directly: wall time per
#     request, and the door's CPU (utime+stime of its process) per request;
#   - the door's RSS (VmRSS and VmHWM) after those requests;
#   - `run` of a busybox /bin/true under a policy with an egress section against the same policy
#     without it (lo only), interleaved: wall and CPU of the runtime and everything it started.
# Writes bench/results/egress.md. Not a test: nothing here asserts a time. EGRESS_BENCH_N (default
# 200) requests, EGRESS_BENCH_RUNS (default 20) runs of each kind.
set -euo pipefail
if [ "$(id -u)" = 0 ] && [ -z "${SHARNESS_EGRESS_NETNS:-}" ]; then
  SHARNESS_EGRESS_NETNS=1 exec unshare --net bash "$0" "$@"
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${1:-$repo/build}
n=${EGRESS_BENCH_N:-200}
runs=${EGRESS_BENCH_RUNS:-20}
[ "$(id -u)" = 0 ] || { echo "bench/egress.sh: must run as root" >&2; exit 1; }
for b in sharness-runtime sharness-egress; do
  [ -x "$build/$b" ] || { echo "bench/egress.sh: $build/$b missing (make build)" >&2; exit 1; }
done
rt=$build/sharness-runtime
hz=$(getconf CLK_TCK)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# The door's mount point on the host's /run (egress/up.cpp): removed at the end if this made it.
[ -e /run/sharness-egress ] && run_egress_was=1 || run_egress_was=0
tmp=$(mktemp -d /tmp/sharness-egress-bench.XXXXXX)
chmod 0755 "$tmp"
state=$tmp/state
. "$repo/conformance/tools/egress-hosts.sh"
cleanup() {
  set +e
  "$rt" --root "$state" delete --force bench >/dev/null 2>&1
  egress_hosts_down
  local d
  for d in /sys/fs/cgroup/*/sharness-egress-bench-$$ /sys/fs/cgroup/sharness-egress-bench-$$; do
    [ -d "$d" ] && rmdir "$d"/* "$d" 2>/dev/null || true
  done
  rm -rf --one-file-system "$tmp"
  [ "$run_egress_was" = 1 ] || rmdir /run/sharness-egress 2>/dev/null || true
  return 0
}
trap cleanup EXIT
egress_hosts_up "$repo" "$tmp/hosts" "bench-$$"

echo "{\"egress\": {\"upstreamTrust\": \"$tmp/hosts/pki/ca.pem\", \"hosts\": \"$tmp/hosts/hosts\"}}" >"$tmp/rc.json"
policy() {  # NAME [EGRESS]
  echo "{\"id\": \"$1\", \"version\": 1, \"network\": \"loopback\",
         \"identity\": {\"uid\": \"ephemeral\", \"capabilities\": [], \"noNewPrivileges\": true}${2:+, \"egress\": $2}}" \
    >"$tmp/$1.json"
}
policy door '{"rules": [{"host": "api.test"}]}'
policy lo
"$repo/scripts/make-bundle.sh" "$tmp/b" sh -c 'while [ ! -e /stop ]; do sleep 1; done' >/dev/null
"$repo/scripts/make-bundle.sh" "$tmp/t" true >/dev/null
for b in b t; do
  jq ".linux.cgroupsPath = \"/sharness-egress-bench-$$/$b\"" "$tmp/$b/config.json" >"$tmp/$b/c.new" &&
    mv "$tmp/$b/c.new" "$tmp/$b/config.json"
done
R=("$rt" --root "$state" --config "$tmp/rc.json")

# ---- requests: through the door of a running container, and direct
"${R[@]}" --policy "$tmp/door.json" run --detach --bundle "$tmp/b" bench </dev/null >/dev/null 2>&1
init=$(jq -r .pid < <("${R[@]}" state bench))
door=$(jq -r .pid "$state/bench/egress/door.state")
doorca=$state/bench/egress/trust/ca-certificates.crt
client=$here/egress_client.py
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime, clock ticks
start_cpu=$(awk -v t="$(cpu_of "$door")" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1000 / hz }')  # its start, before any request
nsenter --net=/proc/$init/ns/net /usr/bin/python3 "$client" door 10 https://api.test/ "$doorca" 3128 >/dev/null  # warm
/usr/bin/python3 "$client" direct 10 https://api.test/ "$tmp/hosts/pki/ca.pem" 203.0.113.10 >/dev/null
dc0=$(cpu_of "$door")
nsenter --net=/proc/$init/ns/net /usr/bin/python3 "$client" door "$n" https://api.test/ "$doorca" 3128 >"$tmp/door.us"
dc1=$(cpu_of "$door")
/usr/bin/python3 "$client" direct "$n" https://api.test/ "$tmp/hosts/pki/ca.pem" 203.0.113.10 >"$tmp/direct.us"
rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$door/status")
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$door/status")
anon=$(awk '/^Anonymous:/ {print $2}' "/proc/$door/smaps_rollup")  # its own: heap, stacks, relocated data
sleep 1.5  # idle: the door gives its free heap back after 1 s without a connection (egress/door_serve.cpp)
idle_rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$door/status")
idle_anon=$(awk '/^Anonymous:/ {print $2}' "/proc/$door/smaps_rollup")
sup=$(jq -r .supervisorPid "$state/bench/egress/door.state")
sup_anon=$(awk '/^Anonymous:/ {print $2}' "/proc/$sup/smaps_rollup")  # the door's supervisor, per container too
"${R[@]}" delete --force bench >/dev/null 2>&1

# ---- container start: run /bin/true with and without the door, interleaved
cpu_ms() {  # the CPU (user+sys) of this shell's waited-for children, in ms: cutime + cstime of /proc/$$/stat
  awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%.3f", ($14 + $15) * 1000 / hz }' "/proc/$$/stat"
}
for ((i = 0; i < runs; i++)); do
  for kind in door lo; do
    c0=$(cpu_ms); t0=$EPOCHREALTIME
    "${R[@]}" --policy "$tmp/$kind.json" run --bundle "$tmp/t" "start-$kind-$i" </dev/null >/dev/null 2>&1
    t1=$EPOCHREALTIME; c1=$(cpu_ms)
    echo "$(( (10#${t1/./} - 10#${t0/./}) ))" >>"$tmp/start-$kind.us"
    awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.3f\n", b - a }' >>"$tmp/start-$kind.cpu"
  done
done

median() { sort -g "$1" | awk '{v[NR] = $1} END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk '{printf "%.3f\n", $1 / 1000}' "$1" >"$1.ms"; median "$1.ms"; }
door_ms=$(ms "$tmp/door.us"); direct_ms=$(ms "$tmp/direct.us")
door_cpu=$(awk -v a="$dc0" -v b="$dc1" -v n="$n" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) * 1000 / hz / n }')
sd_ms=$(ms "$tmp/start-door.us"); sl_ms=$(ms "$tmp/start-lo.us")
sd_cpu=$(median "$tmp/start-door.cpu"); sl_cpu=$(median "$tmp/start-lo.cpu")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
out=$repo/bench/results/egress.md
{
  echo "# The egress door: what it costs"
  echo
  echo "Written by \`bench/egress.sh\` on $(date -u +%Y-%m-%dT%H:%MZ), kernel $(uname -r), $(nproc) CPUs, in one run;"
  echo "load average (1, 5, 15 min) $load0 at its start, $(cut -d' ' -f1-3 /proc/loadavg) at its end."
  echo "Requests: $n HTTPS GETs of 1 small page, each a new connection and TLS 1.3 handshake without resumption"
  echo "(\`bench/egress_client.py\`, Python's ssl), through the door of a running container (CONNECT, TLS to the door,"
  echo "the door's TLS to the host) or directly to the host, at 203.0.113.10 in a network namespace over a veth pair."
  echo "Start: $runs \`run\`s of busybox \`true\` each way, interleaved, under the same policy with and without \`egress\`;"
  echo "their CPU is the runtime's and what it waits for (hooks, init, \`sharness-egress ca\`), not the door's own (its"
  echo "supervisor is detached): that is the row \"the door's CPU to start\"."
  echo
  echo "| | through the door | direct / without | difference | ratio |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| HTTPS request, wall ms (median) | $door_ms | $direct_ms | $(awk -v a="$door_ms" -v b="$direct_ms" 'BEGIN{printf "%.3f", a-b}') | $(ratio "$door_ms" "$direct_ms") |"
  echo "| the door's CPU per request, ms | $door_cpu | | | |"
  echo "| the door's CPU to start (config, contexts, sandbox), ms (in 10 ms clock ticks) | $start_cpu | | | |"
  echo "| container start (\`run true\`), wall ms (median) | $sd_ms | $sl_ms | $(awk -v a="$sd_ms" -v b="$sl_ms" 'BEGIN{printf "%.3f", a-b}') | $(ratio "$sd_ms" "$sl_ms") |"
  echo "| container start, CPU ms (median, in 10 ms clock ticks) | $sd_cpu | $sl_cpu | $(awk -v a="$sd_cpu" -v b="$sl_cpu" 'BEGIN{printf "%.3f", a-b}') | $(ratio "$sd_cpu" "$sl_cpu") |"
  echo
  mib() { echo "$(($1 / 1024)).$(( ($1 % 1024) * 10 / 1024 ))"; }
  echo "The door's memory after the requests: VmRSS $(mib "$rss") MiB, VmHWM $(mib "$hwm") MiB; of the RSS, $(mib "$anon") MiB"
  echo "anonymous (heap, stacks, relocated data: the door's alone), the rest its binary's pages (page cache, shared by"
  echo "every door of the host). After 1 s idle: VmRSS $(mib "$idle_rss") MiB, anonymous $(mib "$idle_anon") MiB. The door's"
  echo "supervisor (one per container as well): anonymous $(mib "$sup_anon") MiB."
  echo "Targets (DESIGN.md §8): ≤ 2 ms added per HTTPS request, ≤ 4 MiB RSS per door. Other work on the"
  echo "machine widens every figure; the ratios in one run are what compare."
} >"$out"
cat "$out"
