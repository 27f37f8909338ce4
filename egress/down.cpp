// `sharness-egress down`, the poststop hook: the supervisor, then the door, each only while it is
// still the process `up` recorded; then the door's uid released. The directory (its CA key among
// it) goes when the sidecar is unprovisioned, right after.
#include <unistd.h>

#include "base/file.hpp"
#include "edges/proxy_state.hpp"
#include "egress/commands.hpp"
#include "egress/plan.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"

namespace sh::egress {

Result<int> down(const edges::Opts& o) {
  edges::ContainerState st = TRY(edges::read_state());
  const std::string path = door_dir(o.root, st.id) + "/" + kStateFile;
  auto text = read_file(path, 1 << 16);
  if (!text) return 0;  // no door was started
  edges::Saved s = TRY(edges::saved_from(*text));
  edges::stop_saved(s);
  if (s.uid) TRYV(lifecycle::release_ephemeral_uid(o.root, s.uid, st.id));
  ::unlink(path.c_str());
  return 0;
}

}  // namespace sh::egress
