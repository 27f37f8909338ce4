#!/usr/bin/env bash
# Adversary: claims and JSON tricks ("Only the runtime writes policy claims", "JSON with
# one reading"). The client writes config.json and tries to loosen the floor, or to be believed,
# through what it can put there:
#   - a forged "sharness" block (a role, which would get a leaf from the operator's CA; secrets,
#     which would get a KMS over the operator's vault; harsh's id and hash over a seccomp that
#     allows everything);
#   - forged org.sharness.policy.id/hash annotations (`state` must not show them);
#   - hooks in config.json (they run on the host, as root) under a floor that forbids them;
#   - config.json fields asking for more than the floor (capabilities, namespaces joined by path,
#     the host network, a writable bind of a host directory);
#   - deep and commented JSON (nesting past 100 levels hidden in comments, a key hidden by a
#     comment from one reader).
# Each case runs its control first: the same request where nothing holds it (a runtime config
# that trusts the bundle's author, a floor without the field, no floor, or no comment), which
# must succeed. Against another runtime (runc, crun: no policies, no claims) only the controls run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/adversary-lib.bash"

HARSH=$SHARNESS_SOURCE_DIR/policies/harsh.json
RT_BASE=("${RT_EXTRA[@]}")

# with_rt ARGS...: later `rt` calls of this case get these global options (a case is a subshell).
with_rt() { RT_EXTRA=("${RT_BASE[@]}" "$@"); }

# runtime_config [JQ_FILTER]: a runtime config of this case ($CASEDIR/runtime.json), edited by
# the filter, its CA under the case dir; prints its path.
runtime_config() {
  # the KMS's cgroups go under this run's parent, which the suite's teardown removes
  jq -n --arg ca "$CASEDIR/ca" --arg v "$CASEDIR/no-vault" --arg k "$CASEDIR/no-kek" --arg cg "/$CGPARENT/kms" \
    '{caDir: $ca, kms: {vault: $v, kek: $k, cgroupParent: $cg}} | '"${1:-.}" >"$CASEDIR/runtime.json"
  echo "$CASEDIR/runtime.json"
}

# applied BUNDLE POLICY_JSON: what `policy apply` writes for POLICY_JSON (a jq filter over harsh),
# the forger's tool: anyone can run `policy apply` on a copy of their config.
applied() {
  local b=$1 pol=$CASEDIR/forge-$RANDOM.json
  jq "$2" "$HARSH" >"$pol"
  _run_cmd "$RUNTIME" policy apply --policy "$pol" --bundle "$b"
  assert_eq 0 "$CMD_RC" "policy apply (the forger's block): $CMD_OUT"
}

# trusted_create BUNDLE ID: create_in under a runtime config that trusts the bundle's author (the
# controls). A runtime without the key (older ones) trusted every bundle: it gets the
# default runtime config instead, so its control shows the same belief.
trusted_create() {
  with_rt --config "$(runtime_config '.trustBundleClaims = true')"
  create_in "$1" "$2"
  if [ "$RC" != 0 ] && [[ $ERR == *"trustBundleClaims: unknown key"* ]]; then
    echo "(no trustBundleClaims in this runtime: it trusts every bundle)"
    with_rt --config "$(runtime_config)"
    create_in "$1" "$2"
  fi
}

# only_ours: the rest of the case is the attempt, which needs our runtime's policy layer.
only_ours() { [ "$OURS" = 1 ]; }

# ---------------------------------------------------------------------------------------------
# Forged "sharness" blocks

case_forged_block_role() {
  local b id rc st
  b=$(new_bundle b true)
  if ! only_ours; then assert_control_runs "$b"; return 0; fi
  applied "$b" '.id = "db" | .role = "db"'
  assert_eq db "$(jq -r .sharness.edges.role "$b/config.json")" "the forged block names role db"
  # control: where the runtime config trusts the bundle's author, the block is believed: the
  # container gets the db identity, a leaf from the operator's CA.
  id=$(newid trusted)
  trusted_create "$b" "$id"
  assert_eq 0 "$RC" "control: create of the trusted block: $ERR"
  st=$(rt state "$id")
  assert_eq db "$(jq -r '.annotations["org.sharness.edge.role"]' <<<"$st")" "control: the trusted block's role"
  assert_match "$(jq -r '.annotations["org.sharness.identity.uri"]' <<<"$st")" "/role/db/$id\$" "control: a leaf for role db"
  rt delete --force "$id" >/dev/null 2>&1
  # attempt: the default runtime config, no floor: refused, naming the block
  rc=$(runtime_config)
  with_rt --config "$rc"
  id=$(newid forged)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a forged sharness block (role db)"
  assert_contains "$ERR" "config.json: sharness: a policy claim"
  assert_nothing_left "$id"
  held "forged sharness block: role db (a leaf from the operator's CA)" "refused at create: config.json: sharness"
}

