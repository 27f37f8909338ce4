// `sharness-edge ca ...` (see ca_cli.cpp): the CA commands, in the edge binary with the rest of X.509.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::edges {

// args[from..]: the subcommand (init, show, rotate, issue, revoke) and its flags; --dir is required.
Result<int> ca_command(const std::vector<std::string>& args, size_t from);

}  // namespace sh::edges
