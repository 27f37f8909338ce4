// The vault's credential lines (docs/kms.md "Vault"): static credentials the egress door injects,
// sealed under the KEK beside the master keys, bound to their id and kind by the AAD.
#define BOOST_TEST_MODULE kms_vault_credentials
#include <boost/test/unit_test.hpp>

#include "kms/crypto.hpp"
#include "kms/vault.hpp"

using namespace sh;
using namespace sh::kms;

namespace {

Key key_of(char c) {
  Key k;
  k.fill(static_cast<uint8_t>(c));
  return k;
}

std::span<const uint8_t> bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string opened(const Key& kek, const CredentialEntry& e) {
  std::string out(e.ct.size(), '\0');
  auto r = open_credential(kek, e, {reinterpret_cast<uint8_t*>(out.data()), out.size()});
  return r ? out : "error: " + r.error().what();
}

}  // namespace

BOOST_AUTO_TEST_CASE(credential_lines_round_trip_beside_master_keys) {
  Key kek = key_of(1), master = key_of(2);
  const std::string token = "ghp_" + std::string(36, 'x');
  auto m = seal_entry(kek, "db", master);
  auto c = seal_credential(kek, "github", bytes(token));
  BOOST_REQUIRE(m && c);
  std::string text = format_vault(*kek_id(kek), {*m}, {*c});
  BOOST_TEST(text.find(token) == std::string::npos);  // sealed, not written
  BOOST_TEST(text.find("\ncredential=github ") != std::string::npos, text);
  auto v = parse_vault(text);
  BOOST_REQUIRE_MESSAGE(v, (v ? "" : v.error().what()));
  BOOST_REQUIRE(v->entries.size() == 1u);
  BOOST_REQUIRE(v->credentials.size() == 1u);
  BOOST_TEST(v->credentials[0].id == "github");
  BOOST_TEST(v->credentials[0].ct.size() == token.size());
  BOOST_TEST(opened(kek, v->credentials[0]) == token);
  // A vault without credential lines reads as before.
  auto old = parse_vault(format_vault(*kek_id(kek), {*m}));
  BOOST_REQUIRE(old);
  BOOST_TEST(old->credentials.empty());
}

BOOST_AUTO_TEST_CASE(credential_bound_to_its_id_kind_and_kek) {
  Key kek = key_of(1);
  auto c = seal_credential(kek, "github", bytes("tok-123"));
  BOOST_REQUIRE(c);
  BOOST_TEST(opened(kek, *c) == "tok-123");
  BOOST_TEST(opened(key_of(9), *c).starts_with("error: "));  // another KEK
  CredentialEntry moved = *c;
  moved.id = "gitlab";  // moved to another id
  BOOST_TEST(opened(kek, moved).starts_with("error: "));
  CredentialEntry tampered = *c;
  tampered.ct[0] ^= 1;
  BOOST_TEST(opened(kek, tampered).starts_with("error: "));
  // A master key's line passed off as a credential (same id, same bytes): the AAD says the kind.
  Key master = key_of(3);
  auto m = seal_entry(kek, "db", master);
  BOOST_REQUIRE(m);
  CredentialEntry as_cred{"db", m->nonce, Bytes(m->ct.begin(), m->ct.end()), m->tag};
  BOOST_TEST(opened(kek, as_cred).starts_with("error: "));
  // And the other way: a credential's line read as a master key.
  auto c32 = seal_credential(kek, "db", bytes(std::string(32, 'a')));
  BOOST_REQUIRE(c32);
  VaultEntry as_master{"db", c32->nonce, {}, c32->tag};
  std::copy(c32->ct.begin(), c32->ct.end(), as_master.ct.begin());
  Key out{};
  BOOST_TEST(!open_entry(kek, as_master, out));
}

BOOST_AUTO_TEST_CASE(credential_values_and_lines_are_checked) {
  Key kek = key_of(1);
  BOOST_TEST(!seal_credential(kek, "x", bytes("")));                              // empty
  BOOST_TEST(!seal_credential(kek, "x", bytes(std::string(kMaxSecretLen + 1, 'a'))));  // too long
  BOOST_TEST(seal_credential(kek, "x", bytes(std::string(kMaxSecretLen, 'a'))).has_value());
  BOOST_TEST(!seal_credential(kek, "x", bytes("a\r\nX-Evil: 1")));  // would split a header
  BOOST_TEST(!seal_credential(kek, "x", bytes(std::string("a\0b", 3))));
  BOOST_TEST(!seal_credential(kek, "a/b", bytes("tok")));  // not a name
  auto c = seal_credential(kek, "github", bytes("tok"));
  auto m = seal_entry(kek, "github", key_of(2));
  BOOST_REQUIRE(c && m);
  // One id, one entry, whichever kind.
  auto twice = parse_vault(format_vault(*kek_id(kek), {*m}, {*c}));
  BOOST_REQUIRE(!twice);
  BOOST_TEST(twice.error().what().find("given twice") != std::string::npos, twice.error().what());
  auto bad_ct = parse_vault("sharness-vault/1\nkek=00\ncredential=a " + std::string(24, '0') + " 0 " +
                            std::string(32, '0') + "\n");
  BOOST_REQUIRE(!bad_ct);
  BOOST_TEST(bad_ct.error().what().find("line 3: ciphertext") != std::string::npos, bad_ct.error().what());
  auto long_ct = parse_vault("sharness-vault/1\nkek=00\ncredential=a " + std::string(24, '0') + " " +
                             std::string(2 * (kMaxSecretLen + 1), '0') + " " + std::string(32, '0') + "\n");
  BOOST_TEST(!long_ct);
  BOOST_TEST(!parse_vault("sharness-vault/1\nkek=00\ncredential=a 00\n"));
}

// Real tokens (JWTs, GitHub app tokens, cloud session tokens) run to several KiB: 8 KiB seals,
// one byte more is refused with an error that names the credential and the limit.
BOOST_AUTO_TEST_CASE(credential_limit_is_8_kib) {
  Key kek = key_of(1);
  auto at = seal_credential(kek, "jwt", bytes(std::string(8192, 'e')));
  BOOST_REQUIRE_MESSAGE(at, (at ? "" : at.error().what()));
  BOOST_TEST(at->ct.size() == 8192u);
  auto back = parse_vault(format_vault(*kek_id(kek), {}, {*at}));
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  std::string out(8192, '\0');
  BOOST_REQUIRE(open_credential(kek, back->credentials[0], {reinterpret_cast<uint8_t*>(out.data()), out.size()}));
  BOOST_TEST(out == std::string(8192, 'e'));
  auto over = seal_credential(kek, "jwt", bytes(std::string(8193, 'e')));
  BOOST_REQUIRE(!over);
  BOOST_TEST(over.error().what().find("credential \"jwt\"") != std::string::npos, over.error().what());
  BOOST_TEST(over.error().what().find("8193 bytes, more than the limit of 8192 bytes") != std::string::npos,
             over.error().what());
}