case_forged_block_secrets() {
  local b id rc
  b=$(new_bundle b true)
  if ! only_ours; then assert_control_runs "$b"; return 0; fi
  applied "$b" '.id = "vault" | .role = "app" |
    .secrets = {vaults: ["db"], hosts: ["db.internal"], operations: ["read"], ttl: 600}'
  assert_eq '["db"]' "$(jq -c .sharness.secrets.vaults "$b/config.json")" "the forged block asks for vault db"
  # control: trusted, the block's secrets are acted on: create provisions a KMS over the
  # operator's vault (here a vault path that does not exist, so it stops there, naming it).
  id=$(newid trusted)
  trusted_create "$b" "$id"
  echo "trusted create: rc $RC: $ERR"
  assert_match "$ERR" "secrets|sharness-kms start: open .*no-vault" "control: create acted on the block's secrets (a KMS over the vault)"
  # attempt: refused before anything of the KMS is looked at
  rc=$(runtime_config)
  with_rt --config "$rc"
  id=$(newid forged)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a forged sharness block (secrets)"
  assert_contains "$ERR" "config.json: sharness: a policy claim"
  assert_not_contains "$ERR" "no-vault" "the refusal comes before the vault"
  assert_nothing_left "$id"
  held "forged sharness block: secrets (a KMS over the operator's vault)" "refused at create: config.json: sharness"
}

case_forged_block_looser_seccomp() {
  local b id rc st hash
  b=$(new_bundle b sh -c 'echo "id=$SHARNESS_POLICY_ID"')
  if ! only_ours; then assert_control_runs "$b"; return 0; fi
  hash=$("$RUNTIME" policy hash "$HARSH")
  applied "$b" '.'
  # harsh's id and hash over a filter that allows every syscall, and no Landlock, pins or uid
  cfg "$b" '.sharness.seccomp = {defaultAction: "SCMP_ACT_ALLOW"} | del(.sharness.landlock, .sharness.landlockStandIns, .sharness.exec) |
            .sharness.ephemeralUid = false | .sharness.ephemeralGid = false'
  # control: trusted, create believes it: state says harsh, with harsh's hash
  id=$(newid trusted)
  trusted_create "$b" "$id"
  assert_eq 0 "$RC" "control: create of the trusted block: $ERR"
  st=$(rt state "$id")
  assert_eq harsh "$(jq -r '.annotations["org.sharness.policy.id"]' <<<"$st")" "control: state believes the block"
  assert_eq "$hash" "$(jq -r '.annotations["org.sharness.policy.hash"]' <<<"$st")" "control: and its hash"
  rt delete --force "$id" >/dev/null 2>&1
  # attempt: refused
  with_rt --config "$(runtime_config)"
  id=$(newid forged)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a forged block claiming harsh over an allow-all seccomp"
  assert_contains "$ERR" "config.json: sharness: a policy claim"
  assert_nothing_left "$id"
  held "forged sharness block: harsh's id and hash over an allow-all seccomp" "refused at create: config.json: sharness"
}

# ---------------------------------------------------------------------------------------------
# Forged annotations

