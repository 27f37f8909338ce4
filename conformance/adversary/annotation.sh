#!/usr/bin/env bash
# The annotation channel: a client names an installed policy in org.sharness.policy
# and tries to loosen the operator's floor (harsh) through every section of it: a role, edges,
# accepts, secrets and the TCP ports edges add (which the floor does not grant), memory, pids,
# cpu, capabilities, network, syscalls, files and exec looser than the floor's, uid 0 over a
# non-root user, gid 0 under a throwaway uid, bad names, and a policy that names another.
#
# Each case: a control with the attempt's policy as the operator's own floor (nothing holds it),
# where its effect shows; then the same policy by annotation under harsh, refused at create with
# the section and harsh's value named (and nothing left), or tightened. Every case uses a private
# policy dir, runtime config, CA and vault under the suite's temp dir, never /etc/sharness.
# Against another runtime (no policies) each case runs only its control: the bundle runs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

HARSH=$SHARNESS_SOURCE_DIR/policies/harsh.json
RT_BASE=("${RT_EXTRA[@]}")
PREFIX='annotation org.sharness.policy: '

# installed: $CASEDIR/policies holding harsh.json (the floor), and a runtime config naming it,
# the case's CA and the suite's vault; sets PDIR and RCONF. [CLIENT_POLICIES_JSON] adds that key.
installed() {
  PDIR=$CASEDIR/policies
  mkdir -p "$PDIR"
  cp "$HARSH" "$PDIR/harsh.json"
  RCONF=$CASEDIR/runtime.json
  jq -n --arg d "$PDIR" --arg ca "$CASEDIR/ca" --arg v "$TMP/kms/vault" --arg k "$TMP/kms/kek" \
    --arg cg "/$CGPARENT/kms" --argjson cp "${1:-null}" \
    '{policyDirs: [$d], caDir: $ca, kms: {vault: $v, kek: $k, cgroupParent: $cg}}
     + (if $cp == null then {} else {clientPolicies: $cp} end)' >"$RCONF"
}

# install NAME JSON_MEMBERS: $PDIR/NAME.json, {"id": NAME, "version": 1, MEMBERS}.
install() { echo "{\"id\": \"$1\", \"version\": 1${2:+, $2}}" >"$PDIR/$1.json"; }

# derive NAME JQ: $PDIR/NAME.json, harsh.json with id NAME and JQ applied.
derive() { jq --arg id "$1" ".id = \$id | $2" "$HARSH" >"$PDIR/$1.json"; }

# as_floor POLICY_FILE: later rt calls run with POLICY_FILE as the operator's floor.
as_floor() { RT_EXTRA=("${RT_BASE[@]}" --config "$RCONF" --policy "$1"); }
# under_harsh: later rt calls run with harsh as the floor.
under_harsh() { RT_EXTRA=("${RT_BASE[@]}" --config "$RCONF" --policy harsh); }
# no_floor: later rt calls run with the runtime config and no floor.
no_floor() { RT_EXTRA=("${RT_BASE[@]}" --config "$RCONF"); }

# annotate BUNDLE NAME: the client's annotation.
annotate() { cfg "$1" '.annotations["org.sharness.policy"] = $n' --arg n "$2"; }

