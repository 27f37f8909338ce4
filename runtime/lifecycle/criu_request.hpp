// What checkpoint and restore share: the image and work directories, and CRIU's options from the
// flags both commands take.
#pragma once
#include "base/error.hpp"
#include "base/fd.hpp"
#include "runtime/lifecycle/checkpoint.hpp"
#include "runtime/linux/criu.hpp"

namespace sh::lifecycle {

// The key a joined network namespace has in the image (as runc names it, so images move between
// the two): dump marks it external, restore hands CRIU an fd of the namespace under this name.
inline constexpr const char* kExternalNetns = "extRootNetNS";

// An image holds the container's memory, its secrets included, and restore trusts it as it trusts
// root (it holds the processes' credentials and code): it is owned by the runtime's user, and
// no one else may write it.
//   create (checkpoint): the image path is made 0700 when missing; an existing one that another
//   user owns or that group or others may write is refused, and one they may read is made 0700
//   (with a warning);
//   restore: the same refusals (nothing is changed).
// The work path (CRIU's logs) defaults to the image path and is held the same way.
struct ImageDirs {
  Fd images, work;
};
Result<ImageDirs> open_image_dirs(const std::string& image_path, const std::string& work_path, bool create);

// criu::Options from the shared flags, the directories and the log's name.
Result<criu::Options> criu_options(const CriuFlags& f, const ImageDirs& dirs, const char* log);

}  // namespace sh::lifecycle
