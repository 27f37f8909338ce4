// The flags create and run share (run adds --detach and --keep): one list, in both tables.
#pragma once
#include <array>

#include "runtime/cli/table.hpp"

namespace sh::cli {

inline constexpr std::array kCreateFlags{
    Flag{.name = "bundle", .alias = "b", .value = "DIR",
         .help = "path to the bundle directory (default: the current directory)", .completes = Completes::directory},
    Flag{.name = "console-socket", .value = "SOCKET",
         .help = "AF_UNIX socket that receives the master end of the console's pseudoterminal",
         .completes = Completes::file},
    Flag{.name = "pid-file", .value = "FILE", .help = "write the container's init pid to FILE",
         .completes = Completes::file},
    Flag{.name = "no-pivot", .help = "move the rootfs into place with MS_MOVE instead of pivot_root (a ramdisk)"},
    Flag{.name = "no-new-keyring", .help = "keep the caller's session keyring instead of a new one"},
    Flag{.name = "preserve-fds", .value = "N",
         .help = "pass N more file descriptors to the container (stdio + $LISTEN_FDS + N in all)"},
};

// Joins two flag lists at compile time (run's table: create's flags and its own).
template <size_t N, size_t M>
constexpr std::array<Flag, N + M> join_flags(const std::array<Flag, N>& a, const std::array<Flag, M>& b) {
  std::array<Flag, N + M> out{};
  for (size_t i = 0; i < N; ++i) out[i] = a[i];
  for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

inline constexpr std::array kIdArg{Arg{.name = "<container-id>", .help = "the container", .completes = Completes::container}};

}  // namespace sh::cli
