#!/usr/bin/env bash
# AppArmor (Debian and Ubuntu hosts): a config's process.apparmorProfile is applied at the
# container's execve, seen from inside in /proc/self/attr/current and attr/apparmor/current, and
# what the profile denies is denied (control: the same action without it succeeds); exec gets the
# container's profile; Docker's docker-default (the profile dockerd loads, from its template,
# unless one is loaded already) holds mount; a profile that is not loaded is refused at create.
# The suite loads its own test profile with apparmor_parser and unloads what it loaded on exit.
# A host without AppArmor (or without apparmor_parser) skips every case: the kernel lacks it.
. "$(dirname "$0")/../lib.sh"

PROFILE=sharness-test-$$
AA_LOADED=()  # profile files this run loaded (removed on exit)

aa_enabled() {
  [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] && command -v apparmor_parser >/dev/null
}
need_aa() {
  aa_enabled || skip "no AppArmor on this host (module parameter enabled: $(cat /sys/module/apparmor/parameters/enabled 2>/dev/null || echo absent); apparmor_parser: $(command -v apparmor_parser || echo absent))"
}
aa_is_loaded() { grep -q "^$1 (" /sys/kernel/security/apparmor/profiles 2>/dev/null; }

# aa_load FILE: load a profile file (replacing one of that name), remembered for unloading.
aa_load() {
  apparmor_parser -r -W "$1" || return 1
  AA_LOADED+=("$1")
}
_aa_unload() {
  local f
  for f in "${AA_LOADED[@]}"; do apparmor_parser -R "$f" >/dev/null 2>&1 || true; done
}
trap '_st=$?; [ "$BASHPID" = "$$" ] && _aa_unload; (exit $_st); _cleanup' EXIT

# The test profile: everything allowed but reading /denied.txt. Paths are the container's
# (attach_disconnected: relative to its mount namespace's root).
if aa_enabled; then
  cat >"$TMP/$PROFILE.aa" <<EOF
profile $PROFILE flags=(attach_disconnected,mediate_deleted) {
  file,
  capability,
  network,
  signal,
  unix,
  deny /denied.txt r,
}
EOF
  aa_load "$TMP/$PROFILE.aa" || echo "# apparmor_parser could not load $TMP/$PROFILE.aa" >&2
  # docker-default as dockerd writes it (moby profiles/apparmor/template.go), unless dockerd
  # (or anyone) loaded one already: that one is used as it is, and left loaded.
  if ! aa_is_loaded docker-default; then
    aa_load "$SHARNESS_SOURCE_DIR/conformance/fixtures/docker-default.apparmor" ||
      echo "# apparmor_parser could not load docker-default" >&2
  fi
fi

READS='cat /proc/self/attr/current; echo; cat /proc/self/attr/apparmor/current 2>/dev/null || echo no-per-lsm-attr; echo
       cat /denied.txt 2>/dev/null || echo read-refused'

# ---------------------------------------------------------------------------------------------

case_config_profile_applied() {
  need_aa
  local b
  b=$(new_bundle b sh -c "$READS")
  echo secret >"$b/rootfs/denied.txt"
  cfg "$b" --arg p "$PROFILE" '.process.apparmorProfile = $p'
  run_in "$b"
  assert_rc 0 "run under $PROFILE"
  assert_eq "$PROFILE (enforce)"$'\n'"$PROFILE (enforce)"$'\nread-refused' "$(sed '/^$/d' <<<"$OUT")" \
    "attr/current, attr/apparmor/current, then reading /denied.txt"
  # control: without the profile the process is unconfined and the read works
  cfg "$b" 'del(.process.apparmorProfile)'
  run_in "$b"
  assert_rc 0 "run without a profile"
  assert_eq $'unconfined\nunconfined\nsecret' "$(sed '/^$/d' <<<"$OUT")" "the same without apparmorProfile"
}

case_exec_gets_profile() {
  need_aa
  local b id
  b=$(new_bundle b sleep 1000)
  cfg "$b" --arg p "$PROFILE" '.process.apparmorProfile = $p'
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec "$id" cat /proc/self/attr/current
  assert_eq 0 "$CMD_RC" "exec: $CMD_OUT"
  assert_eq "$PROFILE (enforce)" "$(tr -d '\0' <<<"$CMD_OUT")" "an exec'd process's attr/current"
}

case_docker_default() {
  need_aa
  local b
  aa_is_loaded docker-default || fail "docker-default is not loaded"
  b=$(new_bundle b sh -c 'cat /proc/self/attr/current; echo; mkdir -p /mnt/t
                          mount -t tmpfs t /mnt/t 2>/dev/null && echo mounted || echo mount-refused')
  cfg "$b" '.process.apparmorProfile = "docker-default"
            | .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'
  run_in "$b"
  assert_rc 0 "run under docker-default"
  assert_eq $'docker-default (enforce)\nmount-refused' "$(sed '/^$/d' <<<"$OUT")" "attr/current and mount under docker-default"
  cfg "$b" 'del(.process.apparmorProfile)'
  run_in "$b"
  assert_eq $'unconfined\nmounted' "$(sed '/^$/d' <<<"$OUT")" "control: the same mount without the profile"
}

case_profile_not_loaded() {
  need_aa
  local b id
  b=$(new_bundle b true)
  cfg "$b" --arg p "sharness-absent-$$" '.process.apparmorProfile = $p'
  id=$(newid absent)
  create_in "$b" "$id"
  if [ "$OURS" = 1 ]; then
    assert_ne 0 "$RC" "create with a profile that is not loaded"
    assert_contains "$ERR" "sharness-absent-$$" "the error names the profile"
    assert_contains "$ERR" "not loaded" "the error says why"
  elif [ "$RC" = 0 ]; then  # other runtimes may only find out at start: it must fail there
    _run_cmd rt start "$id"
    assert_ne 0 "$CMD_RC" "start with a profile that is not loaded"
  fi
  # control: the loaded test profile creates and runs
  cfg "$b" --arg p "$PROFILE" '.process.apparmorProfile = $p'
  run_in "$b"
  assert_rc 0 "run with the loaded $PROFILE"
}

tcase "apparmorProfile: applied (attr/current, attr/apparmor/current), its deny holds; control unconfined" case_config_profile_applied
tcase "apparmorProfile: an exec'd process gets the container's profile" case_exec_gets_profile
tcase "docker-default: applied, mount refused; control: mount works unconfined" case_docker_default
tcase "apparmorProfile not loaded: refused at create, naming it; control: a loaded one runs" case_profile_not_loaded
finish
