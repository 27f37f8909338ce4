// `sharness-edge down`: the supervisor first (no renewal after this), then the proxy, each
// only if it is still the process `up` recorded; then what `up` registered and claimed.
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "edges/commands.hpp"
#include "edges/proxy_state.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"

namespace sh::edges {

Result<int> down(const Opts& o) {
  ContainerState st = TRY(read_state());
  std::string path = o.root + "/" + st.id + "/" + kStateFile;
  auto text = read_file(path, 1 << 16);
  if (!text) return 0;  // no proxy was started
  Saved s = TRY(saved_from(*text));
  stop_saved(s);
  if (!s.server_socket.empty()) {
    struct stat sst {};
    if (::lstat(s.server_socket.c_str(), &sst) == 0 && sst.st_ino == s.server_ino) ::unlink(s.server_socket.c_str());
  }
  if (!s.server_tcp.empty()) {
    ::unlink(s.server_tcp.c_str());
  }
  if (s.uid) TRYV(lifecycle::release_ephemeral_uid(o.root, s.uid, st.id));
  ::unlink(path.c_str());
  return 0;
}

}  // namespace sh::edges
