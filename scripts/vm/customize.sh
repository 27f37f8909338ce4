#!/usr/bin/env bash
# customize.sh ROOT UNIT...: the last step of an image build (mmdebstrap --customize-hook).
set -euo pipefail
root=$1; shift
# a fixed machine id: no first-boot presets (they would enable the services disabled below)
chroot "$root" systemd-machine-id-setup >/dev/null
for u in "$@"; do chroot "$root" systemctl disable "$u" >/dev/null 2>&1 || true; done
# no login prompts, no waiting for a network that the runner sets up itself
chroot "$root" systemctl mask getty.target serial-getty@ttyS0.service systemd-networkd-wait-online.service \
  >/dev/null 2>&1 || true
echo sharness-vm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 sharness-vm\n::1 localhost\n' >"$root/etc/hosts"
# the unprivileged user of the rootless cases: subordinate ids, a lingering systemd user manager
chroot "$root" useradd -m -u 1000 -s /bin/bash sharness
grep -q '^sharness:' "$root/etc/subuid" 2>/dev/null || echo 'sharness:100000:65536' >>"$root/etc/subuid"
grep -q '^sharness:' "$root/etc/subgid" 2>/dev/null || echo 'sharness:100000:65536' >>"$root/etc/subgid"
mkdir -p "$root/var/lib/systemd/linger"
: >"$root/var/lib/systemd/linger/sharness"
# root's disk is the whole of /dev/vda
echo '/dev/vda / ext4 rw,discard 0 1' >"$root/etc/fstab"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
