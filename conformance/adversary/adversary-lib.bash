# shellcheck shell=bash
# conformance/adversary/adversary-lib.bash: sourced after ../lib.sh by every adversarial suite.
# Not a suite itself (CTest registers conformance/adversary/*.sh only).
#
# An adversarial case plays a client of the runtime (whoever writes config.json, annotations,
# `exec` and `update` requests) trying to loosen the operator's floor. Each case:
#   - first shows the attempt CAN succeed where nothing holds it (a control: the same request
#     without the floor, or under plain runc), so the case cannot pass by accident;
#   - then makes the attempt under the floor and asserts it was refused (with the bound named)
#     or tightened (the effect seen from inside the container is the floor's);
#   - records one row with `held ATTEMPT WHAT_HELD`.
# `adversary_finish` prints the rows as a table (as `hello` does), then lib.sh's summary.
#
# These suites test the policy layer, which only sharness-runtime has: against another runtime
# each case runs only its control.

ADV_ROWS=$TMP/attempts.tsv
: >"$ADV_ROWS"

# held ATTEMPT WHAT_HELD: one row of the closing table; call it last in a case that passed.
held() {
  printf '%s\t%s\n' "$1" "$2" >>"$ADV_ROWS"
}

# floor_args POLICY: global flags that set the operator's floor (a name or a path).
floor_args() { echo "--policy $1"; }

# rt_floor POLICY ARGS...: the runtime under test with POLICY as the operator's floor.
rt_floor() {
  local p=$1; shift
  rt --policy "$p" "$@"
}

adversary_finish() {
  if [ -s "$ADV_ROWS" ]; then
    echo "#"
    printf '# %-70s %s\n' "attempt" "held by"
    while IFS=$'\t' read -r a h; do
      printf '# %-70s %s\n' "$a" "$h"
    done <"$ADV_ROWS"
    echo "# $(wc -l <"$ADV_ROWS") attempts held"
  fi
  finish
}
