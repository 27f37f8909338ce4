#include "base/error.hpp"

#include <cstring>

namespace sh {

std::string Error::what() const {
  if (err == 0) return msg;
  const char* name = strerrorname_np(err);
  std::string out = msg;
  out += ": ";
  out += name ? name : std::to_string(err);
  out += " (";
  out += strerror(err);
  out += ")";
  return out;
}

Error&& Error::context(std::string_view ctx) && {
  std::string m(ctx);
  m += ": ";
  m += msg;
  msg = std::move(m);
  return std::move(*this);
}

}  // namespace sh
