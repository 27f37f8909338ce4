#!/usr/bin/env bash
# run.sh GUEST: boot the guest once (scripts/vm.sh, building its image if the cache has none) and
# run every case of conformance/vm/GUEST.list inside it against the host's built binary, shared
# into the guest with the source tree (the KMS suite's binaries, SHARNESS_KMS..., default to the
# runtime's siblings in the build dir, as CTest sets them for conformance.kms). Prints the guest's
# TAP; exit 1 if any case failed, and a failure (never a skip) when qemu or the image cannot be
# had. CTest: vm.GUEST (vm.cmake).
set -uo pipefail
guest=${1:?usage: run.sh GUEST}
: "${SHARNESS_RUNTIME:?set SHARNESS_RUNTIME to the runtime binary under test}"
src=${SHARNESS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
list=${SHARNESS_VM_LIST:-$src/conformance/vm/$guest.list}  # another list: for trying run.sh itself
[ -f "$list" ] || { echo "FAIL: no case list $list" >&2; exit 1; }
rt=$(readlink -f "$SHARNESS_RUNTIME")
[ -x "$rt" ] || { echo "FAIL: runtime not executable: $SHARNESS_RUNTIME" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "FAIL: the guests are built and booted as root (uid $(id -u)): nothing was tested" >&2; exit 1; }
"$src/scripts/install-deps.sh" --vm || { echo "FAIL: cannot install qemu and mmdebstrap (scripts/install-deps.sh --vm)" >&2; exit 1; }
shares=(--share "$src")
rtdir=$(dirname "$rt")
case $rtdir/ in "$src"/*) ;; *) shares+=(--share "$rtdir") ;; esac
cr=${CONSOLE_RECEIVER:-$rtdir/console-receiver}
cr=$(readlink -f "$cr" 2>/dev/null || echo "$cr")
case $(dirname "$cr")/ in "$src"/*|"$rtdir"/*) ;; *) [ -d "$(dirname "$cr")" ] && shares+=(--share "$(dirname "$cr")") ;; esac
# boot [RESUME]: boot the guest and run the list (from the entry after RESUME's, see guest-cases.sh),
# its output on stdout and in $out.
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
boot() {
  "$src/scripts/vm.sh" run --guest "$guest" "${shares[@]}" --timeout "${SHARNESS_VM_TIMEOUT:-2400}" -- \
    env SHARNESS_RUNTIME="$rt" SHARNESS_SOURCE_DIR="$src" CONSOLE_RECEIVER="$cr" SHARNESS_VM_RESUME="${1:-0 0}" \
    SHARNESS_KMS="${SHARNESS_KMS:-$rtdir/sharness-kms}" SHARNESS_KMS_CLIENT="${SHARNESS_KMS_CLIENT:-$rtdir/sharness-kms-client}" \
    SHARNESS_KMS_SEAL="${SHARNESS_KMS_SEAL:-$rt}" SHARNESS_WITHOUT_MEMFD_SECRET="${SHARNESS_WITHOUT_MEMFD_SECRET:-$rtdir/without-memfd-secret}" \
    SHARNESS_VERBOSE="${SHARNESS_VERBOSE:-0}" SHARNESS_CASE_TIMEOUT="${SHARNESS_VM_CASE_TIMEOUT:-300}" \
    SHARNESS_RT_TIMEOUT="${SHARNESS_VM_RT_TIMEOUT:-120}" \
    bash "$src/conformance/vm/guest-cases.sh" "$guest" "$list" 2>&1 | tee -a "$out"
  return "${PIPESTATUS[0]}"
}
boot
rc=$?
# The guest's own kernel dying under qemu's TCG (seen once in trixie: a panic in the idle task's
# __schedule while containerd ran) is the emulator's, not a case's: boot once more and go on from
# the entry it died in. A second death fails; a case that failed before it still fails.
if [ $rc = 125 ] && grep -aqE 'Kernel panic - not syncing| panic\+0x' "$out"; then
  resume=$(sed -n 's/^# entry-done \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$out" | tail -1)
  echo "# vm: the $guest guest's kernel panicked (above); booting it again from the entry after: ${resume:-0 0} (entries done, TAP lines)"
  boot "${resume:-0 0}"
  rc=$?
  [ $rc = 0 ] && grep -aq '^not ok' "$out" && rc=1
fi
case $rc in
  0) exit 0 ;;
  124) echo "FAIL: the $guest guest timed out" >&2 ;;
  125) echo "FAIL: the $guest guest could not run its cases (see above)" >&2 ;;
  *) echo "FAIL: cases failed in the $guest guest" >&2 ;;
esac
exit 1
