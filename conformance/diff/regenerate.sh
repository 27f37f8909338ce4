#!/usr/bin/env bash
# conformance/diff/regenerate.sh [GROUP...]: write conformance/diff/corpus/NAME.json, each a
# config.json exactly as a real generator wrote it. GROUPs: spec docker podman containerd (all by
# default). Run as root; not part of `make test` (the suite reads the checked-in files).
#
#   spec        `runc spec`, `runc spec --rootless` (Debian's runc), `crun spec`, our own `spec`
#               (SHARNESS_RUNTIME, default build/sharness-runtime)
#   docker      Debian's docker.io 20.10: one `docker run` per flag set below
#   podman      Debian's podman 4.3, rootful: the same flag sets
#   podman-rootless  the same, rootless: as a throwaway user (made and removed here) with
#               subordinate ids, its storage and runtime dir in the temp dir
#   containerd  containerd 1.6's `ctr run`, and a CRI pod sandbox and container (cri.py)
#
# Client configs are caught by a capturing runtime registered with the client: a script that
# copies the bundle's config.json when it is called with `create`, then execs Debian's runc. Each
# daemon runs privately (its own data root, exec root or state dir, socket, pidfile, config, cgroup
# parent, network config) under one temp dir; it is stopped by pid, its mounts under the temp dir
# are unmounted, and what it added to iptables, links and /var/lib/cni is removed again (a
# snapshot before, compared after). The host's default stores are never used.
#
# `oci-runtime-tool generate` (runtime-tools) is not in the corpus: Debian 12 packages runtime-tools
# only as Go source (golang-github-opencontainers-runtime-tools-dev), with no binary.
set -uo pipefail
[ "$(id -u)" = 0 ] || { echo "regenerate.sh: run as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=$HERE/corpus
MAKE_BUNDLE=$SRC/scripts/make-bundle.sh
OURS_BIN=${SHARNESS_RUNTIME:-$SRC/build/sharness-runtime}
RUNC=/usr/sbin/runc
mkdir -p "$CORPUS"
[ $# -gt 0 ] || set -- spec docker podman podman-rootless containerd

W=$(mktemp -d /tmp/sharness-regen.XXXXXX) || exit 1
chmod 755 "$W"
CAP=$W/captured
mkdir -p "$CAP"
CGPARENT=sharness-regen-$$
PIDS=$W/pids
: >"$PIDS"

ensure_pkgs() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "# installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

wait_for() {
  local i
  for ((i = 0; i < 60; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  return 1
}

stop_pid() {
  local pid=$1 i
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null
}

# Every process whose command line names our temp dir (daemons, shims, conmon), newest first.
our_procs() {
  local d cmd
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" = "$$" ] && continue
    cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
    [[ $cmd == *"$W/"* ]] && echo "${d#/proc/}"
  done | sort -rn
}

# --- host snapshot: iptables, links, CNI state -------------------------------------------------
ipt_lines() {
  iptables-save 2>/dev/null | awk '/^\*/ { t = substr($0, 2); next }
    /^:/ { sub(/ \[[0-9]+:[0-9]+\]$/, ""); print t "\t" $0; next }
    /^-A / { print t "\t" $0 }' | sort
}
links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }
ipt_lines >"$W/ipt.before"
links >"$W/links.before"
IP_FORWARD=$(cat /proc/sys/net/ipv4/ip_forward)
CNI_NETS_EXISTED=$([ -d /var/lib/cni/networks ] && echo 1 || echo 0)
RUN_DIRS_BEFORE=$(ls -d /run/docker /run/containerd /run/containerd/s /run/netns /var/lib/cni \
  /var/lib/containers /var/lib/containers/cache 2>/dev/null)

ipt_undo() {
  local t line new
  new=$(comm -13 "$W/ipt.before" <(ipt_lines))
  [ -n "$new" ] || return 0
  while IFS=$'\t' read -r t line; do
    [[ $line == -A* ]] || continue
    eval "iptables -t $t -D ${line#-A }" 2>/dev/null
  done <<<"$new"
  while IFS=$'\t' read -r t line; do
    [[ $line == :* ]] || continue
    line=${line#:}; line=${line%% *}
    case $line in INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) continue ;; esac
    iptables -t "$t" -F "$line" 2>/dev/null && iptables -t "$t" -X "$line" 2>/dev/null
  done <<<"$new"
  while IFS=$'\t' read -r t line; do
    [[ $line =~ ^:(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING)\ ([A-Z]+)$ ]] || continue
    iptables -t "$t" -P "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  done < <(comm -23 "$W/ipt.before" <(ipt_lines))
}

cleanup() {
  local p l d
  trap - EXIT
  while read -r p; do stop_pid "$p"; done < <(tac "$PIDS")
  if [ -s "$W/user" ]; then  # the rootless podman user: its processes by pid, then the user
    for p in $(pgrep -u "$(cat "$W/user")"); do stop_pid "$p"; done
    userdel --remove "$(cat "$W/user")" 2>/dev/null
  fi
  for p in $(our_procs); do stop_pid "$p"; done
  while read -r p; do umount "$p" 2>/dev/null || umount -l "$p" 2>/dev/null; done < \
    <(awk -v t="$W/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  ipt_undo
  for l in $(comm -13 "$W/links.before" <(links)); do ip link del "$l" 2>/dev/null; done
  echo "$IP_FORWARD" >/proc/sys/net/ipv4/ip_forward
  [ "$CNI_NETS_EXISTED" = 1 ] || rm -rf /var/lib/cni/networks
  # Podman 4.3 keeps its image blob-info cache in /var/lib/containers/cache whatever its --root
  grep -qxF /var/lib/containers/cache <<<"$RUN_DIRS_BEFORE" || rm -f /var/lib/containers/cache/blob-info-cache-v1.boltdb
  for d in /run/netns /run/containerd/s /run/containerd /run/docker/plugins /run/docker /var/lib/cni/results /var/lib/cni \
           /var/lib/containers/cache /var/lib/containers; do
    grep -qxF "$d" <<<"$RUN_DIRS_BEFORE" || { umount "$d" 2>/dev/null; rmdir "$d" 2>/dev/null; }
  done
  for d in /sys/fs/cgroup/*/"$CGPARENT"; do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  # the empty built-in chains of a table a daemon loaded first stay (as on any host that ran one)
  [ -n "$(comm -3 "$W/ipt.before" <(ipt_lines) | grep -vE $'\t:(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) ACCEPT$')" ] &&
    echo "# warning: iptables differ from before" >&2
  rm -rf --one-file-system "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the capturing runtime ---------------------------------------------------------------------
# capture: copies BUNDLE/config.json to $CAP/<time>.json on `create`, then execs runc.
cat >"$W/capture" <<EOF
#!/bin/sh
bundle=""; prev=""; cmd=""
for a in "\$@"; do
  case \$prev in --bundle|-b) bundle=\$a ;; esac
  case \$a in --bundle=*) bundle=\${a#--bundle=} ;; create) cmd=create ;; esac
  prev=\$a
done
if [ "\$cmd" = create ]; then
  cp "\${bundle:-.}/config.json" "$CAP/\$(date +%s%N).json"
fi
exec $RUNC "\$@"
EOF
chmod 755 "$W/capture"

# take NAME: move the one config captured since the last take to corpus/NAME.json.
take() {
  local f n
  n=$(find "$CAP" -name '*.json' | wc -l)
  if [ "$n" != 1 ]; then
    echo "# $1: $n configs captured (expected 1)" >&2
    rm -f "$CAP"/*.json
    return 1
  fi
  f=$(find "$CAP" -name '*.json')
  jq . "$f" >"$CORPUS/$1.json" && rm -f "$f" && echo "wrote corpus/$1.json"
}

# The flag sets run through Docker and Podman: NAME|FLAGS (IMAGE and the command follow).
CLIENT_CASES=(
  "run|"
  "run-t|-t"
  "run-d|-d"
  "network-none|--network none"
  "read-only|--read-only"
  "user-1000|--user 1000:1000"
  "cap-add|--cap-add NET_ADMIN --cap-add SYS_PTRACE"
  "cap-drop-all|--cap-drop ALL"
  "privileged|--privileged"
  "tmpfs|--tmpfs /run/scratch:rw,size=16m"
  "pids-limit|--pids-limit 64"
  "memory|--memory 64m"
  "no-new-privileges|--security-opt no-new-privileges"
)

busybox_tar() {
  "$MAKE_BUNDLE" "$W/bb" sh >/dev/null && tar -C "$W/bb/rootfs" -cf "$1" .
}

# --- spec ---------------------------------------------------------------------------------------
gen_spec() {
  local d=$W/spec
  ensure_pkgs runc crun
  mkdir -p "$d"/{runc,runc-rootless,crun,ours,ours-rootless}
  (cd "$d/runc" && "$RUNC" spec) && jq . "$d/runc/config.json" >"$CORPUS/runc-spec.json"
  (cd "$d/runc-rootless" && "$RUNC" spec --rootless) && jq . "$d/runc-rootless/config.json" >"$CORPUS/runc-spec-rootless.json"
  (cd "$d/crun" && crun spec) && jq . "$d/crun/config.json" >"$CORPUS/crun-spec.json"
  if [ -x "$OURS_BIN" ]; then
    (cd "$d/ours" && "$OURS_BIN" spec) && jq . "$d/ours/config.json" >"$CORPUS/sharness-spec.json"
    (cd "$d/ours-rootless" && "$OURS_BIN" spec --rootless) &&
      jq . "$d/ours-rootless/config.json" >"$CORPUS/sharness-spec-rootless.json"
  else
    echo "# $OURS_BIN not built: sharness-spec*.json not regenerated" >&2
  fi
  echo "wrote corpus/{runc-spec,runc-spec-rootless,crun-spec,sharness-spec,sharness-spec-rootless}.json"
}

# --- docker -------------------------------------------------------------------------------------
gen_docker() {
  local D=$W/docker br case name flags
  ensure_pkgs docker.io iptables busybox-static
  mkdir -p "$D"/{data,exec,cli}
  export DOCKER_CONFIG=$D/cli
  br=shrg$$; br=${br:0:15}
  ip link add "$br" type bridge && ip addr add 10.232.$(($$ % 200 + 20)).1/24 dev "$br"
  jq -n --arg cap "$W/capture" --arg br "$br" --arg cg "/$CGPARENT" --arg key "$D/key.json" '{
    runtimes: {capture: {path: $cap}}, "default-runtime": "capture", bridge: $br,
    "ip-forward": false, iptables: false, "ip-masq": false, "cgroup-parent": $cg,
    "deprecated-key-path": $key, "storage-driver": "overlay2"}' >"$D/daemon.json"
  setsid /usr/sbin/dockerd --data-root "$D/data" --exec-root "$D/exec" -H "unix://$D/docker.sock" \
    --pidfile "$D/dockerd.pid" --config-file "$D/daemon.json" </dev/null >"$D/dockerd.log" 2>&1 &
  echo $! >>"$PIDS"
  dk() { timeout -k 5 120 /usr/bin/docker -H "unix://$D/docker.sock" "$@"; }
  wait_for dk version || { tail -20 "$D/dockerd.log" >&2; return 1; }
  busybox_tar "$W/bb.tar" && dk import -c 'CMD ["sh"]' "$W/bb.tar" sharness-busybox:regen >/dev/null || return 1
  rm -f "$CAP"/*.json
  for case in "${CLIENT_CASES[@]}"; do
    name=${case%%|*} flags=${case#*|}
    # shellcheck disable=SC2086  # the flags are words
    if [[ $flags == *-d* ]]; then
      dk run $flags --name "regen-$name" sharness-busybox:regen sleep 5 >/dev/null
    else
      dk run --rm $flags --name "regen-$name" sharness-busybox:regen true >/dev/null
    fi
    take "docker-$name"
    dk rm -f "regen-$name" >/dev/null 2>&1
  done
  dk rmi -f sharness-busybox:regen >/dev/null 2>&1
  stop_pid "$(cat "$D/dockerd.pid" 2>/dev/null)"
}

# --- podman -------------------------------------------------------------------------------------
gen_podman() {
  local P=$W/podman case name flags HARD_NOFILE HARD_NPROC
  # Podman 4.3 asks for nofile 1048576 and nproc above the hard limits, which no runtime can raise
  # without CAP_SYS_RESOURCE (this machine has none: DESIGN.md section 7); conformance/clients/
  # podman.sh does the same: the defaults become the hard limits the runtime will have.
  HARD_NOFILE=$(ulimit -Hn); [ "$HARD_NOFILE" = unlimited ] && HARD_NOFILE=1048576
  HARD_NPROC=$(ulimit -Hu); { [ "$HARD_NPROC" = unlimited ] || [ "$HARD_NPROC" -gt 32768 ]; } && HARD_NPROC=32768
  ensure_pkgs podman conmon containernetworking-plugins iptables busybox-static
  mkdir -p "$P"/{root,run,tmp,net,hooks,copytmp,rtstate}
  printf '[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' "$P/root" "$P/run" >"$P/storage.conf"
  echo 'unqualified-search-registries = []' >"$P/registries.conf"
  # the capturing runtime with a private --root (podman calls `delete --force` without flags)
  printf '#!/bin/sh\nexec %q --root %q "$@"\n' "$W/capture" "$P/rtstate" >"$P/runtime"
  chmod 755 "$P/runtime"
  cat >"$P/containers.conf" <<EOF
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$P/events.log"
tmp_dir = "$P/tmp"
static_dir = "$P/root/libpod"
volume_path = "$P/root/volumes"
image_copy_tmp_dir = "$P/copytmp"
hooks_dir = ["$P/hooks"]
lock_type = "file"
runtime = "capture"

[engine.runtimes]
capture = ["$P/runtime"]

[containers]
default_ulimits = ["nofile=$HARD_NOFILE:$HARD_NOFILE", "nproc=$HARD_NPROC:$HARD_NPROC"]

[network]
network_backend = "cni"
cni_plugin_dirs = ["/usr/lib/cni"]
network_config_dir = "$P/net"
default_network = "sharness-regen"
default_subnet = "10.214.$(($$ % 250)).0/24"
EOF
  pm() {
    CONTAINERS_CONF=$P/containers.conf CONTAINERS_STORAGE_CONF=$P/storage.conf \
      CONTAINERS_REGISTRIES_CONF=$P/registries.conf TMPDIR=$P/copytmp \
      timeout -k 5 120 podman --root "$P/root" --runroot "$P/run" --tmpdir "$P/tmp" \
      --cgroup-manager cgroupfs --events-backend file --runtime capture "$@"
  }
  busybox_tar "$W/bb.tar" && pm import -c 'CMD ["sh"]' "$W/bb.tar" localhost/sharness-busybox:regen >/dev/null || return 1
  rm -f "$CAP"/*.json
  for case in "${CLIENT_CASES[@]}"; do
    name=${case%%|*} flags=${case#*|}
    # shellcheck disable=SC2086
    if [[ $flags == *-d* ]]; then
      pm run $flags --cgroup-parent "/$CGPARENT" --name "regen-$name" localhost/sharness-busybox:regen sleep 5 >/dev/null
    else
      pm run --rm $flags --cgroup-parent "/$CGPARENT" --name "regen-$name" localhost/sharness-busybox:regen true >/dev/null
    fi
    take "podman-$name"
    pm rm -f "regen-$name" >/dev/null 2>&1
  done
  pm rmi -f localhost/sharness-busybox:regen >/dev/null 2>&1
  pm system reset -f >/dev/null 2>&1 || true
}

# --- podman, rootless: the same flag sets as a throwaway user with subordinate ids ------------
gen_podman_rootless() {
  local P=$W/podman-rl u=sharness-regen-$$ uid case name flags p
  ensure_pkgs podman conmon uidmap slirp4netns busybox-static
  u=${u:0:31}
  useradd --create-home --home-dir "$P/home" --shell /bin/sh "$u" || return 1
  echo "$u" >"$W/user"
  uid=$(id -u "$u")
  grep -q "^$u:" /etc/subuid || usermod --add-subuids 300000-365535 --add-subgids 300000-365535 "$u"
  mkdir -p "$P"/{run,tmp,cap}
  chown "$u:" "$P" "$P"/{run,tmp,cap}
  chmod 700 "$P/run"
  # the capturing runtime, as that user, into a dir it can write
  sed "s|$CAP/|$P/cap/|" "$W/capture" >"$P/capture"
  chmod 755 "$P/capture"
  cat >"$P/containers.conf" <<EOF
[engine]
events_logger = "file"
cgroup_manager = "cgroupfs"
runtime = "capture"
[engine.runtimes]
capture = ["$P/capture"]
EOF
  chown "$u:" "$P/containers.conf"
  pmu() {
    timeout -k 5 120 setpriv --reuid "$u" --regid "$u" --init-groups --reset-env \
      env HOME="$P/home" XDG_RUNTIME_DIR="$P/run" CONTAINERS_CONF="$P/containers.conf" TMPDIR="$P/tmp" \
      PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c 'cd "$HOME" && exec podman "$@"' podman "$@"
  }
  busybox_tar "$W/bb.tar" && chmod 644 "$W/bb.tar" && cp "$W/bb.tar" "$P/bb.tar" && chown "$u:" "$P/bb.tar"
  pmu import -c 'CMD ["sh"]' "$P/bb.tar" localhost/sharness-busybox:regen >/dev/null || return 1
  for case in "${CLIENT_CASES[@]}"; do
    name=${case%%|*} flags=${case#*|}
    rm -f "$P"/cap/*.json
    # slirp4netns, rootless Podman's default network, cannot open /dev/net/tun as a user on this
    # machine: every rootless config is made with --network none (the rest as for rootful)
    [[ $flags == *--network* ]] || flags+=" --network none"
    # shellcheck disable=SC2086
    if [[ $flags == *-d* ]]; then
      pmu run $flags --name "regen-$name" localhost/sharness-busybox:regen sleep 5 >/dev/null
    else
      pmu run --rm $flags --name "regen-$name" localhost/sharness-busybox:regen true >/dev/null
    fi
    mv "$P"/cap/*.json "$CAP/" 2>/dev/null
    take "podman-rootless-$name"
    pmu rm -f "regen-$name" >/dev/null 2>&1
  done
  pmu system reset -f >/dev/null 2>&1
  for p in $(pgrep -u "$uid"); do stop_pid "$p"; done
}

# --- containerd: ctr run, CRI pod sandbox and container ----------------------------------------
busybox_oci_archive() {  # OUT REF CMD_JSON: a one-layer OCI image archive (as client-lib.bash makes it)
  local out=$1 ref=$2 cmd=$3 dir layer diff cfg man
  dir=$W/oci; rm -rf "$dir"; mkdir -p "$dir/blobs/sha256"
  busybox_tar "$dir/layer.tar"
  diff=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
  gzip -n -c "$dir/layer.tar" >"$dir/l.gz"; layer=$(sha256sum "$dir/l.gz" | cut -d' ' -f1)
  mv "$dir/l.gz" "$dir/blobs/sha256/$layer"
  printf '{"architecture":"amd64","os":"linux","config":{"Cmd":%s,"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$cmd" "$diff" >"$dir/c.json"
  cfg=$(sha256sum "$dir/c.json" | cut -d' ' -f1); mv "$dir/c.json" "$dir/blobs/sha256/$cfg"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%d}]}' \
    "$cfg" "$(stat -c %s "$dir/blobs/sha256/$cfg")" "$layer" "$(stat -c %s "$dir/blobs/sha256/$layer")" >"$dir/m.json"
  man=$(sha256sum "$dir/m.json" | cut -d' ' -f1)
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
    "$man" "$(stat -c %s "$dir/m.json")" "$ref" >"$dir/index.json"
  mv "$dir/m.json" "$dir/blobs/sha256/$man"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
  rm -f "$dir/layer.tar"
  tar -C "$dir" -cf "$out" oci-layout index.json blobs
}

gen_containerd() {
  local C=$W/ctd img=sharness.test/busybox:regen ns=sharness-regen pod ctr_id
  ensure_pkgs containerd python3-grpcio busybox-static
  mkdir -p "$C"/{cni/conf,cni/bin,fifo,rtroot}
  cat >"$C/config.toml" <<EOF
version = 2
root = "$C/root"
state = "$C/state"
[grpc]
  address = "$C/containerd.sock"
[ttrpc]
  address = "$C/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$C/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$img"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
[plugins."io.containerd.grpc.v1.cri".cni]
  conf_dir = "$C/cni/conf"
  bin_dir = "$C/cni/bin"
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "capture"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.capture]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.capture.options]
  BinaryName = "$W/capture"
  Root = "$C/rtroot"
  SystemdCgroup = false
EOF
  containerd --config "$C/config.toml" </dev/null >"$C/containerd.log" 2>&1 &
  echo $! >>"$PIDS"
  c() { timeout -k 5 60 ctr --address "$C/containerd.sock" --namespace "$1" "${@:2}"; }
  wait_for ctr --address "$C/containerd.sock" version || { tail -20 "$C/containerd.log" >&2; return 1; }
  busybox_oci_archive "$W/bb-oci.tar" "$img" '["sh"]'
  c "$ns" image import "$W/bb-oci.tar" >/dev/null || return 1
  # CRI's sandbox ("pause") image must keep running
  busybox_oci_archive "$W/bb-oci.tar" "$img" '["sleep","100000"]'
  c k8s.io image import "$W/bb-oci.tar" >/dev/null || return 1
  rm -f "$CAP"/*.json
  c "$ns" run --runc-binary "$W/capture" --runc-root "$C/rtroot" --fifo-dir "$C/fifo" \
    --cgroup "/$CGPARENT/ctr-run" --rm "$img" regen-ctr true </dev/null >/dev/null
  take ctr-run
  # -t wants a terminal: script(1) gives ctr one
  timeout -k 5 60 script -qec "ctr --address $C/containerd.sock --namespace $ns run --runc-binary $W/capture \
    --runc-root $C/rtroot --fifo-dir $C/fifo --cgroup /$CGPARENT/ctr-run-t --rm -t $img regen-ctr-t true" \
    /dev/null </dev/null >/dev/null 2>&1
  take ctr-run-t
  pod=$(timeout 150 /usr/bin/python3 "$SRC/conformance/tools/cri.py" runp "$C/containerd.sock" capture \
    regen-pod "/$CGPARENT/pod") && take cri-sandbox
  if [ -n "$pod" ]; then
    ctr_id=$(timeout 150 /usr/bin/python3 "$SRC/conformance/tools/cri.py" create "$C/containerd.sock" capture \
      regen-pod "/$CGPARENT/pod" "$pod" "$img" sleep 5) &&
      timeout 150 /usr/bin/python3 "$SRC/conformance/tools/cri.py" start "$C/containerd.sock" "$ctr_id" &&
      take cri-container
    [ -n "$ctr_id" ] && timeout 60 /usr/bin/python3 "$SRC/conformance/tools/cri.py" rm "$C/containerd.sock" "$ctr_id"
    timeout 60 /usr/bin/python3 "$SRC/conformance/tools/cri.py" stopp "$C/containerd.sock" "$pod"
    timeout 60 /usr/bin/python3 "$SRC/conformance/tools/cri.py" rmp "$C/containerd.sock" "$pod"
  fi
  for id in $(c "$ns" container ls -q 2>/dev/null); do c "$ns" container rm "$id" >/dev/null 2>&1; done
}

rc=0
for g in "$@"; do
  case $g in
    spec|docker|podman|podman-rootless|containerd) "gen_${g//-/_}" || { echo "# $g: failed" >&2; rc=1; } ;;
    *) echo "unknown group $g (spec docker podman podman-rootless containerd)" >&2; rc=2 ;;
  esac
done
exit "$rc"
