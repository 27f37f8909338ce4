// The control: a lifecycle source that includes only its own floor and those below passes.
#include "base/error.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/linux/cgroups.hpp"
#include "spec-mapping/extension.hpp"