case_forged_policy_annotations() {
  local b b2 id st hash
  hash=$(sha256sum "$HARSH" | cut -d' ' -f1)
  b=$(new_bundle b sh -c 'sleep 30')
  cfg "$b" '.annotations["org.sharness.policy.id"] = "harsh" | .annotations["org.sharness.policy.hash"] = $h' --arg h "$hash"
  # control: a runtime that copies the config's annotations into `state` (runc; ours when the
  # runtime config trusts the bundle's author, before this change) shows the forged claim.
  if ! only_ours; then
    id=$(newid control)
    must_create "$b" "$id"
    assert_eq harsh "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.id"]')" \
      "control: $RUNTIME_NAME's state shows the config's own annotation"
    return 0
  fi
  # control: under a real floor, state carries the floor's id: what a reader of state believes
  with_rt --policy "$HARSH" --config "$(runtime_config)"
  b2=$(new_bundle b2 sh -c 'sleep 30')
  id=$(newid floor)
  must_create "$b2" "$id"
  assert_eq harsh "$(rt state "$id" | jq -r '.annotations["org.sharness.policy.id"]')" "control: state under --policy harsh"
  rt delete --force "$id" >/dev/null 2>&1
  # attempt 1: no floor, default runtime config: refused, naming the annotation
  with_rt --config "$(runtime_config)"
  id=$(newid forged)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with forged org.sharness.policy.* annotations"
  assert_contains "$ERR" "config.json: annotations.org.sharness.policy."
  assert_nothing_left "$id"
  # attempt 2: a runtime config that trusts bundles still reports only what create enforced
  # (nothing: no policy, no block), never the config's own annotations
  with_rt --config "$(runtime_config '.trustBundleClaims = true')"
  id=$(newid trusted)
  must_create "$b" "$id"
  st=$(rt state "$id")
  assert_eq null "$(jq -r '.annotations["org.sharness.policy.id"]' <<<"$st")" "state: no forged policy id"
  assert_eq null "$(jq -r '.annotations["org.sharness.policy.hash"]' <<<"$st")" "state: no forged policy hash"
  # attempt 3: a forged identity annotation
  cfg "$b" 'del(.annotations) | .annotations["org.sharness.edge.role"] = "db"'
  with_rt --config "$(runtime_config)"
  id=$(newid role)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a forged org.sharness.edge.role"
  assert_contains "$ERR" "config.json: annotations.org.sharness.edge.role"
  held "forged org.sharness.policy.id/hash and edge.role annotations" "refused at create; state shows only what create enforced"
}

# ---------------------------------------------------------------------------------------------
# Hooks in config.json under a floor that forbids them

case_config_hooks_under_floor() {
  local b id kind mark=$CASEDIR/hook-ran nohooks
  b=$(new_bundle b true)
  cfg "$b" '.hooks.prestart = [{path: "/bin/sh", args: ["sh", "-c", "echo root-on-the-host > \($m)"]}]' --arg m "$mark"
  # control: a floor without the field (harsh, as for Docker), or no floor: the hook runs on the
  # host, as root
  if only_ours; then with_rt --policy "$HARSH"; fi
  id=$(newid control)
  run_in "$b" "$id"
  assert_eq 0 "$RC" "control: run with a prestart hook: $ERR"
  assert_eq root-on-the-host "$(cat "$mark" 2>/dev/null)" "control: the hook ran on the host"
  only_ours || return 0
  rm -f "$mark"
  nohooks=$CASEDIR/harsh-nohooks.json
  jq '.id = "harsh-nohooks" | .hooks = {fromConfig: false}' "$HARSH" >"$nohooks"
  for kind in prestart createRuntime createContainer startContainer poststart poststop; do
    cfg "$b" 'del(.hooks) | .hooks[$k] = [{path: "/bin/sh", args: ["sh", "-c", "echo root-on-the-host > \($m)"]}]' \
      --arg m "$mark" --arg k "$kind"
    with_rt --policy "$nohooks"
    id=$(newid "h$kind")
    create_in "$b" "$id"
    assert_ne 0 "$RC" "create with a $kind hook under hooks.fromConfig false"
    assert_contains "$ERR" "config.json: hooks.${kind}[0]: refused"
    [ ! -e "$mark" ] || fail "the $kind hook ran: $(<"$mark")"
    assert_nothing_left "$id"
  done
  # and through `policy apply`
  _run_cmd "$RUNTIME" policy apply --policy "$nohooks" --bundle "$b"
  assert_ne 0 "$CMD_RC" "policy apply of hooks.fromConfig false over a config with hooks"
  assert_contains "$CMD_OUT" "hooks.poststop[0]: refused"
  held "hooks in config.json (host, root) under hooks.fromConfig false" "refused at create and by policy apply"
}

# ---------------------------------------------------------------------------------------------
# config.json fields asking for more than the floor

