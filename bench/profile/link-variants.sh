#!/usr/bin/env bash
# bench/profile/link-variants.sh BUILD_DIR OUT_DIR: relink the runtime from BUILD_DIR's objects in
# the ways profile.md proposes, without touching the tree, so the proposals can be measured:
#   as-built      the link line of BUILD_DIR, unchanged (the control)
#   no-crypto     without libcrypto (bench/profile/evp_stub.c: an in-tree SHA-256 stands in)
#   static-cxx    no-crypto + -static-libstdc++ -static-libgcc
#   static-pie    no-crypto + everything static (-static-pie; libseccomp.a, libcap.a, libyajl_s.a)
# Prints one line per variant: its name, size, DT_NEEDED count and LD_DEBUG=statistics relocations.
set -euo pipefail
build=$(realpath "$1") out=$(realpath -m "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
cd "$build"
objs=$(sed -n 's/.*-z,now \(.*\) -o sharness-runtime .*/\1/p' CMakeFiles/sharness-runtime.dir/link.txt | tr -d '"')
[ -n "$objs" ] || { echo "cannot parse $build/CMakeFiles/sharness-runtime.dir/link.txt" >&2; exit 1; }
cc -O2 -c -o "$out/evp_stub.o" "$here/evp_stub.c"
L=/usr/lib/x86_64-linux-gnu
c++ -O2 -pie -Wl,-z,relro,-z,now $objs -o "$out/as-built" libsharness_core.a -lseccomp -lcap -lyajl -lcrypto
c++ -O2 -pie -Wl,-z,relro,-z,now $objs -o "$out/no-crypto" libsharness_core.a "$out/evp_stub.o" -lseccomp -lcap -lyajl
c++ -O2 -pie -Wl,-z,relro,-z,now -static-libstdc++ -static-libgcc $objs -o "$out/static-cxx" \
  libsharness_core.a "$out/evp_stub.o" -lseccomp -lcap -lyajl
c++ -O2 -static-pie -Wl,-z,relro,-z,now $objs -o "$out/static-pie" libsharness_core.a "$out/evp_stub.o" \
  $L/libseccomp.a $L/libcap.a $L/libyajl_s.a 2>"$out/static-pie.warnings" || echo "static-pie: link failed" >&2
for v in as-built no-crypto static-cxx static-pie; do
  [ -x "$out/$v" ] || continue
  needed=$(readelf -d "$out/$v" | grep -c NEEDED || true)
  relocs=$(LD_DEBUG=statistics "$out/$v" --version 2>&1 >/dev/null | sed -n 's/.*final number of relocations: *//p' | head -1)
  printf '%-11s %8d bytes  %2d DT_NEEDED  %s relocations at start\n' "$v" "$(stat -c %s "$out/$v")" "$needed" "${relocs:-0}"
done
