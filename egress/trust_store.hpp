// The upstream trust, read at start (the door opens no file once confined) but parsed only when
// a verification asks for it. The host's bundle holds ~140 CAs; parsed into an X509_STORE they
// took ~0.8 MiB of each door's heap, while a door meets a handful. Kept here as DER (~0.2 MiB),
// indexed by the subject name's hash; OpenSSL's verifier asks the store for an issuer by name,
// and on a miss this lookup parses the certificates of that name and adds them to the store,
// where they stay. The verifier, the chain it builds and the anchors it accepts are OpenSSL's,
// unchanged: the same certificates are trusted, only later in memory.
#pragma once
#include <openssl/ssl.h>

#include <string>

#include "base/error.hpp"

namespace sh::egress {

// Every certificate (and CRL) of the PEM file `path` becomes trusted by `ctx`, as
// SSL_CTX_load_verify_file would; refused when it holds none.
Result<void> trust_on_demand(SSL_CTX* ctx, const std::string& path);

}  // namespace sh::egress