PROBE='while read -r k v; do case $k in CapEff:) echo "cap=$v";; esac; done </proc/self/status
i=""; n=0; while read -r l; do n=$((n + 1)); [ $n -gt 2 ] && i="$i${l%%:*} "; done </proc/net/dev; echo "ifaces=$i"
echo "pidns=$(readlink /proc/self/ns/pid)"
echo x 2>/dev/null >/host/w && echo "host=rw" || echo "host=ro"'

case_config_fields_cannot_loosen() {
  local b id host=$CASEDIR/hostdir all
  mkdir -p "$host"
  chmod 0777 "$host"
  all='["CAP_SYS_ADMIN","CAP_NET_ADMIN","CAP_SYS_PTRACE","CAP_DAC_OVERRIDE"]'
  b=$(new_bundle b sh -c "$PROBE")
  cfg "$b" --argjson c "$all" --arg h "$host" --arg net "/proc/$HOST_PID/ns/net" --arg pid "/proc/$HOST_PID/ns/pid" '
    .process.capabilities = {bounding: $c, effective: $c, permitted: $c} |
    .linux.namespaces = [(.linux.namespaces[] | select(.type != "network" and .type != "pid")),
                         {type: "network", path: $net}, {type: "pid", path: $pid}] |
    .mounts += [{destination: "/host", type: "bind", source: $h, options: ["rbind", "rw"]}]'
  # control: no floor: the capabilities, the host network and pid namespace, a writable host dir
  id=$(newid control)
  run_in "$b" "$id"
  echo "no floor: $(tr '\n' ' ' <<<"$OUT")"
  assert_eq 0 "$RC" "control run: $ERR"
  assert_ne "cap=0000000000000000" "$(grep '^cap=' <<<"$OUT")" "control: capabilities granted"
  assert_ne "ifaces=lo " "$(grep '^ifaces=' <<<"$OUT")" "control: the host's interfaces"
  assert_contains "$OUT" "pidns=$(host_ns pid)" "control: the host's pid namespace"
  assert_contains "$OUT" "host=rw" "control: the host dir is writable"
  only_ours || return 0
  rm -f "$host/w"
  # attempt: the same config under harsh
  with_rt --policy "$HARSH"
  id=$(newid harsh)
  run_in "$b" "$id"
  echo "harsh: $(tr '\n' ' ' <<<"$OUT")"
  assert_eq 0 "$RC" "run under harsh: $ERR"
  assert_contains "$OUT" "cap=0000000000000000" "no capabilities"
  assert_contains "$OUT" $'ifaces=lo \n' "only lo (the network join replaced)"
  assert_not_contains "$OUT" "pidns=$(host_ns pid)" "a new pid namespace (the join replaced)"
  assert_contains "$OUT" "host=ro" "the bind is read-only"
  [ ! -e "$host/w" ] || fail "the container wrote $host/w"
  held "config.json: capabilities, network/pid joined by path, rw bind of a host dir" "tightened to harsh: no caps, new netns and pidns, ro bind"
}

# ---------------------------------------------------------------------------------------------
# Deep and commented JSON

# interleaved N: N levels of arrays, each followed by a comment holding a closing bracket, so a
# scan that does not know comments counts [ ] [ ] ... (depth 1) while yajl counts N.
interleaved() {
  local n=$1 s
  s=$(printf '[/*]*/%.0s' $(seq "$n"))
  printf '%s%s' "$s" "$(printf ']%.0s' $(seq "$n"))"
}

