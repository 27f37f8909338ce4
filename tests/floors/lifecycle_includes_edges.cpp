// A lifecycle source that includes a wing: cmake/check_floors.cmake must refuse it (CTest floors.*).
#include "base/error.hpp"
#include "edges/provision.hpp"
#include "runtime/lifecycle/sidecar.hpp"