# refused BUNDLE NAME WANT...: create under the current floor with annotation NAME fails, its
# error says NAME is looser than the floor and contains each WANT; nothing is left.
refused() {
  local b=$1 name=$2 id w e
  shift 2
  annotate "$b" "$name"
  id=$(newid try)
  create_in "$b" "$id"
  echo "attempt $name: rc $RC: $ERR"
  [ "$RC" != 0 ] || { fail "create with annotation $name was accepted under the floor"; return 1; }
  e=${ERR//\\\"/\"}  # the log line's msg="..." escapes quotes
  for w in "$@"; do assert_contains "$e" "$w" "the refusal of $name"; done
  assert_nothing_left "$id"
}

# looser BUNDLE NAME SECTION_TEXT: refused, as looser than harsh, naming SECTION_TEXT.
looser() {
  refused "$1" "$2" "${PREFIX}policy \"$2\" is looser than the floor (policy harsh): " "$3"
}

# only_ours BUNDLE: against another runtime, the control is that the bundle runs; stop there.
only_ours() {
  [ "$OURS" = 1 ] && return 0
  assert_control_runs "$1"
  return 1
}

# The probe: what a container reads of its own bounds (cgroup files through its cgroup namespace).
CGREAD='cgread() { for f in "$@"; do [ -r /sys/fs/cgroup/$f ] && { cat /sys/fs/cgroup/$f; return 0; }; done; echo missing; }; '

# ---------------------------------------------------------------------------------------------
# Limits and allowances looser than harsh: each refused, with harsh's value named

case_memory() {
  local b
  installed
  b=$(new_bundle b sh -c "${CGREAD}"'echo "mem=$(cgread memory/memory.limit_in_bytes memory.max)"')
  only_ours "$b" || return 0
  install big '"namespaces": ["cgroup"], "memory": {"limit": "1GiB", "addressSpace": "1GiB"}'
  as_floor "$PDIR/big.json"
  run_in "$b"
  assert_rc 0 "control: big as the floor"
  assert_contains "$OUT" "mem=1073741824" "control: the memory cgroup at big's 1 GiB"
  under_harsh
  looser "$b" big "memory.limit 1 GiB (the floor's: 128 MiB); memory.addressSpace 1 GiB (the floor's: 128 MiB)"
  held "annotation: memory 1 GiB over harsh's 128 MiB" "refused at create: memory.limit (the floor's: 128 MiB)"
}

case_pids() {
  local b
  installed
  b=$(new_bundle b sh -c "${CGREAD}"'echo "pids=$(cgread pids/pids.max pids.max)"')
  only_ours "$b" || return 0
  install forky '"namespaces": ["cgroup"], "pids": {"limit": 1000}'
  as_floor "$PDIR/forky.json"
  run_in "$b"
  assert_rc 0 "control: forky as the floor"
  assert_contains "$OUT" "pids=1000" "control: pids.max at forky's 1000"
  under_harsh
  looser "$b" forky "pids.limit 1000 (the floor's: 4)"
  held "annotation: pids 1000 over harsh's 4" "refused at create: pids.limit (the floor's: 4)"
}

case_cpu() {
  local b
  installed
  b=$(new_bundle b sh -c "${CGREAD}"'echo "quota=$(cgread cpu/cpu.cfs_quota_us cpu.max)"')
  only_ours "$b" || return 0
  install hog '"namespaces": ["cgroup"], "cpu": {"quota": 400000, "period": 100000}'
  as_floor "$PDIR/hog.json"
  run_in "$b"
  assert_rc 0 "control: hog as the floor"
  assert_match "$OUT" "quota=400000" "control: the cpu quota at hog's 4 CPUs"
  under_harsh
  looser "$b" hog "cpu 400000 us per 100000 us (the floor's: 50000 us per 100000 us)"
  held "annotation: 4 CPUs over harsh's half" "refused at create: cpu (the floor's: 50000 us per 100000 us)"
}

case_capabilities() {
  local b
  installed
  b=$(new_bundle b sh -c 'while read -r k v; do [ "$k" = CapEff: ] && echo "capeff=$v"; done </proc/self/status; true')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'
  only_ours "$b" || return 0
  install admin '"identity": {"capabilities": ["CAP_SYS_ADMIN"]}'
  as_floor "$PDIR/admin.json"
  run_in "$b"
  assert_rc 0 "control: admin as the floor"
  assert_contains "$OUT" "capeff=0000000000200000" "control: CAP_SYS_ADMIN effective"
  under_harsh
  looser "$b" admin "identity.capabilities [CAP_SYS_ADMIN] (the floor's: [])"
  held "annotation: CAP_SYS_ADMIN over harsh's none" "refused at create: identity.capabilities (the floor's: [])"
}

case_network() {
  local b
  installed
  b=$(new_bundle b sh -c 'n=0; while read -r l; do n=$((n + 1)); [ $n -gt 2 ] && echo "if=${l%%:*}"; done </proc/net/dev')
  cfg "$b" '.linux.namespaces |= map(select(.type != "network"))'
  only_ours "$b" || return 0
  install hostnet '"network": "host"'
  as_floor "$PDIR/hostnet.json"
  run_in "$b"
  assert_rc 0 "control: hostnet as the floor"
  assert_eq "$(awk -F: 'NR > 2 {gsub(/ /, "", $1); print "if=" $1}' /proc/net/dev | sort | tr '\n' ' ')" \
    "$(sort <<<"$OUT" | tr '\n' ' ')" "control: the host's interfaces"
  under_harsh
  looser "$b" hostnet "network host (the floor's: none)"
  held "annotation: the host network over harsh's none" "refused at create: network (the floor's: none)"
}

case_syscalls() {
  local b
  installed
  b=$(new_bundle b sh -c 'mkfifo /tmp/f && echo fifo-made')
  only_ours "$b" || return 0
  install logonly '"syscalls": {"defaultAction": "log", "allow": ["read"]}'
  as_floor "$PDIR/logonly.json"
  run_in "$b"
  assert_rc 0 "control: logonly as the floor"
  assert_contains "$OUT" "fifo-made" "control: mknod allowed (logged) by logonly"
  under_harsh
  run_in "$b"
  assert_not_contains "$OUT" "fifo-made" "control: harsh alone denies mknod"
  install ptracer '"syscalls": {"allow": ["read", "ptrace", "mknodat"]}'
  under_harsh
  looser "$b" logonly "syscalls.defaultAction log (the floor's: errno)"
  looser "$b" ptracer "syscalls.allow [mknodat, ptrace] (the floor's: an allowlist of"
  held "annotation: seccomp default log, or ptrace allowed, over harsh" "refused at create: syscalls.defaultAction / syscalls.allow"
}

case_files() {
  local b
  installed
  b=$(new_bundle b sh -c 'cat /srv/secret')
  mkdir -p "$b/rootfs/srv"
  echo the-secret >"$b/rootfs/srv/secret"
  only_ours "$b" || return 0
  install everything '"files": {"/": ["execute", "read_file", "read_dir"]}'
  as_floor "$PDIR/everything.json"
  run_in "$b"
  assert_rc 0 "control: everything as the floor"
  assert_eq the-secret "$OUT" "control: /srv/secret readable under everything's files"
  under_harsh
  looser "$b" everything "files / [execute, read_file, read_dir] (the floor's: no right there)"
  held "annotation: Landlock read of / over harsh's files" "refused at create: files / (the floor's: no right there)"
}

case_exec() {
  local b sum
  installed
  # a second copy of busybox, under an applet's name (busybox runs the applet its name says)
  b=$(new_bundle b /opt/echo dropped-ran)
  mkdir -p "$b/rootfs/opt"
  cp "$b/rootfs/bin/busybox" "$b/rootfs/opt/echo"
  only_ours "$b" || return 0
  sum=$(sha256sum "$b/rootfs/opt/echo" | cut -d' ' -f1)
  install dropper "\"exec\": [{\"path\": \"/opt/echo\", \"sha256\": \"$sum\"}]"
  as_floor "$PDIR/dropper.json"
  run_in "$b"
  assert_rc 0 "control: dropper as the floor"
  assert_eq dropped-ran "$OUT" "control: /opt/echo runs under dropper's pins"
  under_harsh
  looser "$b" dropper "exec /opt/echo sha256 ${sum:0:12}… (the floor's: not one of its 1 pins)"
  held "annotation: an exec pin harsh lacks (/opt/echo)" "refused at create: exec /opt/echo (the floor's pins)"
}

case_tmpfs_and_binds() {
  local b
  installed
  b=$(new_bundle b sh -c "if [ -d /host$TMP ]; then echo host-visible; fi")
  only_ours "$b" || return 0
  install hostview '"mounts": {"readonlyBinds": [{"source": "/", "destination": "/host"}], "tmpfs": [{"path": "/tmp", "size": "1GiB", "exec": true}]}'
  as_floor "$PDIR/hostview.json"
  run_in "$b"
  assert_rc 0 "control: hostview as the floor"
  assert_contains "$OUT" host-visible "control: the host's / bound at /host"
  under_harsh
  looser "$b" hostview "mounts.tmpfs /tmp 1 GiB, exec (the floor's: [/tmp 16 MiB]); mounts.readonlyBinds / at /host (the floor's: none)"
  held "annotation: a bind of the host's / and an exec tmpfs" "refused at create: mounts.readonlyBinds, mounts.tmpfs (the floor's)"
}

# uid 0 over a non-root user: a policy's fixed uid 0 keeps the config's non-root uid (even as the
# operator's own floor), and by annotation under harsh it is refused.
case_uid0_over_non_root() {
  local b
  installed
  b=$(new_bundle b sh -c 'echo "ids=$(id -u):$(id -g)"')
  only_ours "$b" || return 0
  install rootpin '"identity": {"uid": 0}'
  install pin5 '"identity": {"uid": 5}'
  # control: a policy's fixed uid replaces the config's (here root's, by uid 5)
  as_floor "$PDIR/pin5.json"
  run_in "$b"
  assert_rc 0 "control: pin5 as the floor"
  assert_contains "$OUT" "ids=5:5" "control: a policy's fixed uid replaces the config's"
  # the config asks for a non-root user (runAsNonRoot): uid 0 from the policy does not replace it
  cfg "$b" '.process.user = {uid: 1000, gid: 1000}'
  as_floor "$PDIR/rootpin.json"
  run_in "$b"
  assert_rc 0 "rootpin over a non-root user"
  assert_contains "$OUT" "ids=1000:1000" "a policy's uid 0 keeps the config's non-root user"
  under_harsh
  looser "$b" rootpin "identity.uid 0 (the floor's: ephemeral)"
  held "uid 0 pinned by a policy over a non-root user; by annotation under harsh" \
    "config's uid 1000 kept; refused at create: identity.uid (the floor's: ephemeral)"
}

# gid 0 under harsh's throwaway uid (whose gid is throwaway too).
case_gid0_under_ephemeral() {
  local b
  installed
  b=$(new_bundle b sh -c 'echo "gid=$(id -g)"')
  only_ours "$b" || return 0
  install rootgroup '"identity": {"gid": 0}'
  # control: the config's gid is 1000; rootgroup as the floor over a root user gives gid 0, and
  # harsh alone gives a throwaway gid
  cfg "$b" '.process.user = {uid: 0, gid: 0}'
  as_floor "$PDIR/rootgroup.json"
  run_in "$b"
  assert_rc 0 "control: rootgroup as the floor"
  assert_contains "$OUT" "gid=0" "control: gid 0 from rootgroup"
  under_harsh
  run_in "$b"
  assert_rc 0 "control: harsh alone"
  assert_match "$OUT" "gid=[1-9][0-9]{9}" "control: harsh's throwaway gid"
  looser "$b" rootgroup "identity.gid 0 (the floor's: ephemeral (with the uid))"
  held "annotation: gid 0 under harsh's throwaway uid" "refused at create: identity.gid (the floor's: ephemeral)"
}

# ---------------------------------------------------------------------------------------------
# Identity and reach the floor does not grant: role, edges, accepts, secrets, edge ports

# A role: with it comes a leaf from the operator's CA (state reports it).
case_role() {
  local b id
  installed
  b=$(new_bundle b true)
  only_ours "$b" || return 0
  install db '"role": "db"'
  as_floor "$PDIR/db.json"
  id=$(newid ctl)
  must_create "$b" "$id"
  assert_eq db "$(rt state "$id" | jq -r '.annotations["org.sharness.edge.role"]')" "control: role db as the floor"
  under_harsh
  looser "$b" db "role \"db\" (the floor's: none)"
  # no floor at all (a node with only a runtime config): no role either
  no_floor
  refused "$b" db "${PREFIX}policy \"db\" is looser than the floor (none, which grants no identity or reach): role \"db\" (the floor's: none)"
  # the operator may let db add its role: then it is db's
  installed '{"db": {"mayAdd": ["role"]}}'
  install db '"role": "db"'
  under_harsh
  annotate "$b" db
  id=$(newid granted)
  must_create "$b" "$id"
  assert_eq db "$(rt state "$id" | jq -r '.annotations["org.sharness.edge.role"]')" "mayAdd role: db's role"
  assert_eq "harsh+db" "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.id"]')" "mayAdd role: the composed id"
  held "annotation: role db (a leaf from the operator's CA), with and without a floor" "refused at create: role (the floor's: none); only clientPolicies.db.mayAdd grants it"
}