case_deep_json_in_comments() {
  local b id text n
  b=$(new_bundle b sh -c 'echo ran')
  # control: the same document, deep but within the limit and without comments, runs
  cfg "$b" --argjson d "$(printf '[%.0s' $(seq 90))$(printf ']%.0s' $(seq 90))" '.x = $d'
  id=$(newid control)
  run_in "$b" "$id"
  assert_eq 0 "$RC" "control: 90 levels, no comment: $ERR"
  assert_eq ran "$OUT"
  only_ours || return 0
  # attempt: 100000 levels hidden from the depth scan by comments (was a stack overflow in the
  # duplicate-key walk), then 150 levels under "sharness" (was yajl's generator writing past
  # its 128-entry state array), then 150 levels inside a comment
  text=$(jq -c 'del(.x)' "$b/config.json")
  for n in 100000 150; do
    printf '%s,"x":%s}' "${text%\}}" "$(interleaved "$n")" >"$b/config.json"
    id=$(newid deep$n)
    create_in "$b" "$id"
    assert_ne 0 "$RC" "create with $n levels hidden in comments"
    [ "$RC" -lt 128 ] || fail "create died of a signal (exit $RC) on $n levels hidden in comments"
    assert_contains "$ERR" "config.json: invalid JSON: a comment at byte"
    assert_nothing_left "$id"
    printf '%s,"sharness":{"a":%s}}' "${text%\}}" "$(interleaved "$n")" >"$b/config.json"
    id=$(newid block$n)
    create_in "$b" "$id"
    assert_ne 0 "$RC" "create with $n levels in a sharness block, hidden in comments"
    [ "$RC" -lt 128 ] || fail "create died of a signal (exit $RC) on a sharness block $n levels deep"
    assert_contains "$ERR" "config.json: invalid JSON: a comment at byte"
  done
  printf '%s,"x":{"a":/* %s */1}}' "${text%\}}" "$(printf '[%.0s' $(seq 150))" >"$b/config.json"
  id=$(newid inside)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with 150 brackets inside a comment"
  assert_contains "$ERR" "config.json: invalid JSON: a comment at byte"
  held "JSON nested past 100 levels behind comments (config, sharness block)" "refused: a comment is not JSON"
}

case_comment_hides_a_key() {
  local b id text
  b=$(new_bundle b sh -c 'hostname')
  # control: without a comment, the hostname the config names
  cfg "$b" '.hostname = "good"'
  id=$(newid control)
  run_in "$b" "$id"
  assert_eq 0 "$RC" "control: $ERR"
  assert_eq good "$OUT" "control: the config's hostname"
  only_ours || return 0
  # attempt: a second hostname inside a comment. A reader that strips comments as text (or reads
  # them as yajl did) sees one key; Go's decoder refuses the document; a comment-blind scanner
  # sees two. One document, one reading: refused.
  text=$(jq -c 'del(.hostname)' "$b/config.json")
  printf '%s,/* "hostname": "evil", */"hostname":"good"}' "${text%\}}" >"$b/config.json"
  id=$(newid hidden)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a key hidden in a comment"
  assert_contains "$ERR" "config.json: invalid JSON: a comment at byte"
  # and a line comment, and a comment in a policy (the floor) and in the runtime config
  printf '%s,"hostname":"good" // ,"hostname":"evil"\n}' "${text%\}}" >"$b/config.json"
  id=$(newid line)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a // comment"
  assert_contains "$ERR" "invalid JSON: a comment at byte"
  printf '{"id": "c", /* "pids": {"limit": 100000}, */ "version": 1}' >"$CASEDIR/commented-policy.json"
  _run_cmd "$RUNTIME" policy hash "$CASEDIR/commented-policy.json"
  assert_ne 0 "$CMD_RC" "policy hash of a commented policy"
  assert_contains "$CMD_OUT" "invalid JSON: a comment at byte"
  printf '{/* "trustBundleClaims": true */}' >"$CASEDIR/commented-runtime.json"
  printf '%s,"hostname":"good"}' "${text%\}}" >"$b/config.json"
  with_rt --config "$CASEDIR/commented-runtime.json"
  id=$(newid rc)
  create_in "$b" "$id"
  assert_ne 0 "$RC" "create with a commented runtime config"
  assert_contains "$ERR" "invalid JSON: a comment at byte"
  held "a key hidden by a comment (config.json, policy, runtime config)" "refused: a comment is not JSON"
}

tcase "forged sharness block with a role: refused unless the runtime config trusts bundles" case_forged_block_role
tcase "forged sharness block with secrets: refused before any KMS is made" case_forged_block_secrets
tcase "forged sharness block claiming harsh over an allow-all seccomp: refused" case_forged_block_looser_seccomp
tcase "forged org.sharness.* annotations: refused; state shows only what create enforced" case_forged_policy_annotations
tcase "hooks in config.json under hooks.fromConfig false: refused, none runs" case_config_hooks_under_floor
tcase "config.json caps, joined namespaces, host network, rw bind: tightened by the floor" case_config_fields_cannot_loosen
tcase "nesting past 100 levels hidden in comments: refused, no crash" case_deep_json_in_comments
tcase "a key hidden by a comment: refused in config, policy and runtime config" case_comment_hides_a_key
adversary_finish
