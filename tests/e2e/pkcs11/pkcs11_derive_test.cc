// C_DeriveKey through the module against a real signetd, checked by an
// independent implementation: OpenSSL's EVP computes the same ECDH shared
// secret from the other side (its own key, signet's public key) and runs
// its "X963KDF" over it; the key signet derived must hold exactly those
// bytes. Then the errors a caller of the C ABI can hit, and X25519 / X448
// pairs (CKM_EC_MONTGOMERY_KEY_PAIR_GEN) agreeing with OpenSSL's.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>

#include <cstring>
#include <memory>

#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;
const CK_BYTE kP256Params[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Peer: the other party, an OpenSSL P-256 key and its raw public point.
struct Peer {
  Pkey key;
  std::vector<CK_BYTE> point;  // 04 || X || Y
};

Peer MakePeer() {
  Peer peer;
  peer.key.reset(EVP_EC_gen("P-256"));
  EXPECT_NE(peer.key, nullptr);
  if (!peer.key) return peer;
  std::size_t len = 0;
  EVP_PKEY_get_octet_string_param(peer.key.get(), OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0, &len);
  peer.point.resize(len);
  EXPECT_EQ(EVP_PKEY_get_octet_string_param(peer.key.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                            peer.point.data(), len, &len),
            1);
  return peer;
}

// OpensslSharedSecret: ECDH on the peer's side, with signet's public key.
std::vector<CK_BYTE> OpensslSharedSecret(EVP_PKEY* own, const std::string& other_pem) {
  BIO* bio = BIO_new_mem_buf(other_pem.data(), static_cast<int>(other_pem.size()));
  Pkey other(PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  EXPECT_NE(other, nullptr);
  if (!other) return {};
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, own, nullptr);
  std::size_t len = 0;
  std::vector<CK_BYTE> z;
  if (EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, other.get()) == 1 &&
      EVP_PKEY_derive(ctx, nullptr, &len) == 1) {
    z.resize(len);
    if (EVP_PKEY_derive(ctx, z.data(), &len) != 1) z.clear();
  }
  EVP_PKEY_CTX_free(ctx);
  EXPECT_EQ(z.size(), 32u);
  return z;
}

// OpensslX963: OpenSSL's "X963KDF" with `digest` over z and `info`.
std::vector<CK_BYTE> OpensslX963(const char* digest, const std::vector<CK_BYTE>& z,
                                 const std::vector<CK_BYTE>& info, std::size_t len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "X963KDF", nullptr);
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<CK_BYTE*>(z.data()),
                                        z.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<CK_BYTE*>(info.data()),
                                        info.size()),
      OSSL_PARAM_END};
  std::vector<CK_BYTE> out(len);
  EXPECT_EQ(EVP_KDF_derive(ctx, out.data(), out.size(), params), 1);
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  return out;
}

