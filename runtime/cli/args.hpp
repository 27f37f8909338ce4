// Command-line parsing as runc's CLI accepts it: `--flag value`, `--flag=value`, `-f value`,
// single-dash long forms (`-bundle x`), and boolean flags with optional `=true/false`.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::cli {

struct FlagSpec {
  std::vector<std::string> names;  // {"bundle", "b"}
  bool takes_value = false;
  bool repeatable = false;         // --env a --env b
};

struct Parsed {
  std::map<std::string, std::vector<std::string>> values;  // by first name
  std::vector<std::string> positional;
  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name, const std::string& def = "") const;
  std::vector<std::string> all(const std::string& name) const;
  bool flag(const std::string& name) const;  // boolean flag set (and not =false)
};

// Parse args[from..]. When stop_at_positional, the first positional argument and all after
// it are positional (for `exec ID CMD ARGS...`). "--" ends flags.
Result<Parsed> parse(const std::vector<FlagSpec>& specs, const std::vector<std::string>& args, size_t from,
                     bool stop_at_positional = false);

Result<unsigned> to_unsigned(const std::string& flag, const std::string& v);

}  // namespace sh::cli
