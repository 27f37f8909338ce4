// A compact binary form of a Prepared policy (compose.hpp) for the per-policy cache under the
// state root (runtime/lifecycle/policy_cache.hpp): reading it back costs a few allocations
// where parsing the policy's JSON, hashing its canonical form, expanding its syscall groups and
// explaining it cost ~1.5 M instructions at every create.
//
// Layout: every number a little-endian u64, every string its length then its bytes, an optional
// a 0/1 flag then the value, a list its count then its items; fields in declaration order. The
// reader refuses anything short, long, or out of range: a truncated or altered entry is an error,
// never a policy with a section missing.
#pragma once
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "spec-mapping/compose.hpp"

namespace sh::policy {

std::string encode_prepared(const Prepared& p);
Result<Prepared> decode_prepared(std::string_view bytes);

}  // namespace sh::policy
