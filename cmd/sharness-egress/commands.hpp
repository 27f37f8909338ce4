// The subcommands of sharness-egress, one file each; main.cpp's table lists them.
#pragma once
#include <string>
#include <vector>

namespace sh::egress_cli {

// Each takes the arguments after its name and returns the exit status.
int door(const std::vector<std::string>& args);  // cmd_door.cpp
int ca(const std::vector<std::string>& args);    // cmd_ca.cpp
int up(const std::vector<std::string>& args);    // cmd_hooks.cpp
int down(const std::vector<std::string>& args);  // cmd_hooks.cpp

}  // namespace sh::egress_cli
