// `sharness-runtime policy check|hash|map|apply|explain`: the policy tools on the command line.
#pragma once
#include "runtime/cli/commands.hpp"

namespace sh::cli {

Result<int> cmd_policy(const lifecycle::Globals&, const Args& args, size_t from);

inline constexpr const char* kPolicyUsage =
    "policy check FILE | hash FILE | map FILE [--bundle DIR] | apply --policy FILE [--policy FILE...] --bundle DIR "
    "| explain FILE";

}  // namespace sh::cli
