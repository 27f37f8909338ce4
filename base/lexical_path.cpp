#include "base/lexical_path.hpp"

namespace sh {

std::string join_path(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? "/" : out;
}

std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") out.emplace_back(c);
    i = j + 1;
  }
  return out;
}

std::string parent_path(std::string_view path) {
  size_t i = path.rfind('/');
  return i == 0 || i == std::string_view::npos ? "/" : std::string(path.substr(0, i));
}

std::string clean_path(std::string_view path) {
  std::vector<std::string> out;
  for (auto& c : path_components(path)) {
    if (c == "..") {
      if (!out.empty()) out.pop_back();
    } else {
      out.push_back(std::move(c));
    }
  }
  return join_path(out);
}

}  // namespace sh
