// Where the door gets a rule's credential (docs/egress.md, "Credentials"): a source named in
// the door's config. The door asks for every vault its rules name once, at start, before it
// confines itself; the values then live only in its memory.
//   {"dir": PATH}   PATH/<vault>, one file per entry (tests, operators)
//   {"kms": {"socket": S, "ca": F, "cert": F, "key": F}}
//                   the container's KMS sidecar over mutual TLS, with the door's own leaf
//                   (role egress): a credential request per vault, for a host a rule ties it to
//                   (the KMS checks the pair), sealed to a one-time key of the door's; the
//                   KMS's leaf must name the door's container (role kms, id = container)
#pragma once
#include <memory>
#include <string>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::egress {

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // The value of vault entry `vault`, which a rule ties to `host`: not empty, no CR, LF or NUL
  // (it goes into a header).
  virtual Result<std::string> fetch(const std::string& vault, const std::string& host) = 0;
};

// The source the config's `credentials` object names (an error names its JSON path), for the
// door of container `container`.
Result<std::unique_ptr<CredentialSource>> make_source(const json::Value& v, const std::string& container);

// Refuses a value that could not go into a header as it is, or is longer than the KMS's limit
// (kms::kMaxSecretLen), whichever source it came from.
Result<void> check_value(const std::string& vault, const std::string& value);

}  // namespace sh::egress
