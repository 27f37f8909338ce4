#!/bin/bash
# Installed in the guest image as /usr/local/sbin/sharness-vm-run, started by sharness-vm.service.
# It mounts the control share (tag vmctl: cmd.sh, shares, user; rc is written back there), mounts
# every share at its host path, runs cmd.sh with its stdout and stderr on the virtio ports
# sharness.out and sharness.err, writes the exit code to vmctl/rc and powers the guest off.
set -u
CTL=/run/sharness-vm
mkdir -p "$CTL"
say() { echo "sharness-vm: $*" >/dev/ttyS0; }
# The 9p channel appears when its virtio driver has bound, which under TCG can be after this unit
# starts (seen on trixie's first boot: "special device vmctl does not exist"): wait up to 60 s.
mounted=0
for i in $(seq 600); do
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmctl "$CTL" 2>/dev/null && { mounted=1; break; }
  sleep 0.1
done
if [ $mounted = 0 ]; then
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmctl "$CTL" 2>&1 | while read -r l; do say "$l"; done
  say "cannot mount the control share"; systemctl poweroff --force --force; exit 1
fi
finish() { echo "$1" >"$CTL/rc.tmp"; mv "$CTL/rc.tmp" "$CTL/rc"; sync; umount "$CTL";
  systemctl poweroff --force --force; }
# shares: "TAG PATH" per line
while read -r tag path; do
  [ -n "$tag" ] || continue
  mkdir -p "$path" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,access=client "$tag" "$path" ||
    { say "cannot mount share $tag at $path"; finish 125; }
done <"$CTL/shares"
# user networking (qemu -nic user): static, no DHCP client needed
ip link set lo up
dev=$(ls /sys/class/net | grep -v '^lo$' | head -1)
if [ -n "$dev" ]; then
  ip link set "$dev" up && ip addr add 10.0.2.15/24 dev "$dev" && ip route add default via 10.0.2.2
  echo "nameserver 10.0.2.3" >/etc/resolv.conf
fi
# The ports by their names: udev's /dev/virtio-ports links come late under TCG (or not at all
# when udev is slow), the kernel's /sys/class/virtio-ports/*/name is there once the driver is.
port() {
  local n
  for n in /sys/class/virtio-ports/*/name; do
    [ "$(cat "$n" 2>/dev/null)" = "$1" ] && { echo "/dev/$(basename "$(dirname "$n")")"; return 0; }
  done
  return 1
}
for i in $(seq 600); do port sharness.err >/dev/null && break; sleep 0.1; done
out=$(port sharness.out) && err=$(port sharness.err) || { say "no sharness.out/err port: output on the console"; out=/dev/ttyS0; err=/dev/ttyS0; }
user=$(cat "$CTL/user" 2>/dev/null)
cd "$(cat "$CTL/cwd")" 2>/dev/null || cd /
if [ -n "$user" ]; then
  uid=$(id -u "$user") || { echo "sharness-vm: no user $user in the guest" >"$err"; finish 125; }
  # The user's systemd manager (lingering, so it runs without a login) and its D-Bus session bus;
  # CMD runs in a scope of that manager, so it is in a delegated cgroup as a login session is.
  systemctl start "user@$uid.service"
  runuser -u "$user" -- env HOME="$(getent passwd "$user" | cut -d: -f6)" USER="$user" LOGNAME="$user" \
    XDG_RUNTIME_DIR="/run/user/$uid" DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$uid/bus" \
    PATH=/usr/local/bin:/usr/bin:/bin \
    systemd-run --user --scope --quiet --collect -- bash "$CTL/cmd.sh" >"$out" 2>"$err" </dev/null
  rc=$?
else
  bash "$CTL/cmd.sh" >"$out" 2>"$err" </dev/null
  rc=$?
fi
finish "$rc"