# harsh with the role app: the floor for the edge cases (it has no edges).
app_floor() { derive harsh-app '.role = "app"'; }

case_edges() {
  local b
  installed
  app_floor
  b=$(new_bundle b sh -c 'echo "edge=$SHARNESS_EDGE_VAULT"')
  only_ours "$b" || return 0
  install reach '"role": "app", "edges": [{"to": "vault", "over": "unix"}]'
  as_floor "$PDIR/reach.json"
  run_in "$b"
  assert_rc 0 "control: reach as the floor"
  assert_contains "$OUT" "edge=unix:/run/sharness/edges/vault.sock" "control: an edge to vault"
  as_floor harsh-app
  refused "$b" reach "${PREFIX}policy \"reach\" is looser than the floor (policy harsh-app): edges [vault over unix] (the floor's: none)"
  held "annotation: an edge to vault the floor (harsh + role app) lacks" "refused at create: edges (the floor's: none)"
}

case_accepts() {
  local b
  installed
  app_floor
  b=$(new_bundle b sh -c 'echo "service=$SHARNESS_SERVICE"')
  only_ours "$b" || return 0
  install listener '"role": "app", "accepts": {"roles": ["admin"], "over": "unix"}'
  as_floor "$PDIR/listener.json"
  run_in "$b"
  assert_rc 0 "control: listener as the floor"
  assert_contains "$OUT" "service=unix:/run/sharness/service/service.sock" "control: a service accepting admin"
  as_floor harsh-app
  refused "$b" listener "${PREFIX}policy \"listener\" is looser than the floor (policy harsh-app): accepts [admin] over unix (the floor's: none)"
  held "annotation: accepting role admin, which the floor does not" "refused at create: accepts (the floor's: none)"
}

