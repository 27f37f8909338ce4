#include "base/text.hpp"

namespace sh {

std::vector<std::string> words(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::vector<std::string> out;
  for (size_t i = text.find_first_not_of(kSpace); i != std::string_view::npos;) {
    size_t j = text.find_first_of(kSpace, i);
    out.emplace_back(text.substr(i, j == std::string_view::npos ? j : j - i));
    i = j == std::string_view::npos ? j : text.find_first_not_of(kSpace, j);
  }
  return out;
}

}  // namespace sh
