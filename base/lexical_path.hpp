// Paths as text: split and cleaned lexically, nothing asked of a filesystem (resolving inside
// a container's root is runtime/linux/safe_path.hpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sh {

// The components of a path, "" and "." dropped ("/a//b/./c" -> a b c; ".." kept).
std::vector<std::string> path_components(std::string_view path);
// Lexically clean an absolute path ("/a/../b/" -> "/b"; never above "/").
std::string clean_path(std::string_view path);
// The directory of an absolute clean path ("/a/b" -> "/a", "/a" -> "/", "/" -> "/").
std::string parent_path(std::string_view path);
// "/" followed by each part, "/"-separated ({} -> "/").
std::string join_path(const std::vector<std::string>& parts);

}  // namespace sh
