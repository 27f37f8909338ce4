#define BOOST_TEST_MODULE kms_crypto
#include <boost/test/unit_test.hpp>

#include "kms/crypto.hpp"
#include "kms/vault.hpp"

using namespace sh::kms;

namespace {
Key key_of(std::string_view hex) {
  auto b = from_hex(hex, kKeyLen, "test key");
  BOOST_REQUIRE(b);
  Key k{};
  std::copy(b->begin(), b->end(), k.begin());
  return k;
}
std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
}  // namespace

// RFC 5869 appendix A.1: HKDF-SHA256 is the real thing.
BOOST_AUTO_TEST_CASE(hkdf_matches_rfc5869_case_1) {
  std::vector<uint8_t> ikm(22, 0x0b), salt;
  for (uint8_t i = 0; i <= 0x0c; ++i) salt.push_back(i);
  std::string info;
  for (uint8_t i = 0xf0; i <= 0xf9; ++i) info.push_back(static_cast<char>(i));
  std::vector<uint8_t> okm(42);
  BOOST_REQUIRE(hkdf_sha256(ikm, salt, info, okm));
  BOOST_TEST(to_hex(okm) ==
             "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

// RFC 7748 section 6.1: Alice's public key from her private key.
BOOST_AUTO_TEST_CASE(x25519_public_matches_rfc7748) {
  auto pub = x25519_public(key_of("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
  BOOST_REQUIRE(pub);
  BOOST_TEST(to_hex(*pub) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
}

BOOST_AUTO_TEST_CASE(derive_is_deterministic_and_context_bound) {
  Key master = key_of("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  Key a{}, b{}, host2{}, vault2{}, op2{}, master2{};
  BOOST_REQUIRE(derive(master, "db", "db.internal", "read", a));
  BOOST_REQUIRE(derive(master, "db", "db.internal", "read", b));
  BOOST_TEST(to_hex(a) == to_hex(b));
  BOOST_REQUIRE(derive(master, "db", "other.internal", "read", host2));
  BOOST_REQUIRE(derive(master, "db2", "db.internal", "read", vault2));
  BOOST_REQUIRE(derive(master, "db", "db.internal", "write", op2));
  Key other = master;
  other[0] ^= 1;
  BOOST_REQUIRE(derive(other, "db", "db.internal", "read", master2));
  for (const Key* k : {&host2, &vault2, &op2, &master2}) BOOST_TEST(to_hex(*k) != to_hex(a));
  // The derived key is HKDF-SHA256(master, no salt, info) and nothing else.
  Key direct{};
  BOOST_REQUIRE(hkdf_sha256(master, {}, "sharness-kms/v1|db|db.internal|read", direct));
  BOOST_TEST(to_hex(direct) == to_hex(a));
  BOOST_TEST(to_hex(a) != to_hex(master));
}

BOOST_AUTO_TEST_CASE(seal_opens_only_with_the_one_time_key_and_the_same_aad) {
  Key secret = key_of("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf");
  auto caller = x25519_generate();
  auto thief = x25519_generate();
  BOOST_REQUIRE(caller && thief);
  auto s = seal(secret, caller->pub, "request-1");
  BOOST_REQUIRE(s);
  BOOST_TEST(to_hex(s->ct) != to_hex(secret));
  Key out{};
  BOOST_REQUIRE(open(*s, caller->priv.k, "request-1", out));
  BOOST_TEST(to_hex(out) == to_hex(secret));

  Key bad{};
  auto r = open(*s, thief->priv.k, "request-1", bad);  // replayed to another one-time key
  BOOST_TEST(!r);
  BOOST_TEST(r.error().what().find("authentication failed") != std::string::npos);
  BOOST_TEST(!open(*s, caller->priv.k, "request-2", bad));  // another request's AAD
  Sealed tampered = *s;
  tampered.ct[0] ^= 1;
  BOOST_TEST(!open(tampered, caller->priv.k, "request-1", bad));
  BOOST_TEST(to_hex(bad) == std::string(64, '0'));  // nothing unauthenticated is left behind

  auto s2 = seal(secret, caller->pub, "request-1");  // a fresh ephemeral key and nonce each time
  BOOST_REQUIRE(s2);
  BOOST_TEST(to_hex(s2->epk) != to_hex(s->epk));
  BOOST_TEST(to_hex(s2->ct) != to_hex(s->ct));
}

BOOST_AUTO_TEST_CASE(seal_refuses_a_low_order_public_key) {
  Key secret{}, zero{};
  BOOST_TEST(!seal(secret, zero, "x"));
}

BOOST_AUTO_TEST_CASE(vault_round_trip_and_tamper) {
  Key kek = key_of("1111111111111111111111111111111111111111111111111111111111111111");
  Key kek2 = key_of("2222222222222222222222222222222222222222222222222222222222222222");
  Key m1 = key_of("0101010101010101010101010101010101010101010101010101010101010101");
  Key m2 = key_of("0202020202020202020202020202020202020202020202020202020202020202");
  auto e1 = seal_entry(kek, "db", m1);
  auto e2 = seal_entry(kek, "web", m2);
  BOOST_REQUIRE(e1 && e2);
  std::string text = format_vault(*kek_id(kek), {*e1, *e2});
  BOOST_TEST(text.find(to_hex(m1)) == std::string::npos);
  auto v = parse_vault(text);
  BOOST_REQUIRE(v);
  BOOST_REQUIRE(v->entries.size() == 2u);
  BOOST_TEST(v->kek_id == *kek_id(kek));
  Key out{};
  BOOST_REQUIRE(open_entry(kek, v->entries[1], out));
  BOOST_TEST(to_hex(out) == to_hex(m2));
  BOOST_TEST(!open_entry(kek2, v->entries[0], out));  // another KEK
  VaultEntry swapped = v->entries[0];
  swapped.id = "web";  // an entry moved to another id does not open
  BOOST_TEST(!open_entry(kek, swapped, out));
}

BOOST_AUTO_TEST_CASE(vault_parse_errors_name_the_line) {
  auto r = parse_vault("sharness-vault/1\nkek=00\nvault=db 00 11\n");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("line 3") != std::string::npos);
  BOOST_TEST(!parse_vault("nope\n"));
  BOOST_TEST(!parse_vault("sharness-vault/1\nvault=db " + std::string(24, '0') + " " + std::string(64, '0') + " " +
                          std::string(32, '0') + "\n"));  // no kek line
  auto dup = parse_vault("sharness-vault/1\nkek=0\nvault=a " + std::string(24, '0') + " " + std::string(64, '0') +
                         " " + std::string(32, '0') + "\nvault=a " + std::string(24, '0') + " " +
                         std::string(64, '0') + " " + std::string(32, '0') + "\n");
  BOOST_REQUIRE(!dup);
  BOOST_TEST(dup.error().what().find("twice") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(aes_gcm_round_trip) {
  Key k = key_of("3333333333333333333333333333333333333333333333333333333333333333");
  std::array<uint8_t, kNonceLen> n{};
  std::array<uint8_t, kTagLen> tag{};
  std::string plain = "not a secret, just bytes";
  std::vector<uint8_t> ct(plain.size()), back(plain.size());
  BOOST_REQUIRE(aes_gcm_encrypt(k, n, bytes("aad"), bytes(plain), ct, tag));
  BOOST_REQUIRE(aes_gcm_decrypt(k, n, bytes("aad"), ct, tag, back));
  BOOST_TEST(std::string(back.begin(), back.end()) == plain);
  tag[3] ^= 0x80;
  BOOST_TEST(!aes_gcm_decrypt(k, n, bytes("aad"), ct, tag, back));
}