# The TCP port of an edge goes into the Landlock port rules (connect): a port the floor's
# "ports": {} denies.
case_edge_ports() {
  local b id
  installed
  derive loop-app '.role = "app" | .network = "loopback"'
  b=$(new_bundle b true)
  only_ours "$b" || return 0
  install portgrab '"role": "app", "edges": [{"to": "x", "over": "tcp", "port": 22}]'
  jq '.id = "portgrab-floor" | .role = "app" | .network = "loopback" | .edges = [{to: "x", over: "tcp", port: 22}]' \
    "$HARSH" >"$CASEDIR/portgrab-floor.json"
  as_floor "$CASEDIR/portgrab-floor.json"
  id=$(newid ctl)
  must_create "$b" "$id"
  assert_eq '[22]' "$(jq -c '[.sharness.landlock.rules.netPort[]? | select(.allowedAccess == ["connect_tcp"]) | .ports[]]' \
    "$STATE/$id/config.json")" "control: port 22 in the Landlock connect rules"
  as_floor loop-app
  refused "$b" portgrab "${PREFIX}policy \"portgrab\" is looser than the floor (policy loop-app): edges [x over tcp port 22] (the floor's: none)"
  held "annotation: a TCP edge adding connect port 22 to harsh's empty port rules" "refused at create: edges (the floor's: none)"
}

