// A client's policy against the operator's floor, section by section: a client may name only a
// policy that is no looser than the floor in any section it states (DESIGN.md §3). `create`
// refuses any other, naming the section and the floor's value; composition (compose.hpp) then
// tightens what is left, so this is the loud half of "only tightens", intersect() the safe half.
//
// A section the client leaves out is never looser: the floor's value holds (the composition's
// rule too). A section that grants identity or reach (role, edges, accepts, secrets, egress) that the
// floor lacks is looser, unless the operator lets this policy add it (Grants). With no floor
// at all only those grant sections are checked: nothing else has a bound to loosen.
#pragma once
#include <string>
#include <vector>

#include "spec-mapping/compose.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

struct Looser {
  std::string section;  // "memory.limit"
  std::string client;   // "1 GiB"
  std::string floor;    // "128 MiB"
};

// Every section in which `client` allows more than `floor` (nullptr: no floor).
std::vector<Looser> looser_sections(const Policy* floor, const Policy& client, const Grants& may_add = {});

// "memory.limit 1 GiB (the floor's: 128 MiB)"
std::string describe(const Looser& l);

}  // namespace sh::policy
