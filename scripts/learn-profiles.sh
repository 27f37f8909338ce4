#!/usr/bin/env bash
# learn-profiles.sh RUNTIME [NAME...]: regenerate the shipped workload profiles policies/NAME.json
# (default: python3 node sh) from Debian 12's packages, as docs/learn.md "Shipped profiles" says:
#   1. the image: scripts/rootfs.sh workloads (mmdebstrap; python3, nodejs, coreutils), read-only;
#   2. the run: scripts/profiles/NAME/job.* with input.csv, bound read-only at /srv, a tmpfs at
#      /tmp, the command in scripts/profiles/NAME/args (a JSON array);
#   3. `RUNTIME policy learn` under harsh, adjusted by scripts/profiles/NAME/from.jq when the
#      interpreter needs it (node: V8 reserves more address space than harsh's 128 MiB);
#   4. the review: scripts/profiles/NAME/review.jq, each edit commented there (what was removed or
#      widened, and why);
#   5. checks: `policy check`, and the job runs under the result with the same output as without.
# Runs as root (policy learn creates a container). The pins are the image's; install-policies.sh
# refreshes them from the host at install time, `policy pin --bundle` from another image.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
rt=${1:?usage: scripts/learn-profiles.sh RUNTIME [NAME...]}
shift
[ $# -gt 0 ] || set -- python3 node sh
rootfs=$("$HERE/rootfs.sh" workloads)
tmp=$(mktemp -d /tmp/sharness-learn-profiles.XXXXXX)
cleanup() {
  local d
  # The runtime removes each container's cgroup; the parent named for this run is ours to remove.
  for d in /sys/fs/cgroup/sharness-learn-profiles-$$ /sys/fs/cgroup/*/sharness-learn-profiles-$$; do
    [ -d "$d" ] && rmdir "$d"
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
RT=("$rt" --root "$tmp/state")

for name in "$@"; do
  dir=$HERE/profiles/$name
  [ -f "$dir/args" ] || { echo "learn-profiles: no $dir/args" >&2; exit 2; }
  b=$tmp/$name
  mkdir -p "$b/job"
  cp "$dir"/job.* "$dir/input.csv" "$b/job/"
  (cd "$b" && "$rt" spec >/dev/null)
  jq --arg r "$rootfs" --arg j "$b/job" --argjson args "$(cat "$dir/args")" --arg cg "/sharness-learn-profiles-$$/$name" '
    .root = {path: $r, readonly: true} | .process.terminal = false | .process.args = $args |
    .linux.cgroupsPath = $cg |
    .mounts += [{destination: "/srv", source: $j, type: "bind", options: ["rbind", "ro"]},
                {destination: "/tmp", source: "tmpfs", type: "tmpfs", options: ["nosuid", "nodev", "noexec"]}]' \
    "$b/config.json" >"$b/config.json.new"
  mv "$b/config.json.new" "$b/config.json"
  from=$REPO/policies/harsh.json
  if [ -f "$dir/from.jq" ]; then
    jq -f "$dir/from.jq" "$from" >"$tmp/$name-from.json"
    from=$tmp/$name-from.json
  fi
  want=$("${RT[@]}" run --bundle "$b" "plain-$name")
  "${RT[@]}" policy learn --bundle "$b" --from "$from" --out "$tmp/$name.learned.json" "$name"
  jq -f "$dir/review.jq" "$tmp/$name.learned.json" >"$tmp/$name.json"
  "$rt" policy check "$tmp/$name.json"
  got=$("${RT[@]}" --policy "$tmp/$name.json" run --bundle "$b" "check-$name")
  [ "$got" = "$want" ] || { echo "learn-profiles: $name: the job prints something else under the reviewed profile" >&2; exit 1; }
  cp "$tmp/$name.json" "$REPO/policies/$name.json"
  echo "learn-profiles: wrote policies/$name.json (the job runs under it)"
done
