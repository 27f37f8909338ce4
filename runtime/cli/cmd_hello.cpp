// Placeholder until the hello command lands (being written now).
#include "runtime/cli/commands.hpp"

namespace sh::cli {
Result<int> cmd_hello(const lifecycle::Globals&, const Args&, size_t) { return fail("hello: not implemented yet"); }
}  // namespace sh::cli
