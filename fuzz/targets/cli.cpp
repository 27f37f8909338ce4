// Command-line parsing: cli::parse with the create/run flag specs (and create_options), and with
// the exec flag specs, plus cli::to_unsigned. The input is split into arguments at NUL bytes; the first
// byte chooses the spec and whether flags stop at the first positional argument.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cli/args.hpp"
#include "cmd/sharness-runtime/commands.hpp"

// cmd_create.cpp (linked for create_flag_specs/create_options) calls one_id, which lives in
// cmd/sharness-runtime/main.cpp next to main(): the same definition here.
namespace sh::cli {
Result<std::string> one_id(const std::vector<std::string>& positional, const char* cmd) {
  if (positional.size() != 1)
    return fail(std::string(cmd) + ": requires exactly 1 argument, the container id (got " +
                std::to_string(positional.size()) + ")");
  return positional[0];
}
}  // namespace sh::cli


extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::vector<std::string> args{"sharness-runtime"};
  std::string cur;
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += char(data[i]);
    }
  }
  args.push_back(cur);
  const bool stop = mode & 1;
  if (mode & 2) {
    auto p = sh::cli::parse(sh::cli::exec_flag_specs(), args, 1, stop);
    if (p) {
      (void)p->get("cwd");
      (void)p->all("env");
      (void)p->flag("detach");
      if (p->has("preserve-fds")) (void)sh::cli::to_unsigned("preserve-fds", p->get("preserve-fds"));
    }
  } else {
    auto p = sh::cli::parse(sh::cli::create_flag_specs(), args, 1, stop);
    if (p) (void)sh::cli::create_options(*p);
  }
  return 0;
}
