// `ca init|show|rotate|issue`: the certificate authority behind per-edge mutual TLS
// (edges/identity.hpp). It lives in the runtime config's caDir, else <root>/.ca; --dir overrides.
#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include "base/file.hpp"
#include "base/json.hpp"
#include "edges/identity.hpp"
#include "runtime/cli/commands.hpp"
#include "runtime/lifecycle/runtime_config.hpp"

namespace sh::cli {
namespace {

std::string asn1_time(const ASN1_TIME* t) {
  struct tm tm {};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return "";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void print_ca(const identity::Ca& ca, const char* action) {
  json::Writer w(true);
  w.begin_object().kv("action", action).kv("dir", ca.dir()).kv("fingerprint", identity::fingerprint(ca.cert()));
  w.kv("notBefore", asn1_time(X509_get0_notBefore(ca.cert()))).kv("notAfter", asn1_time(X509_get0_notAfter(ca.cert())));
  w.kv("certificate", ca.pem()).end_object();
  std::string s = w.str() + "\n";
  std::fwrite(s.data(), 1, s.size(), stdout);
}

// `ca issue`: a leaf for a component outside a container (a test client, the KMS sidecar).
Result<int> issue(const identity::Ca& ca, const Parsed& p) {
  if (!p.has("role") || !p.has("name") || !p.has("out"))
    return fail("ca issue: --role ROLE, --name NAME and --out DIR are required");
  identity::LeafRequest req;
  req.role = p.get("role");
  req.name = p.get("name");
  if (p.has("seconds")) req.seconds = TRY(to_unsigned("--seconds", p.get("seconds")));
  if (p.has("backdate")) req.backdate = TRY(to_unsigned("--backdate", p.get("backdate")));
  auto leaf = TRY(identity::issue_leaf(ca, req));
  std::string out = p.get("out");
  if (::mkdir(out.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("mkdir " + out);
  Fd dir = TRY(open_file(out, O_RDONLY | O_DIRECTORY));
  TRYV(identity::write_leaf(dir.get(), leaf, ::geteuid(), ::getegid()));
  json::Writer w(true);
  w.begin_object().kv("uri", leaf.uri).kv("fingerprint", leaf.fingerprint).key("notAfter").integer(leaf.not_after);
  w.kv("dir", out).end_object();
  std::string s = w.str() + "\n";
  std::fwrite(s.data(), 1, s.size(), stdout);
  return 0;
}

}  // namespace

Result<int> cmd_ca(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse({{{"dir"}, true},
                      {{"role"}, true},
                      {{"name"}, true},
                      {{"out"}, true},
                      {{"seconds"}, true},
                      {{"backdate"}, true},
                      {{"help", "h"}, false}},
                     args, from));
  if (p.positional.size() != 1) return fail("ca: expected one of init, show, rotate, issue");
  std::string dir = p.get("dir");
  if (dir.empty()) {
    auto rc = TRY(lifecycle::load_runtime_config(g.config_path.empty() ? lifecycle::kDefaultRuntimeConfig : g.config_path,
                                                 !g.config_path.empty()));
    dir = lifecycle::ca_dir(rc, g.root);
  }
  const std::string& sub = p.positional[0];
  if (sub == "init") {
    bool created = false;
    auto ca = TRY(identity::Ca::ensure(dir, &created));
    print_ca(ca, created ? "created" : "exists");
    return 0;
  }
  if (sub == "show") {
    print_ca(TRY(identity::Ca::load(dir)), "show");
    return 0;
  }
  if (sub == "rotate") {
    print_ca(TRY(identity::Ca::rotate(dir)), "rotated");
    return 0;
  }
  if (sub == "issue") return issue(TRY(identity::Ca::load(dir)), p);
  return fail("ca: unknown subcommand \"" + sub + "\" (init, show, rotate, issue)");
}

}  // namespace sh::cli
