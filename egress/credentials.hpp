// Where the door gets a rule's credential (docs/egress.md, "Credentials"): a source named in
// the door's config. The door asks for every vault its rules name once, at start, before it
// confines itself; the values then live only in its memory.
//   {"dir": PATH}   PATH/<vault>, one file per entry (tests, operators)
// The KMS source (the workload's KMS over the door's mTLS edge) is the integration's: one more
// branch in make_source.
#pragma once
#include <memory>
#include <string>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::egress {

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // The value of vault entry `vault`: not empty, no CR, LF or NUL (it goes into a header).
  virtual Result<std::string> fetch(const std::string& vault) = 0;
};

// The source the config's `credentials` object names (an error names its JSON path).
Result<std::unique_ptr<CredentialSource>> make_source(const json::Value& v);

// Refuses a value that could not go into a header as it is.
Result<void> check_value(const std::string& vault, const std::string& value);

}  // namespace sh::egress