# secrets: keys derived from the operator's vault, through a KMS the runtime starts.
kms_vault() {
  [ -s "$TMP/kms/vault" ] && return 0
  mkdir -p "$TMP/kms"
  openssl rand -hex 32 >"$TMP/kms/db.master"
  rt kms seal --kek "$TMP/kms/kek" --out "$TMP/kms/vault" db="$TMP/kms/db.master" >"$CASEDIR/seal.log" 2>&1 ||
    { fail "kms seal: $(<"$CASEDIR/seal.log")"; return 1; }
  rm -f "$TMP/kms/db.master"
}

case_secrets() {
  local b id
  installed
  app_floor
  b=$(new_bundle b true)
  only_ours "$b" || return 0
  kms_vault
  install keys '"role": "app", "secrets": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600}'
  as_floor "$PDIR/keys.json"
  id=$(newid ctl)
  must_create "$b" "$id"
  assert_eq '["db"]' "$(jq -c .sharness.secrets.vaults "$STATE/$id/config.json")" "control: a KMS over vault db"
  [ -s "$STATE/$id/kms/kms.json" ] || fail "control: no KMS config for $id"
  _run_cmd rt delete --force "$id"
  as_floor harsh-app
  refused "$b" keys "${PREFIX}policy \"keys\" is looser than the floor (policy harsh-app): secrets vaults [db] (the floor's: none)"
  held "annotation: secrets from the operator's vault db" "refused at create: secrets (the floor's: none)"
}

