// `policy diff A B`: what A allows that B does not, section by section (docs/policy.md "diff").
// Built on the floor check (no_looser.hpp): A against B as its floor gives every section in
// which A is looser where both state it. A policy standing alone inherits nothing, so what
// composition would take from the floor counts here too: a limit or section A leaves out that
// B states (no limit, no filter, no allowlist), and the sections that add up (namespaces,
// masked and read-only paths, scope, noNewPrivileges, readonlyRoot, bindsReadOnly, config hooks)
// where B has something A lacks.
#pragma once
#include <string>
#include <vector>

#include "spec-mapping/no_looser.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// Each entry: the section, A's value (`client`) and B's (`floor`).
std::vector<Looser> allows_more(const Policy& a, const Policy& b);

// "  memory.limit: 1 GiB (B: 128 MiB)"
std::string describe_diff(const Looser& l, const std::string& b_name);

}  // namespace sh::policy
