#!/usr/bin/env bash
# bench/profile/profile.sh OURS [OUT_DIR]: collect the evidence behind bench/results/profile.md.
#
# Runs as root in a private mount namespace set up as bench/run.sh does (cgroup2 hidden from all
# runtimes, --root dirs on a private tmpfs), against OURS and crun on the same busybox bundle:
#   ldd.txt                 shared libraries, and LD_DEBUG=statistics (relocations, ld.so cycles)
#   strace-c-<rt>-<op>.txt  strace -c of run (-f: with init) and create/start/delete/state/list
#                           (the runtime process only: -f would wait for the created init)
#   strace-T-ours-run.txt   strace -f -tt -T of one `run` (the timeline; slowest calls at the end)
#   perf-<rt>.txt           perf record -e cpu-clock -g over 100 `run`s: by process and DSO, top symbols
#   perf-ours-harsh.txt     perf record --call-graph dwarf of 30 runs under policies/harsh.json and
#                           30 plain ones: inclusive share per function
#   callgrind.txt           valgrind --tool=callgrind instruction counts (--version, create up to
#                           clone3 — valgrind 3.19 has no clone3 —, state, list, delete)
#   rss-ours.txt            the runtime's resident memory by mapping while `run` waits
#   scale.txt               create: syscalls and time with 0 and N (default 500) containers of ours
# Takes 3-5 minutes. Nothing is left behind: containers are deleted, cgroups removed, the
# namespace and its tmpfs mounts end with the script. OUT_DIR defaults to bench/results/profile-raw.
set -eu  # no pipefail: the report pipelines end in head(1), which closes them early
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
O=$(realpath "${1:?usage: $0 OURS [OUT_DIR]}")
OUT=$(realpath -m "${2:-$repo/bench/results/profile-raw}")
N=${PROFILE_SCALE_N:-500}
RUNS=${PROFILE_RUNS:-100}

# What it needs, installed only if missing (Debian packages): libc6-dbg gives perf the names of
# ld.so's internal functions (do_lookup_x, _dl_relocate_object).
if [ -z "${SHARNESS_PROFILE_IN_NS:-}" ]; then
  missing=()
  for pc in strace:strace valgrind:valgrind linux-perf:perf; do
    command -v "${pc#*:}" >/dev/null 2>&1 || missing+=("${pc%%:*}")
  done
  dpkg -s libc6-dbg >/dev/null 2>&1 || missing+=(libc6-dbg)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "profile: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
      echo "profile: could not install ${missing[*]}; going on without" >&2
  fi
fi
if [ -z "${SHARNESS_PROFILE_IN_NS:-}" ]; then
  SHARNESS_PROFILE_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
# A child subreaper, as conmon or the containerd shim: created inits are re-parented to us.
if [ -z "${SHARNESS_PROFILE_SUBREAPER:-}" ]; then
  SHARNESS_PROFILE_SUBREAPER=1 exec perl -e 'syscall(157, 36, 1, 0, 0, 0) == 0 or die "prctl: $!\n";
    exec { $ARGV[0] } @ARGV or die "exec: $!\n"' bash "$0" "$@"
fi

u=/sys/fs/cgroup/unified
if [ "$(stat -f -c %T $u 2>/dev/null)" = cgroup2fs ]; then
  umount $u && mount -t tmpfs -o size=256m,mode=755 sharness-profile-hide-unified $u
fi
mkdir -p "$OUT"
T=$(mktemp -d /tmp/sharness-profile.XXXXXX)
chmod 755 "$T"
mkdir -p "$T/state"
mount -t tmpfs -o size=256m,mode=700 sharness-profile-state "$T/state"
CG=sharness-bench-profile-$$
"$repo/scripts/make-bundle.sh" "$T/base" /bin/true >/dev/null

root_of() { echo "$T/state/$1"; }
rt_bin() { case $1 in ours) echo "$O" ;; crun) echo /usr/bin/crun ;; runc) echo /usr/sbin/runc ;; esac; }
R() { local rt=$1; shift; "$(rt_bin "$rt")" --root "$(root_of "$rt")" "$@"; }

