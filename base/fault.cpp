// Two builds of one file (base/fault.hpp): the no-op in libsharness_core.a, and the real one
// linked first into sharness-runtime-faulty. Keep this file to this one symbol: the override
// relies on the archive member never being pulled in for anything else.
#include "base/fault.hpp"

#ifdef SHARNESS_FAULT_INJECTION
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace sh::fault {

void point(const char* step) {
  static const char* want = ::getenv("SHARNESS_FAULT");
  if (!want || std::strcmp(want, step) != 0) return;
  // Said on stderr, so the suite knows the step was reached (a fault never hit tests nothing).
  std::string line = std::string("sharness-runtime: fault injected at ") + step + "\n";
  (void)!::write(2, line.data(), line.size());
  ::raise(SIGKILL);
}

}  // namespace sh::fault
#else
namespace sh::fault {

void point(const char*) {}

}  // namespace sh::fault
#endif
