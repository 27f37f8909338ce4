#!/usr/bin/env bash
# fuzz/build.sh [BUILD_DIR]: build the fuzz targets (fuzz_config, fuzz_policy, fuzz_state, fuzz_cli)
# into BUILD_DIR (default build-fuzz), with the best engine this machine can have:
#
#   1. libFuzzer: clang with -fsanitize=fuzzer,address,undefined. The brief names Debian 12's
#      clang-14, but clang 14 cannot compile std::expected from libstdc++ 12 (no P0848:
#      "destructor of 'expected<...>' is implicitly deleted"), and the whole code base returns
#      std::expected. clang 16 (Debian 12 package clang-16, with libclang-rt-16-dev for the
#      fuzzer runtime) can, given -D__cpp_concepts=202002L (see fuzz/CMakeLists.txt). If no
#      working clang is present, this script installs clang-16 and libclang-rt-16-dev with apt.
#   2. fallback: g++ with -fsanitize=address,undefined and fuzz/driver.cpp (corpus replay and
#      random mutation, no coverage feedback), when no clang can be had.
# FUZZ_ENGINE=driver forces the fallback; FUZZ_CXX=... forces a compiler.
# Prints the engine it chose on the last line: "engine: libfuzzer (clang++-16)".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build-fuzz}
mkdir -p "$build"

probe() {  # CXX [FLAGS...]: can it build a libFuzzer target that uses std::expected?
  local cxx=$1; shift
  command -v "$cxx" >/dev/null 2>&1 || return 1
  printf '%s\n' '#include <expected>' '#include <string>' '#include <cstdint>' '#include <cstddef>' \
    'extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {' \
    '  std::expected<int, std::string> e = int(n); if (!e) return 1; return d && *e < 0; }' >"$build/probe.cpp"
  "$cxx" -std=gnu++2b "$@" -fsanitize=fuzzer,address,undefined "$build/probe.cpp" -o "$build/probe" \
    >"$build/probe-$(basename "$cxx").log" 2>&1
}
CLANG_FIX=(-Wno-builtin-macro-redefined -U__cpp_concepts -D__cpp_concepts=202002L)

engine=${FUZZ_ENGINE:-}
cxx=${FUZZ_CXX:-}
if [ -z "$engine" ] && [ -z "$cxx" ]; then
  if probe clang++-14; then
    cxx=clang++-14
  else
    [ -e "$build/probe-clang++-14.log" ] && echo "fuzz: clang++-14 cannot compile std::expected from libstdc++ 12 (see $build/probe-clang++-14.log)" >&2
    for c in clang++-19 clang++-18 clang++-17 clang++-16; do
      if probe "$c" "${CLANG_FIX[@]}"; then cxx=$c; break; fi
    done
    if [ -z "$cxx" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "fuzz: installing clang-16 and libclang-rt-16-dev (Debian 12)" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-16 libclang-rt-16-dev >"$build/apt.log" 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-16 libclang-rt-16-dev >"$build/apt.log" 2>&1; } || true
      probe clang++-16 "${CLANG_FIX[@]}" && cxx=clang++-16
    fi
  fi
  if [ -n "$cxx" ]; then engine=libfuzzer; else engine=driver; cxx=g++; fi
fi
[ -n "$engine" ] || engine=libfuzzer
[ -n "$cxx" ] || { [ "$engine" = driver ] && cxx=g++ || cxx=clang++-16; }

# The C compiler of the same family (CRIU's RPC messages are protoc-c's C): clang-16 beside clang++-16.
cc=${cxx/clang++/clang}
cc=${cc/g++/gcc}
cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DFUZZ_ENGINE="$engine" \
  -DCMAKE_BUILD_TYPE=None >"$build/cmake.log" 2>&1 || { cat "$build/cmake.log" >&2; exit 1; }
cmake --build "$build" -j "${JOBS:-$(nproc)}" >"$build/build.log" 2>&1 || { tail -50 "$build/build.log" >&2; exit 1; }
echo "engine: $engine ($cxx)"
