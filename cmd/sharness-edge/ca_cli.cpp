// `sharness-edge ca init|show|rotate|issue|revoke --dir DIR`: the certificate authority behind
// per-edge mutual TLS (edges/identity.hpp). `sharness-runtime ca` and `create` run it: X.509
// lives in this binary, not the runtime's (bench/results/profile.md "OpenSSL out of the runtime").
// With --root R (as `sharness-runtime ca` passes it), `issue` registers the leaf live in R's
// registry of edge leaves (edges/live.hpp) and `revoke --name N` removes N's leaves from it.
#include "cmd/sharness-edge/ca_cli.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include "base/file.hpp"
#include "base/json.hpp"
#include "base/text.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "runtime/cli/args.hpp"

namespace sh::edges {
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

// --owner UID:GID (host ids: a throwaway uid is above 2^31; (uid_t)-1 would mean "no change")
Result<std::pair<uint32_t, uint32_t>> owner(const std::string& v) {
  size_t colon = v.find(':');
  if (colon == std::string::npos) return fail("invalid value \"" + v + "\" for --owner: expected UID:GID");
  uint32_t uid = TRY(parse_id(v.substr(0, colon), "--owner uid")), gid = TRY(parse_id(v.substr(colon + 1), "--owner gid"));
  if (uid == ~0u || gid == ~0u) return fail("invalid value \"" + v + "\" for --owner: 4294967295 means no owner");
  return std::pair{uid, gid};
}

// `ca issue`: a leaf for a container (create, for its identity tmpfs and its KMS) or for a
// component outside one (a test client). --init makes the CA first if there is none.
Result<int> issue(const std::string& dir, const cli::Parsed& p) {
  if (!p.has("role") || !p.has("name") || !p.has("out"))
    return fail("ca issue: --role ROLE, --name NAME and --out DIR are required");
  identity::LeafRequest req;
  req.role = p.get("role");
  req.name = p.get("name");
  if (p.has("seconds")) req.seconds = TRY(cli::to_unsigned("seconds", p.get("seconds")));
  if (p.has("backdate")) req.backdate = TRY(cli::to_unsigned("backdate", p.get("backdate")));
  auto [uid, gid] = p.has("owner") ? TRY(owner(p.get("owner"))) : std::pair{::geteuid(), ::getegid()};
  if (p.has("root")) TRYV(edges::live::validate_name(req.name));  // before a leaf is made
  auto ca = TRY(p.has("init") ? identity::Ca::ensure(dir) : identity::Ca::load(dir));
  auto leaf = TRY(identity::issue_leaf(ca, req));
  std::string out = p.get("out");
  if (::mkdir(out.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("mkdir " + out);
  Fd d = TRY(open_file(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  TRYV(identity::write_leaf(d.get(), leaf, uid, gid));
  // Live (accepted by the proxies) until `ca revoke --name`, a container of that name is
  // deleted, or it expires.
  if (p.has("root")) TRYVC("register the leaf live", edges::live::add(p.get("root"), req.name, leaf.fingerprint));
  json::Writer w(true);
  w.begin_object().kv("uri", leaf.uri).kv("fingerprint", leaf.fingerprint).key("notAfter").integer(leaf.not_after);
  w.kv("dir", out).key("live").boolean(p.has("root")).end_object();
  std::string s = w.str() + "\n";
  std::fwrite(s.data(), 1, s.size(), stdout);
  return 0;
}

}  // namespace

Result<int> ca_command(const std::vector<std::string>& args, size_t from) {
  auto p = TRY(cli::parse({{{"dir"}, true},
                      {{"role"}, true},
                      {{"name"}, true},
                      {{"out"}, true},
                      {{"seconds"}, true},
                      {{"backdate"}, true},
                      {{"owner"}, true},
                      {{"root"}, true},
                      {{"init"}, false},
                      {{"help", "h"}, false}},
                     args, from));
  if (p.positional.size() != 1) return fail("ca: expected one of init, show, rotate, issue, revoke");
  std::string dir = p.get("dir");
  if (dir.empty()) return fail("ca: --dir DIR is required");
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
  if (sub == "issue") return issue(dir, p);
  if (sub == "revoke") {
    // Every leaf registered under the name: proxies refuse them from the next handshake on.
    if (!p.has("name") || !p.has("root")) return fail("ca revoke: --name NAME and --root DIR are required");
    TRYV(edges::live::validate_name(p.get("name")));
    TRYV(edges::live::revoke(p.get("root"), p.get("name")));
    json::Writer w(true);
    w.begin_object().kv("action", "revoked").kv("name", p.get("name")).end_object();
    std::string s = w.str() + "\n";
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
  }
  return fail("ca: unknown subcommand \"" + sub + "\" (init, show, rotate, issue, revoke)");
}

}  // namespace sh::edges