// DeriveTest: a logged-in session and a P-256 session pair whose private
// half may derive (Start), and C_DeriveKey for an extractable AES key.
class DeriveTest : public ModuleTest {
 protected:
  void Start() {
    session_ = OpenSession();
    LoginUser(session_);
    CK_MECHANISM gen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
    CK_ATTRIBUTE pub_tmpl[] = {
        {CKA_EC_PARAMS, const_cast<CK_BYTE*>(kP256Params), sizeof(kP256Params)},
        {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1}};
    CK_ATTRIBUTE priv_tmpl[] = {{CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                                {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    ASSERT_EQ(p11()->C_GenerateKeyPair(session_, &gen, pub_tmpl, 2, priv_tmpl, 2, &pub_, &priv_),
              CKR_OK);
  }

  std::string PublicPem() { return EcPublicKeyPem(session_, pub_); }

  // Derive runs C_DeriveKey for an extractable AES key of `len` bytes.
  CK_RV Derive(CK_ECDH1_DERIVE_PARAMS params, CK_ULONG len, CK_OBJECT_HANDLE* key,
               CK_MECHANISM_TYPE type = CKM_ECDH1_DERIVE) {
    CK_MECHANISM mech = {type, &params, sizeof(params)};
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE key_type = CKK_AES;
    CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                           {CKA_KEY_TYPE, &key_type, sizeof(key_type)},
                           {CKA_VALUE_LEN, &len, sizeof(len)},
                           {CKA_SENSITIVE, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_EXTRACTABLE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    return p11()->C_DeriveKey(session_, &mech, priv_, tmpl, 5, key);
  }

  std::vector<CK_BYTE> Value(CK_OBJECT_HANDLE key) {
    return ReadAttribute(session_, key, CKA_VALUE);
  }

  CK_SESSION_HANDLE session_ = 0;
  CK_OBJECT_HANDLE pub_ = 0, priv_ = 0;
};

TEST_F(DeriveTest, EcdhWithEveryShaKdfMatchesOpensslX963) {
  Start();
  Peer peer = MakePeer();
  const std::vector<CK_BYTE> z = OpensslSharedSecret(peer.key.get(), PublicPem());
  std::vector<CK_BYTE> info = {'s', 'i', 'g', 'n', 'e', 't'};
  const std::pair<CK_ULONG, const char*> kdfs[] = {{CKD_SHA1_KDF, "SHA1"},
                                                   {CKD_SHA224_KDF, "SHA224"},
                                                   {CKD_SHA256_KDF, "SHA256"},
                                                   {CKD_SHA384_KDF, "SHA384"},
                                                   {CKD_SHA512_KDF, "SHA512"}};
  for (const auto& [kdf, name] : kdfs) {
    SCOPED_TRACE(name);
    CK_ECDH1_DERIVE_PARAMS params = {kdf, info.size(), info.data(), peer.point.size(),
                                     peer.point.data()};
    CK_OBJECT_HANDLE key = 0;
    ASSERT_EQ(Derive(params, 32, &key), CKR_OK);
    EXPECT_EQ(Value(key), OpensslX963(name, z, info, 32));
  }
}

TEST_F(DeriveTest, NullKdfIsTheSharedSecretWithTheRawOrWrappedPoint) {
  Start();
  Peer peer = MakePeer();
  const std::vector<CK_BYTE> z = OpensslSharedSecret(peer.key.get(), PublicPem());
  std::vector<CK_BYTE> wrapped = {0x04, static_cast<CK_BYTE>(peer.point.size())};
  wrapped.insert(wrapped.end(), peer.point.begin(), peer.point.end());
  for (std::vector<CK_BYTE>* point : {&peer.point, &wrapped}) {
    for (CK_MECHANISM_TYPE type : {CKM_ECDH1_DERIVE, CKM_ECDH1_COFACTOR_DERIVE}) {
      CK_ECDH1_DERIVE_PARAMS params = {CKD_NULL, 0, nullptr, point->size(), point->data()};
      CK_OBJECT_HANDLE key = 0;
      ASSERT_EQ(Derive(params, 32, &key, type), CKR_OK);
      EXPECT_EQ(Value(key), z);
    }
  }
}

TEST_F(DeriveTest, ErrorsReachTheCaller) {
  Start();
  Peer peer = MakePeer();
  CK_OBJECT_HANDLE key = 0;
  CK_ECDH1_DERIVE_PARAMS unknown_kdf = {CKD_SHA1_KDF_ASN1, 0, nullptr, peer.point.size(),
                                        peer.point.data()};
  EXPECT_EQ(Derive(unknown_kdf, 32, &key), CKR_MECHANISM_PARAM_INVALID);
  std::vector<CK_BYTE> off_curve = peer.point;
  off_curve.back() ^= 1;
  CK_ECDH1_DERIVE_PARAMS bad_point = {CKD_NULL, 0, nullptr, off_curve.size(), off_curve.data()};
  EXPECT_EQ(Derive(bad_point, 32, &key), CKR_MECHANISM_PARAM_INVALID);
  CK_ECDH1_DERIVE_PARAMS ok = {CKD_NULL, 0, nullptr, peer.point.size(), peer.point.data()};
  EXPECT_EQ(Derive(ok, 32, nullptr), CKR_ARGUMENTS_BAD);
  // A signing mechanism does not derive.
  CK_MECHANISM ecdsa = {CKM_ECDSA, nullptr, 0};
  EXPECT_EQ(p11()->C_DeriveKey(session_, &ecdsa, priv_, nullptr, 0, &key), CKR_MECHANISM_INVALID);
  // A key without CKA_DERIVE.
  CK_OBJECT_HANDLE pub = 0, no_derive = 0;
  MakeEcKey(session_, "no-derive", /*token=*/false, &pub, &no_derive);
  CK_MECHANISM mech = {CKM_ECDH1_DERIVE, &ok, sizeof(ok)};
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE aes = CKK_AES;
  CK_ULONG len = 16;
  CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                         {CKA_KEY_TYPE, &aes, sizeof(aes)},
                         {CKA_VALUE_LEN, &len, sizeof(len)}};
  EXPECT_EQ(p11()->C_DeriveKey(session_, &mech, no_derive, tmpl, 3, &key),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  EXPECT_EQ(p11()->C_DeriveKey(session_, &mech, 0xbad, tmpl, 3, &key), CKR_KEY_HANDLE_INVALID);
}

// X25519 and X448: a pair made through the module, an OpenSSL key on the
// other side; the CKA_EC_POINT (a DER OCTET STRING) is what OpenSSL reads
// as the raw public key, and both sides reach the same secret.
TEST_F(DeriveTest, MontgomeryPairsAgreeWithOpenssl) {
  Start();
  struct Curve {
    const char* name;
    std::vector<CK_BYTE> oid;
    std::size_t size;
  };
  const Curve curves[] = {{"X25519", {0x06, 0x03, 0x2b, 0x65, 0x6e}, 32},
                          {"X448", {0x06, 0x03, 0x2b, 0x65, 0x6f}, 56}};
  for (const Curve& curve : curves) {
    SCOPED_TRACE(curve.name);
    CK_MECHANISM gen = {CKM_EC_MONTGOMERY_KEY_PAIR_GEN, nullptr, 0};
    CK_ATTRIBUTE pub_tmpl[] = {
        {CKA_EC_PARAMS, const_cast<CK_BYTE*>(curve.oid.data()), curve.oid.size()},
        {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1}};
    CK_ATTRIBUTE priv_tmpl[] = {{CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                                {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    CK_OBJECT_HANDLE pub = 0, priv = 0;
    ASSERT_EQ(p11()->C_GenerateKeyPair(session_, &gen, pub_tmpl, 2, priv_tmpl, 2, &pub, &priv),
              CKR_OK);
    std::vector<CK_BYTE> point = ReadAttribute(session_, pub, CKA_EC_POINT);
    ASSERT_EQ(point.size(), curve.size + 2);
    EXPECT_EQ(point[0], 0x04);
    Pkey signet_pub(
        EVP_PKEY_new_raw_public_key_ex(nullptr, curve.name, nullptr, point.data() + 2, curve.size));
    ASSERT_NE(signet_pub, nullptr);
    Pkey peer(EVP_PKEY_Q_keygen(nullptr, nullptr, curve.name));
    ASSERT_NE(peer, nullptr);
    std::vector<CK_BYTE> peer_point(curve.size);
    std::size_t len = peer_point.size();
    ASSERT_EQ(EVP_PKEY_get_raw_public_key(peer.get(), peer_point.data(), &len), 1);
    // OpenSSL's side.
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, peer.get(), nullptr);
    std::vector<CK_BYTE> z(curve.size);
    len = z.size();
    ASSERT_EQ(EVP_PKEY_derive_init(ctx), 1);
    ASSERT_EQ(EVP_PKEY_derive_set_peer(ctx, signet_pub.get()), 1);
    ASSERT_EQ(EVP_PKEY_derive(ctx, z.data(), &len), 1);
    EVP_PKEY_CTX_free(ctx);
    // signet's side, as a 32-byte AES key: all of the X25519 secret, the
    // last 32 bytes of X448's 56 (CKD_NULL keeps the trailing bytes).
    CK_ECDH1_DERIVE_PARAMS params = {CKD_NULL, 0, nullptr, peer_point.size(), peer_point.data()};
    CK_MECHANISM mech = {CKM_ECDH1_DERIVE, &params, sizeof(params)};
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE aes = CKK_AES;
    CK_ULONG key_len = 32;
    CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                           {CKA_KEY_TYPE, &aes, sizeof(aes)},
                           {CKA_VALUE_LEN, &key_len, sizeof(key_len)},
                           {CKA_SENSITIVE, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_EXTRACTABLE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    CK_OBJECT_HANDLE key = 0;
    ASSERT_EQ(p11()->C_DeriveKey(session_, &mech, priv, tmpl, 5, &key), CKR_OK);
    EXPECT_EQ(Value(key), std::vector<CK_BYTE>(z.end() - 32, z.end()));
  }
}

}  // namespace
}  // namespace signet::e2e
