// oci::Config -> config.json: every field of oci/config.hpp, absent optionals omitted, so that
// parse_config(config_to_json(c)) gives back c. Used by `policy map --bundle` and
// `policy apply`, which rewrite a bundle's config.json. Keys config_parse ignores (unknown
// to this runtime) are not in the model and so are not written back.
#pragma once
#include <string>

#include "base/json.hpp"
#include "oci/config.hpp"

namespace sh::oci {

// Fails on any generator error or a kept block (sharness, process.landlock) that does not parse.
Result<std::string> config_to_json(const Config& c, bool pretty);

// The members of the top-level object without its braces, for callers that add their own
// keys (the "sharness" extension block).
void write_config_members(json::Writer& w, const Config& c);
// One linux.seccomp object (also the shape of the policy extension's stacked filter).
void write_seccomp(json::Writer& w, const Seccomp& s);

}  // namespace sh::oci
