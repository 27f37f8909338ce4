#!/usr/bin/env bash
# bench/egress.sh [BUILD_DIR]: what the egress door costs (DESIGN.md §8: ≤ 2 ms per HTTPS request on
# loopback, ≤ 4 MiB RSS per door), as ratios in one run. In a network namespace of its own, with the
# egress suite's test hosts (conformance/tools/egress-hosts.sh):
#   - one HTTPS request (a new connection and TLS handshake each) through the door of a running
#     container, from its network namespace, against the same request made directly: wall time per
#     request, and the door's CPU (utime+stime of its process) per request;
#   - the door's RSS (VmRSS and VmHWM) after those requests;
#   - N containers with doors at once (N = 1 and EGRESS_BENCH_DOORS, default 8; EGRESS_BENCH_DOOR_ROUNDS
#     rounds, default 5), beside N without: per door its VmRSS, the Pss and private pages of the doors and
#     supervisors ÷ N (smaps_rollup), and what the host pays per door: the growth of a memory cgroup of the
#     bench's own that the runtime runs from (the doors and supervisors stay in it), with less without;
#     and /proc/meminfo's growth, which all else on the machine moves too;
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
many_max=${EGRESS_BENCH_DOORS:-8}
many_rounds=${EGRESS_BENCH_DOOR_ROUNDS:-5}
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
  local i d
  for ((i = 0; i < many_max; i++)); do "$rt" --root "$state" delete --force "m$i" >/dev/null 2>&1; done
  for d in /sys/fs/cgroup/memory/sharness-egress-bench-$$/*/; do
    [ -e "$d/cgroup.procs" ] && wait_gone "$d" && rmdir "$d"
  done
  egress_hosts_down
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
status_kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }  # PID KEY: VmRSS, VmHWM
rollup() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/smaps_rollup"; }   # PID KEY: Pss, Anonymous...
rss=$(status_kib "$door" VmRSS)
hwm=$(status_kib "$door" VmHWM)
anon=$(rollup "$door" Anonymous)  # its own: heap, stacks, relocated data
sleep 1.5  # idle: the door gives its free heap back after 1 s without a connection (egress/door_serve.cpp)
idle_rss=$(status_kib "$door" VmRSS)
idle_anon=$(rollup "$door" Anonymous)
sup=$(jq -r .supervisorPid "$state/bench/egress/door.state")
sup_anon=$(rollup "$sup" Anonymous)  # the door's supervisor, per container too
"${R[@]}" delete --force bench >/dev/null 2>&1

# ---- N doors at once: what each further door costs the host. VmRSS counts the binary's pages whole
# in every door; Pss shares them out among the processes that map them, and the memory cgroup and
# /proc/meminfo count them once. The runtime runs from a memory cgroup of the bench's own, so the
# doors and supervisors it leaves there (and the kernel memory it spends) are charged to it; the
# containers' own processes go to their cgroups. The same with the policy without `egress` is the
# baseline. Every door serves one request, then all sit 1.5 s idle (past their heap trim).
memcg=/sys/fs/cgroup/memory/sharness-egress-bench-$$
mkdir -p "$memcg"
for ((i = 0; i < many_max; i++)); do  # one bundle each (a cgroup each), sharing one root
  mkdir "$tmp/m$i"
  jq ".root.path = \"$tmp/b/rootfs\" | .linux.cgroupsPath = \"/sharness-egress-bench-$$/m$i\"" \
    "$tmp/b/config.json" >"$tmp/m$i/config.json"
done
meminfo() { awk -v k="$1" '$1 == k":" {print $2}' /proc/meminfo; }
host_kib() {  # what no one can reclaim: anonymous, shmem, page tables, kernel stacks, unreclaimable slab
  awk '/^(AnonPages|Shmem|PageTables|KernelStack|SUnreclaim):/ {s += $2} END {print s}' /proc/meminfo
}
cg_kib() {  # the memory cgroup's charge: anonymous, file pages (memory.stat), kernel memory; KiB
  awk -v kmem="$(cat "$1/memory.kmem.usage_in_bytes")" '$1 == "total_rss" {a = $2} $1 == "total_cache" {f = $2}
    END {printf "%d %d %d", a / 1024, f / 1024, kmem / 1024}' "$1/memory.stat"
}
wait_gone() {  # CGROUP: until the processes in it (doors, supervisors of deleted containers) have ended
  local i
  for ((i = 0; i < 100; i++)); do [ -s "$1/cgroup.procs" ] || return 0; sleep 0.1; done
  echo "bench/egress.sh: processes left in $1: $(tr '\n' ' ' <"$1/cgroup.procs")" >&2
  return 1
}
many() {  # KIND K ROUND: K containers at once under policy KIND; appends a line to $tmp/many-KIND-K
  local kind=$1 k=$2 cg=$memcg/$1-$2-$3 i pid pids=() h0 a0 c0 h1 a1 c1 cgd
  mkdir "$cg"
  h0=$(host_kib); a0=$(meminfo MemAvailable); c0=$(cg_kib "$cg")
  (
    echo "$BASHPID" >"$cg/cgroup.procs"
    for ((i = 0; i < k; i++)); do
      "${R[@]}" --policy "$tmp/$kind.json" run --detach --bundle "$tmp/m$i" "m$i" </dev/null >/dev/null 2>&1
    done
  )
  for ((i = 0; i < k; i++)); do
    [ "$kind" = door ] || continue
    nsenter --net="/proc/$(jq -r .pid < <("${R[@]}" state "m$i"))/ns/net" \
      /usr/bin/python3 "$client" door 1 https://api.test/ "$state/m$i/egress/trust/ca-certificates.crt" 3128 >/dev/null
  done
  sleep 1.5
  h1=$(host_kib); a1=$(meminfo MemAvailable); c1=$(cg_kib "$cg")
  cgd=$(awk -v a="$c0" -v b="$c1" -v k="$k" 'BEGIN { split(a, x, " "); split(b, y, " ")
    printf "%d %d %d %d", (y[1] + y[2] + y[3] - x[1] - x[2] - x[3]) / k, (y[1] - x[1]) / k, (y[2] - x[2]) / k, (y[3] - x[3]) / k }')
  mapfile -t pids <"$cg/cgroup.procs"  # what stays on the host per container: doors, supervisors
  local rss=0 sup_rss=0 pss=0 priv=0 door_priv=0 dpid
  for ((i = 0; i < k; i++)); do
    [ "$kind" = door ] || continue
    dpid=$(jq -r .pid "$state/m$i/egress/door.state")
    rss=$((rss + $(status_kib "$dpid" VmRSS)))
    sup_rss=$((sup_rss + $(status_kib "$(jq -r .supervisorPid "$state/m$i/egress/door.state")" VmRSS)))
    door_priv=$((door_priv + $(rollup "$dpid" Private_Clean) + $(rollup "$dpid" Private_Dirty)))
  done
  for pid in "${pids[@]}"; do
    pss=$((pss + $(rollup "$pid" Pss)))
    priv=$((priv + $(rollup "$pid" Private_Clean) + $(rollup "$pid" Private_Dirty)))
  done
  echo "$((rss / k)) $((sup_rss / k)) $((pss / k)) $((priv / k)) $((door_priv / k)) $(((h1 - h0) / k)) $(((a0 - a1) / k)) ${cgd%% *} ${#pids[@]} ${cgd#* }" \
    >>"$tmp/many-$kind-$k"
  for ((i = 0; i < k; i++)); do "${R[@]}" delete --force "m$i" >/dev/null 2>&1; done
  wait_gone "$cg"
  rmdir "$cg"
}
for ((r = 0; r < many_rounds; r++)); do
  for k in 1 "$many_max"; do
    many door "$k" "$r"; many lo "$k" "$r"
  done
done

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
  echo
  echo "N doors at once ($many_rounds rounds of N containers with the door, each round beside N without it; medians"
  echo "of the rounds, MiB per container): every door serves one HTTPS request, then all sit 1.5 s idle. VmRSS counts"
  echo "the binary's pages whole in each door; Pss shares each page out among the processes mapping it (the doors and"
  echo "supervisors of the N; no other process maps this build's binary); the memory cgroup the runtime ran from holds"
  echo "the doors and supervisors (the containers' processes have cgroups of their own) and is charged for what they and"
  echo "the runtime leave: anonymous and file pages (\`memory.stat\` total_rss + total_cache: the state files too) and"
  echo "kernel memory (\`memory.kmem.usage_in_bytes\`: page tables, stacks, namespaces, slab), each page once, and a"
  echo "page of the binary not at all (it is charged to whoever first read it); the host's figure is /proc/meminfo's"
  echo "AnonPages + Shmem + PageTables + KernelStack + SUnreclaim after less before, which everything else on the"
  echo "machine moves too, and MemAvailable, which moves with the page cache. With one door, the binary's pages"
  echo "that only it touched count as its private pages; with N, those are shared."
  echo
  cm() {  # FILE COLUMN: the median of the rounds, in MiB
    awk -v m="$(median <(awk -v c="$2" '{print $c}' "$1"))" 'BEGIN { printf "%.2f", m / 1024 }'
  }
  cr() {  # FILE COLUMN: the range of the rounds, in MiB
    awk -v c="$2" '{print $c}' "$1" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END { printf "%.2f to %.2f", lo / 1024, hi / 1024 }'
  }
  dm() { awk -v a="$(cm "$1" "$3")" -v b="$(cm "$2" "$3")" 'BEGIN { printf "%.2f", a - b }'; }
  D1=$tmp/many-door-1; L1=$tmp/many-lo-1; DK=$tmp/many-door-$many_max; LK=$tmp/many-lo-$many_max
  echo "| per container | N = 1 | N = $many_max |"
  echo "| --- | --- | --- |"
  echo "| the door's VmRSS | $(cm "$D1" 1) | $(cm "$DK" 1) |"
  echo "| its supervisor's VmRSS | $(cm "$D1" 2) | $(cm "$DK" 2) |"
  echo "| Pss of the doors and supervisors, summed, ÷ N | $(cm "$D1" 3) | $(cm "$DK" 3) |"
  echo "| Private_Clean + Private_Dirty, door + supervisor (the door alone) | $(cm "$D1" 4) ($(cm "$D1" 5)) | $(cm "$DK" 4) ($(cm "$DK" 5)) |"
  echo "| memory cgroup growth ÷ N, with the door | $(cm "$D1" 8) | $(cm "$DK" 8) |"
  echo "| the same without it (\`egress\` left out; anonymous, files, kernel) | $(cm "$L1" 8) ($(cm "$L1" 10), $(cm "$L1" 11), $(cm "$L1" 12)) | $(cm "$LK" 8) ($(cm "$LK" 10), $(cm "$LK" 11), $(cm "$LK" 12)) |"
  echo "| **the door's part: what each further door costs the host** | **$(dm "$D1" "$L1" 8)** | **$(dm "$DK" "$LK" 8)** |"
  echo "| of which anonymous, files, kernel | $(dm "$D1" "$L1" 10), $(dm "$D1" "$L1" 11), $(dm "$D1" "$L1" 12) | $(dm "$DK" "$LK" 10), $(dm "$DK" "$LK" 11), $(dm "$DK" "$LK" 12) |"
  echo "| processes left on the host per container, with the door | $(awk '{print $9}' "$D1" | sort -u | tr '\n' ' ' | sed 's/ $//') | $(awk -v k="$many_max" '{print $9 / k}' "$DK" | sort -u | tr '\n' ' ' | sed 's/ $//') |"
  echo "| host: meminfo growth ÷ N, with − without (range with; range without) | $(dm "$D1" "$L1" 6) ($(cr "$D1" 6); $(cr "$L1" 6)) | $(dm "$DK" "$LK" 6) ($(cr "$DK" 6); $(cr "$LK" 6)) |"
  echo "| host: MemAvailable drop ÷ N, with − without | $(dm "$D1" "$L1" 7) | $(dm "$DK" "$LK" 7) |"
  echo
  echo "Targets (DESIGN.md §8): ≤ 2 ms added per HTTPS request, ≤ 4 MiB RSS per door. The second names VmRSS:"
  echo "$(awk -v r="$(cm "$DK" 1)" 'BEGIN { print (r <= 4 ? "met" : "not met") }') ($(cm "$DK" 1) MiB a door with $many_max running); what a further door costs the host is the"
  echo "memory cgroup's row, $(dm "$DK" "$LK" 8) MiB with $many_max at once. Other work on the machine widens every figure; the ratios"
  echo "in one run are what compare."
} >"$out"
cat "$out"
