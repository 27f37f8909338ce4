// A fresh directory under /tmp for one test, removed with everything in it afterwards.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace sh::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "sharness-test") {
    std::string t = "/tmp/" + prefix + ".XXXXXX";
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp " + t);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // PATH/name as a string.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace sh::test
