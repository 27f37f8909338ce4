// The subcommands of sharness-egress, one file each; main.cpp's table lists them.
#pragma once
#include <string>
#include <vector>

namespace sh::egress_cli {

// Each takes the arguments after its name and returns the exit status.
int door(const std::vector<std::string>& args);

}  // namespace sh::egress_cli
