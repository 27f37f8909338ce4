#!/usr/bin/env bash
# demo.sh RUNTIME_BINARY: run one container with RUNTIME_BINARY (ours, runc or crun) and show what
# it sees from inside: who it is, its hostname, its capabilities / no_new_privs / seccomp state,
# and its mounts. Everything lives in a temp dir (bundle and the runtime's own --root state dir)
# and in a cgroup parent named for this run; all of it is removed on exit.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 RUNTIME_BINARY" >&2; exit 2; }
RUNTIME=$1
[[ $RUNTIME == */* ]] || RUNTIME=$(command -v "$RUNTIME") || { echo "$1: not found" >&2; exit 1; }
[ -x "$RUNTIME" ] || { echo "$RUNTIME: not an executable (build it first: make build)" >&2; exit 1; }
RUNTIME=$(cd "$(dirname "$RUNTIME")" && pwd)/$(basename "$RUNTIME")
if [ "$(id -u)" != 0 ]; then
  echo "$0: containers need root here; run: sudo $0 $*" >&2
  exit 1
fi

HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sharness-demo.XXXXXX")
chmod 0755 "$TMP"
STATE=$TMP/state
BUNDLE=$TMP/bundle
ID=demo-$$
CGPARENT=sharness-demo-$$

cleanup() {
  local rc=$? d
  trap - EXIT INT TERM
  "$RUNTIME" --root "$STATE" delete --force "$ID" >/dev/null 2>&1 || true
  for d in /sys/fs/cgroup/*/"$CGPARENT" /sys/fs/cgroup/"$CGPARENT"; do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  rm -rf --one-file-system "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }

# What the container runs: all of it reads its own view from inside.
SCRIPT='echo "## id";       id
echo "## hostname"; hostname
echo "## /proc/self/status (capabilities, no_new_privs, seccomp)"
grep -E "Cap|NoNewPrivs|Seccomp" /proc/self/status
echo "## mounts";   cat /proc/self/mounts'

MAKE_BUNDLE_CGROUPS_PATH=/$CGPARENT/$ID "$HERE/make-bundle.sh" "$BUNDLE" sh -c "$SCRIPT"

# A small seccomp profile on top of the default config, so the filter shows up (Seccomp: 2):
# everything allowed but a few syscalls a workload has no business making.
if command -v jq >/dev/null 2>&1; then
  jq '.hostname = "sharness-demo"
      | .linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
          "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_AARCH64"],
          "syscalls": [{"names": ["ptrace", "mount", "umount2", "bpf", "keyctl", "unshare",
                                  "userfaultfd", "io_uring_setup"],
                        "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}' \
    "$BUNDLE/config.json" >"$BUNDLE/config.json.new" && mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"
fi

bold "# runtime: $RUNTIME"
"$RUNTIME" --version 2>/dev/null | sed 's/^/#   /' || true
bold "# bundle:  $BUNDLE (busybox rootfs + config.json; made by scripts/make-bundle.sh)"
echo
bold "\$ $(basename "$RUNTIME") --root $STATE run --bundle $BUNDLE $ID"
rc=0
"$RUNTIME" --root "$STATE" run --bundle "$BUNDLE" "$ID" </dev/null || rc=$?
echo
bold "# exit code: $rc"

# ---------------------------------------------------------------------------------------------
# SPOT FOR `sharness-runtime hello` (DESIGN.md §1: each bound reported with who applied it). Only
# for our binary: it runs its own busybox containers under policies/harsh.json with a role and
# secrets added (private state, rootfs, vault and cgroups, all removed after) and prints what
# held each hostile attempt.
if [ "$(basename "$RUNTIME")" = sharness-runtime ]; then
  # harsh plus a role and a `secrets` section, so that hello also shows the KMS: what the workload
  # may ask for, and that the master keys are elsewhere (a KMS per container, with a throwaway vault).
  HELLO=(hello)
  if command -v jq >/dev/null 2>&1; then
    jq '.id = "harsh-kms" | .role = "app"
        | .secrets = {vaults: ["db"], hosts: ["db.internal"], operations: ["read"], ttl: 600, workloadMayAsk: true}' \
      "$HERE/../policies/harsh.json" >"$TMP/harsh-kms.json"
    HELLO=(hello --policy "$TMP/harsh-kms.json")
  fi
  echo
  bold "\$ $(basename "$RUNTIME") ${HELLO[*]/#$TMP\//}"
  hello_rc=0
  TMPDIR=$TMP "$RUNTIME" "${HELLO[@]}" </dev/null || hello_rc=$?
  echo
  bold "# hello exit code: $hello_rc (0: every attempt was held; 1: one was not; 2: a container could not start)"
  [ "$rc" != 0 ] || rc=$hello_rc
fi
# ---------------------------------------------------------------------------------------------

exit "$rc"