# bundles ID... (args from $ARGS): one config.json per id, all sharing the rootfs
bundles() {
  python3 - "$T" "$CG" "${ARGS:-/bin/true}" "$@" <<'PY'
import json, os, sys
t, cg, args, ids = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
c = json.load(open(f"{t}/base/config.json"))
c["process"]["args"] = args
c["root"]["path"] = f"{t}/base/rootfs"
for i in ids:
    c["linux"]["cgroupsPath"] = f"/{cg}/{i}"
    os.makedirs(f"{t}/b/{i}", exist_ok=True)
    json.dump(c, open(f"{t}/b/{i}/config.json", "w"))
PY
}

cleanup() {
  set +e
  for rt in ours crun runc; do
    [ -d "$(root_of $rt)" ] || continue
    for id in $(R $rt list -q 2>/dev/null); do R $rt delete --force "$id" >/dev/null 2>&1; done
  done
  for d in /sys/fs/cgroup/*/"$CG"; do
    [[ $d == $u/* ]] && continue
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  umount "$T/state" 2>/dev/null
  rm -rf --one-file-system "$T"
}
trap cleanup EXIT

echo "# profile of $O, $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/README.txt"

# --- shared libraries and the dynamic loader ------------------------------------------------
{
  for b in "$O" /usr/bin/crun /usr/sbin/runc; do
    echo "== $b"
    ldd "$b"
    echo "-- LD_DEBUG=statistics of '$b --version', 11 runs (median):"
    for i in $(seq 11); do
      LD_DEBUG=statistics "$b" --version 2>&1 >/dev/null |
        awk '/total startup time in dynamic loader/ {t=$(NF-1)} /time needed for relocation/ {r=$(NF-2)}
             /final number of relocations:/ {n=$NF} END {print t, r, n}'
    done | sort -n | sed -n 6p | awk '{printf "   ld.so total %s cycles, relocation %s cycles, %s relocations\n", $1, $2, $3}'
    echo "-- symbol bindings by library (LD_DEBUG=bindings):"
    LD_DEBUG=bindings "$b" --version 2>&1 >/dev/null | grep -o "binding file [^ ]*" | sort | uniq -c | sort -rn | head -6
  done
} >"$OUT/ldd.txt" 2>&1

# --- strace -c per operation --------------------------------------------------------------------
for rt in ours crun; do
  mkdir -p "$(root_of $rt)"
  bundles "$rt-s1" "$rt-s2"
  strace -c -f -o "$OUT/strace-c-$rt-run.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" run --bundle "$T/b/$rt-s1" "$rt-s1" >/dev/null
  # create leaves init running (blocked on start): strace -f would wait for it, so these follow
  # the runtime process only.
  strace -c -o "$OUT/strace-c-$rt-create.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" create --bundle "$T/b/$rt-s2" "$rt-s2" </dev/null >/dev/null
  strace -c -o "$OUT/strace-c-$rt-state.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" state "$rt-s2" >/dev/null
  strace -c -o "$OUT/strace-c-$rt-list.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" list >/dev/null
  strace -c -o "$OUT/strace-c-$rt-start.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" start "$rt-s2" >/dev/null
  for i in $(seq 50); do R $rt state "$rt-s2" 2>/dev/null | grep -q '"stopped"' && break; sleep 0.05; done
  strace -c -o "$OUT/strace-c-$rt-delete.txt" "$(rt_bin $rt)" --root "$(root_of $rt)" delete "$rt-s2" >/dev/null
done
bundles ours-T
strace -f -tt -T -s 80 -o "$T/strace-T" "$O" --root "$(root_of ours)" run --bundle "$T/b/ours-T" ours-T >/dev/null
{
  cat "$T/strace-T"
  echo
  echo "== the 25 slowest system calls (wall, -T):"
  python3 - "$T/strace-T" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.search(r"<([0-9.]+)>$", line.rstrip())
    if m and "wait4" not in line and "recvfrom" not in line and "poll(" not in line:
        rows.append((float(m.group(1)), line.rstrip()[:160]))
for t, l in sorted(rows, reverse=True)[:25]:
    print(f"{t * 1e3:8.3f} ms  {l}")
PY
} >"$OUT/strace-T-ours-run.txt"

# --- perf record over many runs ---------------------------------------------------------------
if perf stat -e cpu-clock true >/dev/null 2>&1; then
  for rt in ours crun; do
    ids=$(seq -f "$rt-p%g" "$RUNS")
    # shellcheck disable=SC2086
    bundles $ids
    perf record -q -c 20000 -e cpu-clock -g -o "$T/perf-$rt.data" -- bash -c "
      for i in \$(seq $RUNS); do $(rt_bin $rt) --root $(root_of $rt) run --bundle $T/b/$rt-p\$i $rt-p\$i; done" >/dev/null 2>&1
    {
      echo "== $RUNS runs of \`$rt run\` of /bin/true: samples by process and DSO (cpu-clock, self)"
      perf report -i "$T/perf-$rt.data" --stdio -n --no-children --sort comm,dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
      echo
      echo "== top symbols (self)"
      perf report -i "$T/perf-$rt.data" --stdio -n --no-children --sort comm,dso,sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -50
      echo
      echo "== kernel entry points (children, inclusive)"
      perf report -i "$T/perf-$rt.data" --stdio --children --sort sym -g none 2>/dev/null |
        grep -E '__(x64|do)_sys_|exc_page_fault|do_exit|ret_from_fork' | head -40
    } >"$OUT/perf-$rt.txt"
  done
  echo "perf stat -e instructions: $(perf stat -e instructions true 2>&1 | grep -o '<not supported>' || echo supported)" >>"$OUT/README.txt"
fi

# --- run under the harsh policy: where its extra cost goes (DWARF call graphs, inclusive) ------
H=$repo/policies/harsh.json
if perf stat -e cpu-clock true >/dev/null 2>&1 && "$O" --help 2>&1 | grep -q -- --policy; then
  # shellcheck disable=SC2046
  bundles $(seq -f "ours-h%g" 30) $(seq -f "ours-q%g" 30) ours-hs
  strace -c -f -o "$OUT/strace-c-ours-run-harsh.txt" "$O" --policy "$H" --root "$(root_of ours)" run --bundle "$T/b/ours-hs" ours-hs >/dev/null || true
  for kind in h q; do
    pol=""; [ $kind = h ] && pol="--policy $H"
    perf record -q -c 20000 -e cpu-clock --call-graph dwarf,16384 -o "$T/perf-$kind.data" -- bash -c "
      for i in \$(seq 30); do $O $pol --root $(root_of ours) run --bundle $T/b/ours-$kind\$i ours-$kind\$i; done" >/dev/null 2>&1
  done
  merged() {  # inclusive share per function, merged over processes
    perf report -i "$1" --stdio --children --sort sym -g none 2>/dev/null | grep -v '^#' | python3 -c '
import collections, sys
agg = collections.Counter()
for line in sys.stdin:
    f = line.split(None, 3)
    if len(f) == 4 and f[0].endswith("%"):
        agg[f[3].strip()] += float(f[0][:-1])
for k, v in agg.most_common(3000):
    if any(s in k for s in ("sh::", "seccomp_", "EVP_", "OPENSSL_", "proc_pid_status", "_dl_relocate", "main")):
        print(f"{v:6.2f}%  {k[:140]}")' | head -60
  }
  {
    echo "== 30 runs of \`run\` of /bin/true under --policy harsh.json: inclusive share of all samples per function"
    merged "$T/perf-h.data"
    echo
    echo "== the same for 30 plain runs"
    merged "$T/perf-q.data"
  } >"$OUT/perf-ours-harsh.txt"
fi

# --- callgrind: instructions in user space ------------------------------------------------------
if command -v valgrind >/dev/null; then
  bundles ours-cg ours-cg2
  cgr() {  # NAME ARGS...
    local name=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$T/cg-$name.out" "$@" >/dev/null 2>"$T/cg-$name.log" || true
    {
      echo "== $name: $*"
      grep -v '^==' "$T/cg-$name.log" | head -3
      callgrind_annotate --inclusive=no "$T/cg-$name.out" 2>/dev/null | sed -n '/PROGRAM TOTALS/,$p' | head -16
      echo "-- inclusive:"
      callgrind_annotate --inclusive=yes "$T/cg-$name.out" 2>/dev/null | sed -n '/PROGRAM TOTALS/,$p' |
        grep -E 'sh::|EVP_|OPENSSL_init|_dl_relocate_object|_dl_start' | head -25
      echo
    } >>"$OUT/callgrind.txt"
  }
  : >"$OUT/callgrind.txt"
  cgr version "$O" --version
  cgr create-until-clone3 "$O" --root "$(root_of ours)" create --bundle "$T/b/ours-cg" ours-cg
  bundles ours-cgh
  if "$O" --help 2>&1 | grep -q -- --policy; then
    cgr create-harsh-until-clone3 "$O" --policy "$repo/policies/harsh.json" --root "$(root_of ours)" create --bundle "$T/b/ours-cgh" ours-cgh
  fi
  R ours create --bundle "$T/b/ours-cg2" ours-cg2 </dev/null >/dev/null
  cgr state "$O" --root "$(root_of ours)" state ours-cg2
  cgr list "$O" --root "$(root_of ours)" list
  cgr delete "$O" --root "$(root_of ours)" delete --force ours-cg2
fi

# --- resident memory by mapping ---------------------------------------------------------------
ARGS="sleep 3" bundles ours-rss
"$O" --root "$(root_of ours)" run --bundle "$T/b/ours-rss" ours-rss &
p=$!
sleep 1
{
  echo "== $O run (pid $p) while the container sleeps: $(grep -E 'VmHWM' /proc/$p/status | tr -s ' \t' ' ')"
  python3 - "$p" <<'PY'
import collections, sys
agg, name = collections.Counter(), None
for line in open(f"/proc/{sys.argv[1]}/smaps"):
    f = line.split()
    if "-" in f[0] and not f[0].endswith(":"):
        name = f[5] if len(f) > 5 else "[anon]"
    elif f[0] == "Rss:":
        agg[name] += int(f[1])
for k, v in agg.most_common(14):
    print(f"{v:7d} kB  {k}")
PY
} >"$OUT/rss-ours.txt" 2>&1
wait $p || true

# --- create with 0 and N containers running (ours only) ----------------------------------------
{
  ARGS="sleep 1200" bundles $(seq -f "ours-bg%g" "$N")
  bundles $(seq -f "ours-z%g" 20) $(seq -f "ours-n%g" 20)
  probe() {  # TAG: 20 creates (+ delete), CPU and wall per create; strace -c of one more
    local tag=$1 i t0 t1
    t0=$(date +%s%N)
    for i in $(seq 20); do R ours create --bundle "$T/b/ours-$tag$i" "ours-$tag$i" </dev/null >/dev/null; R ours delete --force "ours-$tag$i"; done
    t1=$(date +%s%N)
    echo "20 x (create + delete --force): $(((t1 - t0) / 20000)) us each"
    bundles "ours-$tag-s"
    strace -c -o "$T/sc-$tag" "$O" --root "$(root_of ours)" create --bundle "$T/b/ours-$tag-s" "ours-$tag-s" </dev/null >/dev/null
    echo "strace -c of one create: $(tail -1 "$T/sc-$tag")"
    R ours delete --force "ours-$tag-s"
  }
  echo "== 0 containers running"
  probe z
  t0=$(date +%s%N)
  for i in $(seq "$N"); do R ours create --bundle "$T/b/ours-bg$i" "ours-bg$i" </dev/null >/dev/null && R ours start "ours-bg$i"; done
  echo "== $N containers running (ramp: $((($(date +%s%N) - t0) / 1000000)) ms)"
  probe n
  t0=$(date +%s%N)
  for i in $(seq "$N"); do R ours delete --force "ours-bg$i"; done
  echo "teardown: $((($(date +%s%N) - t0) / 1000000)) ms"
} >"$OUT/scale.txt" 2>&1

echo "profile written to $OUT"
