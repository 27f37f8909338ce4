// The credentials the door holds and how they meet a request (docs/egress.md, "Credentials"):
// a rule's credential goes into its header (bearer, basic or a named one), the workload's
// placeholder `sharness:<vault>` is replaced in the header fields of a request that rule
// allows, and a placeholder anywhere in a request no rule of its vault allows is refused.
// What comes back is scrubbed of every value (and the forms a server may echo it in).
#pragma once
#include <expected>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "egress/credentials.hpp"
#include "egress/decide.hpp"
#include "egress/http.hpp"
#include "spec-mapping/egress.hpp"

namespace sh::egress {

class Credentials {
 public:
  Credentials() = default;
  // Every vault the rules name, fetched now.
  static Result<Credentials> fetch(const policy::EgressPolicy& p, CredentialSource* source);
  // For tests: the values by vault.
  static Credentials of(std::vector<std::pair<std::string, std::string>> values);
  ~Credentials();
  Credentials(Credentials&&) = default;
  Credentials& operator=(Credentials&&) = default;

  // "sharness:<vault>" for every vault, in vaults() order.
  const std::vector<std::string>& placeholders() const { return placeholders_; }
  const std::vector<std::string>& vaults() const { return vaults_; }
  // What is scrubbed from responses: each value, its base64 (basic) and percent-encoded forms.
  std::vector<std::string> scrub_needles() const;
  // The vault of a placeholder index of Scanner::found() that `rule` does not allow, or "".
  std::string foreign(const std::vector<size_t>& found, const policy::EgressRule& rule) const;

  // The request as it goes upstream under `rule`: a placeholder of another vault anywhere in
  // the head refuses it; the rule's own placeholder is replaced in the fields and its header set.
  std::expected<void, Denial> apply(RequestHead& h, const policy::EgressRule& rule) const;

 private:
  const std::string* value(const std::string& vault) const;
  std::vector<std::string> vaults_, values_, placeholders_;
};

std::string base64(std::string_view s);

}  // namespace sh::egress