# ---------------------------------------------------------------------------------------------
# Names

case_bad_names() {
  local b a id n=0
  installed
  b=$(new_bundle b true)
  only_ours "$b" || return 0
  install strict '"memory": {"limit": "64MiB"}'
  under_harsh
  annotate "$b" strict
  run_in "$b"
  assert_rc 0 "control: a good name (strict) under harsh"
  refused "$b" "" "${PREFIX}\"\": empty (name an installed policy, or leave the annotation out)"
  for a in / .. . ../policies/strict "$PDIR/strict.json" a/b; do
    refused "$b" "$a" "${PREFIX}\"$a\" is not a policy name (a client names an installed policy, never a path)"
  done
  refused "$b" nosuch "${PREFIX}policy \"nosuch\": not found in the policy directories ($PDIR)"
  # clientPolicies lists what may be named at all
  installed '{"harsh": {}}'
  install strict '"memory": {"limit": "64MiB"}'
  refused "$b" strict "${PREFIX}policy \"strict\" is not one a client may name (the runtime config's clientPolicies: harsh)"
  held "annotation: empty, /, .., ., a path, a/b, a missing name, an unlisted name" "refused at create, each with its reason"
}

# A policy that names another: an installed file carrying the floor's id (state would say
# "harsh"), and the floor itself by name (state must give harsh's own hash).
case_policy_names_another() {
  local b id hash
  installed
  b=$(new_bundle b true)
  only_ours "$b" || return 0
  jq '.pids.limit = 2' "$HARSH" >"$PDIR/twin.json"  # id "harsh", another document
  as_floor "$PDIR/twin.json"
  id=$(newid ctl)
  must_create "$b" "$id"
  assert_eq harsh "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.id"]')" "control: twin alone reports id harsh"
  under_harsh
  refused "$b" twin "${PREFIX}policy \"twin\" has the id \"harsh\": a policy a client names must carry its file's name as its id"
  hash=$(rt policy hash "$PDIR/harsh.json")
  annotate "$b" harsh
  id=$(newid self)
  must_create "$b" "$id"
  assert_eq harsh "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.id"]')" "the floor by name: its id"
  assert_eq "$hash" "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.hash"]')" "the floor by name: its own hash"
  held "annotation: a file with the floor's id; the floor by its own name" "refused (id is not its name); the floor's own id and hash"
}

tcase "memory looser than the floor" case_memory
tcase "pids looser than the floor" case_pids
tcase "cpu looser than the floor" case_cpu
tcase "capabilities the floor lacks" case_capabilities
tcase "the host network under an empty-netns floor" case_network
tcase "a milder seccomp default, a syscall the floor lacks" case_syscalls
tcase "Landlock files beyond the floor's" case_files
tcase "an exec pin the floor lacks" case_exec
tcase "a tmpfs and a read-only bind the floor lacks" case_tmpfs_and_binds
tcase "uid 0 over a non-root user" case_uid0_over_non_root
tcase "gid 0 under a throwaway uid" case_gid0_under_ephemeral
tcase "a role the floor lacks (with and without a floor; mayAdd)" case_role
tcase "an edge the floor lacks" case_edges
tcase "accepted roles the floor lacks" case_accepts
tcase "the TCP port of an edge the floor lacks" case_edge_ports
tcase "secrets the floor lacks" case_secrets
tcase "bad names" case_bad_names
tcase "a policy that names another" case_policy_names_another
adversary_finish
