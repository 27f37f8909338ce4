#!/usr/bin/env bash
# make-bundle.sh DIR [ARGS...]
#
# Build a minimal OCI bundle in DIR: a busybox root filesystem in DIR/rootfs (from Debian's
# busybox-static, statically linked, so nothing else is needed) and a runc-style default
# DIR/config.json whose process.args are ARGS (default: sh).
#
# The config differs from `runc spec` in three deliberate ways, so that tests can write where they
# need to and nothing is inherited by accident:
#   - process.terminal is false (stdio passes through; no console socket needed);
#   - root.readonly is false (tests that want a read-only root set it themselves);
#   - no ambient capabilities (the runtime must never add inheritable/ambient caps unasked).
# Everything else (mounts, masked and read-only paths, namespaces, device rule) is `runc spec`'s.
#
# Environment: BUSYBOX (default /bin/busybox) names the static busybox to copy;
# MAKE_BUNDLE_CACHE=DIR makes repeated calls fast (see below; DIR on the same file system as DIR);
# MAKE_BUNDLE_CGROUPS_PATH, if set, becomes linux.cgroupsPath.
set -euo pipefail

usage() { echo "usage: $0 DIR [ARGS...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir=$1; shift
[ $# -ge 1 ] || set -- sh

BUSYBOX=${BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || { echo "$0: $BUSYBOX not found (apt-get install busybox-static)" >&2; exit 1; }

# JSON string literal for $1 (pure bash: no jq needed to build a bundle).
json_str() {
  local s=$1 out="" c i
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  # Any other control character: \u00XX.
  if [[ $s == *[$'\x01'-$'\x1f']* ]]; then
    for ((i = 0; i < ${#s}; i++)); do
      c=${s:i:1}
      if [[ $c == [$'\x01'-$'\x1f'] ]]; then
        printf -v c '\\u%04x' "'$c"
      fi
      out+=$c
    done
    s=$out
  fi
  printf '"%s"' "$s"
}

rootfs=$dir/rootfs
mkdir -p "$rootfs"/{bin,etc,proc,sys,dev,tmp,root}
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/root"

cp "$BUSYBOX" "$rootfs/bin/busybox"
chmod 0755 "$rootfs/bin/busybox"

# One relative symlink per applet (bin/sh -> busybox, ...); never replace busybox itself, never fail
# on an existing link (the script may be run twice on the same DIR). perl (Debian's essential set)
# does it in one process; ln(1) per applet otherwise.
#
# With MAKE_BUNDLE_CACHE=DIR, the symlinks are made once in DIR/applets and then hard-linked into
# each new rootfs (link(2) of a symlink links the symlink itself): on some file systems creating 270
# symlinks costs half a second, linking them a few milliseconds. A container cannot change a shared
# symlink, only replace its own name. busybox itself is always a private copy.
mapfile -t applets < <("$BUSYBOX" --list)
make_links() {  # DIR: symlinks to busybox for every applet
  if command -v perl >/dev/null 2>&1; then
    (cd "$1" && perl -e 'for (@ARGV) { next if $_ eq "busybox" || -e $_ || -l $_;
      symlink("busybox", $_) or die "symlink $_: $!\n" }' "${applets[@]}")
  else
    local a
    for a in "${applets[@]}"; do
      [ "$a" = busybox ] && continue
      [ -e "$1/$a" ] || [ -L "$1/$a" ] || ln -s busybox "$1/$a"
    done
  fi
}
linked=0
if [ -n "${MAKE_BUNDLE_CACHE:-}" ] && command -v perl >/dev/null 2>&1; then
  tpl=$MAKE_BUNDLE_CACHE/applets
  if [ ! -d "$tpl" ]; then
    mkdir -p "$MAKE_BUNDLE_CACHE"
    tmp=$(mktemp -d "$MAKE_BUNDLE_CACHE/applets.XXXXXX")
    make_links "$tmp"
    mv -T "$tmp" "$tpl" 2>/dev/null || rm -rf "$tmp"  # lost a race: another made it
  fi
  (cd "$rootfs/bin" && perl -e 'my $t = shift; opendir(my $d, $t) or die "$t: $!\n";
    for (readdir $d) { next if /^\.\.?$/ || $_ eq "busybox" || -e $_ || -l $_;
      link("$t/$_", $_) or exit 1 } exit 0' "$tpl") && linked=1
fi
[ "$linked" = 1 ] || make_links "$rootfs/bin"

cat >"$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$rootfs/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
: >"$rootfs/etc/hosts"
: >"$rootfs/etc/resolv.conf"

args=""
for a in "$@"; do
  args+="${args:+, }$(json_str "$a")"
done

cat >"$dir/config.json" <<EOF
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": { "uid": 0, "gid": 0 },
    "args": [ $args ],
    "env": [
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "TERM=xterm"
    ],
    "cwd": "/",
    "capabilities": {
      "bounding": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
      "effective": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
      "permitted": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ]
    },
    "rlimits": [
      { "type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024 }
    ],
    "noNewPrivileges": true
  },
  "root": { "path": "rootfs", "readonly": false },
  "hostname": "sharness",
  "mounts": [
    { "destination": "/proc", "type": "proc", "source": "proc" },
    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
      "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
    { "destination": "/dev/pts", "type": "devpts", "source": "devpts",
      "options": [ "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5" ] },
    { "destination": "/dev/shm", "type": "tmpfs", "source": "shm",
      "options": [ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" ] },
    { "destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
      "options": [ "nosuid", "noexec", "nodev" ] },
    { "destination": "/sys", "type": "sysfs", "source": "sysfs",
      "options": [ "nosuid", "noexec", "nodev", "ro" ] },
    { "destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
      "options": [ "nosuid", "noexec", "nodev", "relatime", "ro" ] }
  ],
  "linux": {${MAKE_BUNDLE_CGROUPS_PATH:+
    \"cgroupsPath\": $(json_str "$MAKE_BUNDLE_CGROUPS_PATH"),}
    "resources": {
      "devices": [ { "allow": false, "access": "rwm" } ]
    },
    "namespaces": [
      { "type": "pid" },
      { "type": "network" },
      { "type": "ipc" },
      { "type": "uts" },
      { "type": "mount" }
    ],
    "maskedPaths": [
      "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
      "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"
    ],
    "readonlyPaths": [
      "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"
    ]
  }
}
EOF
