// `sharness-runtime policy check|hash|map|apply|explain|pin`: the policy tools on the command line.
#pragma once
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

Result<int> cmd_policy(const lifecycle::Globals&, const Args& args, size_t from);
// `policy pin` (cmd_policy_pin.cpp); `from` is the first argument after "pin".
Result<int> cmd_policy_pin(const Args& args, size_t from);

// `policy learn` (cmd_policy_learn.cpp).
Result<int> cmd_policy_learn(const lifecycle::Globals& g, const Args& args, size_t from);

extern const CommandTable kPolicyTable;

inline constexpr const char* kPolicyPinUsage = "policy pin --bundle DIR|--rootfs DIR POLICY [--out FILE]";

inline constexpr const char* kPolicyLearnUsage = "policy learn --bundle DIR [--from POLICY] [--out FILE] [--seconds N] [ID]";

inline constexpr const char* kPolicyUsage =
    "policy check FILE | hash FILE | map FILE [--bundle DIR] | apply --policy FILE [--policy FILE...] --bundle DIR "
    "| explain FILE | pin --bundle DIR|--rootfs DIR FILE [--out FILE] | diff A B "
    "| learn --bundle DIR [--from POLICY] [--out FILE] [--seconds N] [ID]";

}  // namespace sh::cli
