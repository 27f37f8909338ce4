#!/usr/bin/env bash
# bench/run.sh [OURS]: benchmark sharness-runtime (OURS, default build/sharness-runtime) against
# crun (Debian 12's and Debian 13's) and runc, interleaved, in one run; writes bench/results/latest.md, latest.json and
# latest-scaling.png. `make bench` calls it. See bench/README.md.
#
# 1. installs what is missing (Debian packages only, only if missing): hyperfine, gnuplot-nox,
#    runc, crun, busybox-static, time, a C compiler, python3; linux-perf if the archive has it;
# 2. re-executes bench/bench.py in a private mount namespace (unshare -m, private propagation):
#    there it hides the hybrid host's cgroup2 mount from all three runtimes (crun 1.8.1 refuses a
#    hybrid host whose cgroup2 holds a controller); nothing changes outside that namespace, and
#    the namespace ends with the bench.
# Environment: see bench/bench.py (BENCH_ROUNDS, BENCH_LEVELS, BENCH_QUICK=1, ...).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
ours=${1:-$repo/build/sharness-runtime}

if [ "$(id -u)" != 0 ]; then
  echo "bench: must run as root (it creates containers)" >&2
  exit 1
fi
[ -x "$ours" ] || { echo "bench: $ours is not an executable (make build first)" >&2; exit 1; }

# package:command pairs; a package is installed only when its command is missing.
need=(hyperfine:hyperfine gnuplot-nox:gnuplot runc:runc crun:crun busybox-static:busybox
  time:/usr/bin/time gcc:cc python3-minimal:/usr/bin/python3 libc6-dev:/usr/include/stdio.h
  strace:strace golang-github-containers-common:/usr/share/containers/seccomp.json)
missing=()
for pc in "${need[@]}"; do
  pkg=${pc%%:*} cmd=${pc#*:}
  if [[ $cmd == /* ]]; then [ -e "$cmd" ] && continue; else command -v "$cmd" >/dev/null 2>&1 && continue; fi
  [ "$pkg" = busybox-static ] && [ -x /bin/busybox ] && continue
  missing+=("$pkg")
done
if ! command -v perf >/dev/null 2>&1; then
  apt-cache show linux-perf >/dev/null 2>&1 && missing+=(linux-perf)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${missing[@]}" >/dev/null ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    { echo "bench: cannot install ${missing[*]}" >&2; exit 1; }
fi

# The newest crun that runs here (Debian 13's), unpacked into a private directory and run through
# its own dynamic loader; the system is not changed. Without it the bench runs the other three.
crun_new=()
if d=$("$here/crun-trixie.sh" "${BENCH_CRUN_TRIXIE_DIR:-/var/cache/sharness-bench/crun-trixie}"); then
  crun_new=(--crun-new "$d")
else
  echo "bench: Debian 13's crun is not available; benchmarking without it" >&2
fi

# A private mount namespace (same pid: unshare execs, it does not fork), so the cgroup tricks and
# every mount the runtimes leave behind stay in here.
export SHARNESS_BENCH_IN_NS=1
exec unshare -m --propagation private /usr/bin/python3 "$here/bench.py" --ours "$(realpath "$ours")" "${crun_new[@]}"
