#!/usr/bin/env bash
# Adversarial: a caller that runs the runtime unprivileged (rootless), hoping the operator's floor
# degrades to what an unprivileged user can have. The floor (--policy) is the operator's; the
# caller is a user the suite creates (conformance/rootless-lib.bash). Each attempt has a control:
# the same rootless run under a floor without the bound runs, so a refusal is the bound's.
#   - a floor with a wall clock, no cgroup delegated to the user: the watchdog needs the cgroup,
#     so create fails naming the wall clock (never a container without its clock);
#   - a floor with a pids limit, no delegation: fails naming the limits (never dropped);
#   - a floor with a throwaway host uid (harsh): refused as needing root, not run as the user.
# Against another runtime (no policies) each case runs its control only.
. "$(dirname "$0")/../lib.sh"
. "$SHARNESS_SOURCE_DIR/conformance/clients/client-lib.bash"
. "$(dirname "$0")/adversary-lib.bash"
. "$SHARNESS_SOURCE_DIR/conformance/rootless-lib.bash"

# policy FILE JSON: a floor the user can read.
policy() { printf '%s\n' "$2" >"$TMP/$1.json"; chmod 0644 "$TMP/$1.json"; echo "$TMP/$1.json"; }
PLAIN=$(policy plain '{"id": "plain", "version": 1}')

# control BUNDLE: the rootless run under a floor without the bound (plain for ours, none for others).
control() {
  if [ "$OURS" = 1 ]; then urun "$1" --policy "$PLAIN"; else urun "$1"; fi
  assert_rc 0 "control: the same rootless run without the bound"
  [ "$OURS" = 1 ] || return 0
  assert_line "$OUT" '^plain$' "control: it ran under the plain floor"
}

case_wall_clock() {
  ubundle wc sh -c 'echo "$SHARNESS_POLICY_ID"'
  control "$B"
  [ "$OURS" = 1 ] || return 0
  urun "$B" --policy "$(policy wallclock '{"id": "wallclock", "version": 1, "wallClock": {"seconds": 30}}')"
  assert_ne 0 "$RC" "a wall-clock floor, rootless, no delegated cgroup"
  assert_contains "$ERR" "policy wallclock sets a wall clock" "the refusal names the bound"
  assert_contains "$ERR" "delegated" "and what it needs"
  assert_eq "" "$(urt list -q)" "containers left"
  held "rootless caller drops a floor's wall clock (no cgroup)" "create refuses: the watchdog needs a delegated cgroup"
}
tcase "a floor's wall clock is not dropped for a rootless caller without a cgroup" case_wall_clock

case_pids_limit() {
  ubundle pids sh -c 'echo "$SHARNESS_POLICY_ID"'
  control "$B"
  [ "$OURS" = 1 ] || return 0
  urun "$B" --policy "$(policy fewpids '{"id": "fewpids", "version": 1, "pids": {"limit": 20}}')"
  assert_ne 0 "$RC" "a pids floor, rootless, no delegated cgroup"
  assert_contains "$ERR" "limits in linux.resources" "the refusal names the limits"
  assert_eq "" "$(urt list -q)" "containers left"
  held "rootless caller drops a floor's pids limit (no cgroup)" "create refuses: limits need a delegated cgroup"
}
tcase "a floor's pids limit is not dropped for a rootless caller without a cgroup" case_pids_limit

case_throwaway_uid() {
  ubundle eph sh -c 'echo "$SHARNESS_POLICY_ID"'
  control "$B"
  [ "$OURS" = 1 ] || return 0
  urun "$B" --policy "$RL_POLICIES/harsh.json"
  assert_ne 0 "$RC" "harsh (a throwaway host uid) as an unprivileged caller"
  assert_contains "$ERR" "needs root: a throwaway host uid" "the refusal says why"
  assert_eq "" "$(urt list -q)" "containers left"
  held "rootless caller runs a throwaway-uid floor as itself" "create refuses: the uid needs root"
}
tcase "a floor's throwaway uid is refused for a rootless caller, not run as the caller" case_throwaway_uid

adversary_finish
