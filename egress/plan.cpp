#include "egress/plan.hpp"

#include <algorithm>

#include "base/json.hpp"
#include "egress/ca.hpp"

namespace sh::egress {

std::string door_dir(const std::string& state_root, const std::string& id) { return state_root + "/" + id + "/egress"; }

bool credentials_from_kms(const policy::EgressPolicy& e, const std::string& credentials_dir) {
  return credentials_dir.empty() &&
         std::ranges::any_of(e.rules, [](const policy::EgressRule& r) { return r.credential.has_value(); });
}

std::string door_config_json(const policy::EgressPolicy& e, const std::string& id, const DoorSite& site) {
  const std::string dir = kDoorDirInDoor;
  json::Writer w(true);
  w.begin_object().kv("container", id).key("egress");
  policy::write_egress(w, e);
  w.key("ca").begin_object();
  w.kv("cert", dir + "/" + kCaDir + "/" + kCaCertFile).kv("key", dir + "/" + kCaDir + "/" + kCaKeyFile).end_object();
  if (!site.upstream_trust.empty()) w.kv("upstreamTrust", site.upstream_trust);
  if (!site.hosts.empty()) w.kv("hosts", site.hosts);
  if (!site.allow_addresses.empty()) w.kv("allowAddresses", site.allow_addresses);
  const bool credentials = std::ranges::any_of(e.rules, [](const policy::EgressRule& r) { return r.credential.has_value(); });
  if (credentials && !site.credentials_dir.empty())
    w.key("credentials").begin_object().kv("dir", site.credentials_dir).end_object();
  if (credentials_from_kms(e, site.credentials_dir)) {
    const std::string tls = dir + "/" + kKmsTlsDir + "/";
    w.key("credentials").begin_object().key("kms").begin_object();
    w.kv("socket", dir + "/" + kKmsSocketDir + "/kms.sock");
    w.kv("ca", tls + "ca.pem").kv("cert", tls + "cert.pem").kv("key", tls + "key.pem");
    w.end_object().end_object();
  }
  w.end_object();
  return w.str() + "\n";
}

void apply_egress_host(const DoorHost& h, oci::Config& c) {
  c.mounts.push_back({kTrustDirInContainer, "bind", door_dir(h.state_root, h.id) + "/" + kTrustDir,
                      {"rbind", "ro", "nosuid", "nodev", "noexec"}, {}, {}});
  if (c.process) {
    // Debian's OpenSSL (and so Python's ssl, urllib, requests' defaults), curl, Node, and the
    // libraries that take their own variable: each finds the door's CA, and only it.
    const std::vector<std::string> vars = {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
                                           "CURL_CA_BUNDLE"};
    std::erase_if(c.process->env, [&](const std::string& e) {
      std::string name = e.substr(0, e.find('='));
      return name == "SSL_CERT_DIR" || std::ranges::find(vars, name) != vars.end();
    });
    for (const auto& v : vars) c.process->env.push_back(v + "=" + kTrustFileInContainer);
    c.process->env.push_back(std::string("SSL_CERT_DIR=") + kTrustDirInContainer);
  }
  std::vector<std::string> args = {"--root", h.state_root};
  if (!h.runtime_config.empty()) args.insert(args.end(), {"--config", h.runtime_config});
  auto hook = [&](const char* what) {
    std::vector<std::string> a = {"sharness-egress", what};
    a.insert(a.end(), args.begin(), args.end());
    return oci::Hook{h.binary, a, {}, {}};
  };
  c.hooks.create_runtime.push_back(hook("up"));
  c.hooks.poststop.push_back(hook("down"));
}

Result<void> show_egress(const policy::Extension& ext, oci::Config& c) {
  if (ext.egress)
    apply_egress_host(DoorHost{"<state root>", "<container id>", "<dir of sharness-runtime>/sharness-egress", ""}, c);
  return {};
}

}  // namespace sh::egress
