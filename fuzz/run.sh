#!/usr/bin/env bash
# fuzz/run.sh [--each SECONDS | --total SECONDS] [TARGET...]: build (fuzz/build.sh) and run the
# fuzz targets, each from its seed corpus fuzz/corpus/<target>/, for a bounded time.
#   --each S   every target runs S seconds (make fuzz: 60)
#   --total S  S seconds shared by all targets (make fuzz-short: 60)
# Targets: config policy state cli egress_http (default: all). The working corpus (what the fuzzer found
# interesting) lives in $FUZZ_BUILD/corpus/<target>, not in the tree. A crash, leak, UB report or
# timeout (10 s for one input) is copied to fuzz/regressions/<target>/ and the run exits 1.
# First, every file already in fuzz/regressions/<target>/ is replayed and reported: a file there
# that no longer fails is a fixed bug (move it to fuzz/corpus/<target>/); one that still fails
# is a known bug and does not fail the run (FUZZ_STRICT=1: it does).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
each=60 total=""
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --each) each=$2; shift 2 ;;
    --total) total=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(config policy state cli egress_http)
if [ -n "$total" ]; then each=$(( total / ${#targets[@]} )); [ "$each" -ge 1 ] || each=1; fi

engine_line=$("$here/build.sh" "$build" | tail -1) || { echo "fuzz: build failed" >&2; exit 1; }
echo "fuzz: $engine_line; ${each}s per target: ${targets[*]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

rc=0
for t in "${targets[@]}"; do
  bin=$build/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: no target $t" >&2; rc=1; continue; }
  seeds=$here/corpus/$t regs=$here/regressions/$t work=$build/corpus/$t art=$build/artifacts/$t
  mkdir -p "$work" "$art"
  # known regressions: replayed one by one, reported
  if compgen -G "$regs/*" >/dev/null; then
    for f in "$regs"/*; do
      case $f in *.txt|*.md) continue ;; esac
      if "$bin" -runs=1 "$f" >"$art/replay.log" 2>&1; then
        echo "fuzz: $t: regression $(basename "$f") passes now (fixed? move it to fuzz/corpus/$t/)"
      else
        echo "fuzz: $t: known regression $(basename "$f") still fails: $(grep -m1 -E 'ERROR: |runtime error|SEGV|deadly signal' "$art/replay.log" | cut -c1-160)"
        [ "${FUZZ_STRICT:-0}" = 1 ] && rc=1
      fi
    done
  fi
  rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-* "$art"/slow-unit-*
  log=$build/fuzz-$t.log
  # JSON targets get the JSON dictionary (comments included: fuzz/dict/json.dict)
  dict=()
  case $t in config|policy|state) dict=(-dict="$here/dict/json.dict") ;; esac
  "$bin" -max_total_time="$each" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    "${dict[@]}" -artifact_prefix="$art/" "$work" "$seeds" >"$log" 2>&1
  status=$?
  runs=$(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' ||
         grep -m1 -oE '[0-9]+ mutated runs' "$log" | grep -oE '^[0-9]+')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
  if [ "$status" = 0 ]; then
    echo "fuzz: $t: ok (${runs:-?} runs${cov:+, $cov})"
    continue
  fi
  rc=1
  echo "fuzz: $t: FAILED (exit $status); log $log"
  grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/  /'
  mkdir -p "$regs"
  for f in "$art"/*; do
    [ -f "$f" ] || continue
    cp "$f" "$regs/"
    echo "  input kept as fuzz/regressions/$t/$(basename "$f")"
  done
done
exit $rc
