// Composition only tightens (DESIGN.md §3): the operator's floor policy, a client's policy
// (annotation org.sharness.policy) and the bundle's config.json combine into something no
// looser than any of them.
//
//   intersect(floor, tighter)    policy x policy -> policy
//   apply_to_config(p, c, ext)   policy x config -> config + the "sharness" extension block
//
// Rules, in both: limits take the minimum (memory, address space, cpu quota by ratio, pids,
// wall clock, rlimits); allowances intersect (capabilities, syscalls, devices, tmpfs and
// read-only binds); restrictions union (namespaces, masked and read-only paths); flags OR
// (noNewPrivileges, readonlyRoot, bindsReadOnly); network takes the stricter (none <
// loopback < host); the seccomp default action the harsher (kill > errno > log); bestEffort
// ANDs (one side refusing to degrade is enough to refuse). The sections that grant identity or
// reach (role, edges, accepts, secrets, egress, and the TCP ports edges and accepts add) are none
// where the floor has none: a client only keeps what the floor grants too (mesh.hpp), unless
// the operator lets that policy add the section (Grants). docs/policy.md has the table.
// Landlock: files keep a right at a
// path only where both grant it (the deeper of two nested rules, rights ANDed); ports
// intersect per right; scopes union; exec keeps the pins (same path and hash) both allow.
// A config's own process.landlock is never merged: it stays a Landlock layer of its own and
// the policy's block (sharness.landlock) is another, so the kernel intersects them.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// What the operator lets one installed policy add where the floor has nothing (the runtime
// config's clientPolicies.<name>.mayAdd): only sections that grant identity or reach.
struct Grants {
  MeshGrants mesh;  // role, edges, accepts
  bool secrets = false;
  bool egress = false;
  bool operator==(const Grants&) const = default;
};

// The policy that allows only what both allow. Its id is "floor+tighter", its hash that of
// policy_to_json's canonical form; the same document twice (equal hashes) is that document.
// Symmetric in every rule except the id's order, the grant sections (the floor's absence is
// none, the client's absence the floor's value) and an id conflict, which yields an ephemeral
// uid and gid.
Policy intersect(const Policy& floor, const Policy& tighter, const Grants& may_add = {});

// Tighten `c` by `p`, and fill `ext` (reset first) with what OCI cannot say:
//  - process.user: the policy's uid/gid (gid defaults to the uid; additionalGids dropped);
//    "ephemeral" leaves a marker in ext and the runtime picks the uid;
//  - capabilities: every set intersected with the policy's list (an absent bounding set,
//    which means "all", becomes the policy's list); noNewPrivileges forced on if asked;
//  - rlimits: RLIMIT_AS from memory.addressSpace; RLIMIT_NPROC from the pids limit only with an
//    ephemeral uid (it counts every process of the uid on the host: with a shared uid it
//    would count strangers, and even fail execve after setuid); always the min with the config's;
//  - linux.namespaces: union; a required namespace the config joins by path is replaced by
//    a new one (a join shares it with whoever owns it: looser); network "none"/"loopback"
//    means a new network namespace, so a path join of the network namespace is removed;
//  - linux.resources: memory limit, cpu quota and pids limit at the min of both; devices:
//    deny-all, then allow only the policy's devices with the access the config also grants
//    (the runtime's default devices count as granted, as runc always grants them);
//    linux.devices keeps only nodes of allowed devices;
//  - root.readonly OR; bind mounts made read-only if bindsReadOnly; policy tmpfs (nosuid,
//    nodev, noexec unless exec) and read-only binds replace config mounts at the same place;
//    masked/readonly paths unioned;
//  - linux.seccomp stays; the policy's filter goes to ext.seccomp, stacked on top at create;
//  - files/ports/scope/exec: ext.landlock (a second Landlock layer) and ext.exec (the pins);
//    with exec: root read-only, noexec on every writable mount, a new pid namespace and
//    linux.sysctl vm.memfd_noexec=2 (spec-mapping/landlock_map);
//  - env SHARNESS_POLICY_ID / SHARNESS_POLICY_HASH (replacing any), annotations
//    org.sharness.policy.id / .hash.
// `host` (one probe, runtime/linux/host_facts) decides the bounds' availability (ext.bounds)
// and leaves vm.memfd_noexec out on a kernel without it when seccomp stands in for it.
Result<void> apply_to_config(const Policy& p, oci::Config& c, Extension& ext, const HostProbe& host);

// What apply_to_config derives from the policy and the host alone, whatever the config: create
// keeps it per policy file (runtime/lifecycle/policy_cache.hpp) and applies it to each config.
struct Prepared {
  Policy policy;
  std::set<std::string> allowed;  // the syscalls section expanded (allowed_syscalls); empty without one
  std::vector<Bound> explained;   // explain(policy, host, allowed)
  bool same(const Prepared& o) const;
};
Result<Prepared> prepare(Policy p, const HostProbe& host);
// apply_to_config with the policy's derivations already made (for `host`).
Result<void> apply_prepared(const Prepared& pp, oci::Config& c, Extension& ext, const HostProbe& host);

inline constexpr const char* kAnnotationId = "org.sharness.policy.id";
inline constexpr const char* kAnnotationHash = "org.sharness.policy.hash";
inline constexpr const char* kAnnotationPolicy = "org.sharness.policy";  // a client's policy (JSON text)

}  // namespace sh::policy
