// Diffie-Hellman through the module against a real signetd, checked by an
// independent implementation: a pair made with CKM_DH_PKCS_KEY_PAIR_GEN in
// ffdhe2048 and a key from `openssl genpkey -algorithm DH -pkeyopt
// group:ffdhe2048` reach the same secret, C_DeriveKey with
// CKM_DH_PKCS_DERIVE on signet's side and `openssl pkeyutl -derive` on the
// other. C_GetMechanismList lists both mechanisms with their flags and
// sizes; the refusals reach the caller.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <algorithm>
#include <memory>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::vector<CK_BYTE> BnParam(const EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &bn), 1) << name;
  if (bn == nullptr) return {};
  std::vector<CK_BYTE> out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_free(bn);
  return out;
}

Pkey ReadPrivatePem(const std::string& path) {
  std::vector<std::uint8_t> pem = ReadBinaryFile(path);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  Pkey key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return key;
}

// PublicPem: the PEM SubjectPublicKeyInfo of the ffdhe2048 public value y.
std::string PublicPem(const std::vector<CK_BYTE>& y) {
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  BIGNUM* bn = BN_bin2bn(y.data(), static_cast<int>(y.size()), nullptr);
  OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "ffdhe2048", 0);
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, bn);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr);
  EVP_PKEY* raw = nullptr;
  EXPECT_EQ(EVP_PKEY_fromdata_init(ctx), 1);
  EXPECT_EQ(EVP_PKEY_fromdata(ctx, &raw, EVP_PKEY_PUBLIC_KEY, params), 1);
  Pkey key(raw);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  BN_free(bn);
  OSSL_PARAM_BLD_free(bld);
  std::string out;
  BIO* bio = BIO_new(BIO_s_mem());
  if (key && PEM_write_bio_PUBKEY(bio, key.get()) == 1) {
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    out.assign(data, static_cast<std::size_t>(len));
  }
  BIO_free(bio);
  return out;
}

class DhTest : public ModuleTest {
 protected:
  // Start opens a logged-in session and reads ffdhe2048's prime and base
  // from an `openssl genpkey` key (the peer's), kept in Path("peer.pem").
  void Start() {
    session_ = OpenSession();
    LoginUser(session_);
    ProgramResult gen = OpenSsl(
        {"genpkey", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048", "-out", Path("peer.pem")});
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    peer_ = ReadPrivatePem(Path("peer.pem"));
    ASSERT_NE(peer_, nullptr);
    prime_ = BnParam(peer_.get(), OSSL_PKEY_PARAM_FFC_P);
    base_ = BnParam(peer_.get(), OSSL_PKEY_PARAM_FFC_G);
    peer_y_ = BnParam(peer_.get(), OSSL_PKEY_PARAM_PUB_KEY);
  }

  CK_RV Generate(const std::vector<CK_BYTE>& prime, CK_OBJECT_HANDLE* pub, CK_OBJECT_HANDLE* priv) {
    CK_MECHANISM gen = {CKM_DH_PKCS_KEY_PAIR_GEN, nullptr, 0};
    CK_ATTRIBUTE pub_tmpl[] = {{CKA_PRIME, const_cast<CK_BYTE*>(prime.data()), prime.size()},
                               {CKA_BASE, base_.data(), base_.size()},
                               {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1}};
    CK_ATTRIBUTE priv_tmpl[] = {{CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                                {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    return p11()->C_GenerateKeyPair(session_, &gen, pub_tmpl, 3, priv_tmpl, 2, pub, priv);
  }

  // Derive runs CKM_DH_PKCS_DERIVE with the other party's value `y` for an
  // extractable generic secret of the prime's length.
  CK_RV Derive(CK_OBJECT_HANDLE priv, std::vector<CK_BYTE> y, CK_OBJECT_HANDLE* key) {
    CK_MECHANISM mech = {CKM_DH_PKCS_DERIVE, y.data(), y.size()};
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE type = CKK_GENERIC_SECRET;
    CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                           {CKA_KEY_TYPE, &type, sizeof(type)},
                           {CKA_SENSITIVE, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_EXTRACTABLE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    return p11()->C_DeriveKey(session_, &mech, priv, tmpl, 4, key);
  }

  CK_SESSION_HANDLE session_ = 0;
  Pkey peer_;
  std::vector<CK_BYTE> prime_, base_, peer_y_;
};

TEST_F(DhTest, MechanismListHasBothWithTheirFlagsAndSizes) {
  CK_ULONG count = 0;
  ASSERT_EQ(p11()->C_GetMechanismList(TokenSlot(), nullptr, &count), CKR_OK);
  std::vector<CK_MECHANISM_TYPE> list(count);
  ASSERT_EQ(p11()->C_GetMechanismList(TokenSlot(), list.data(), &count), CKR_OK);
  const std::pair<CK_MECHANISM_TYPE, CK_FLAGS> expected[] = {
      {CKM_DH_PKCS_KEY_PAIR_GEN, CKF_GENERATE_KEY_PAIR}, {CKM_DH_PKCS_DERIVE, CKF_DERIVE}};
  for (const auto& [type, flags] : expected) {
    SCOPED_TRACE(type);
    EXPECT_NE(std::find(list.begin(), list.end(), type), list.end());
    CK_MECHANISM_INFO info = {};
    ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), type, &info), CKR_OK);
    EXPECT_EQ(info.flags & ~CKF_HW, flags);
    EXPECT_EQ(info.ulMinKeySize, 2048u);
    EXPECT_EQ(info.ulMaxKeySize, 8192u);  // ffdhe8192
  }
}

TEST_F(DhTest, DeriveAgreesWithOpensslPkeyutlDerive) {
  Start();
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  ASSERT_EQ(Generate(prime_, &pub, &priv), CKR_OK);
  EXPECT_EQ(ReadAttribute(session_, pub, CKA_PRIME), prime_);
  EXPECT_EQ(ReadAttribute(session_, priv, CKA_BASE), base_);
  const std::vector<CK_BYTE> y = ReadAttribute(session_, pub, CKA_VALUE);
  WriteTextFile(Path("signet_pub.pem"), PublicPem(y));
  ProgramResult derive =
      OpenSsl({"pkeyutl", "-derive", "-inkey", Path("peer.pem"), "-peerkey", Path("signet_pub.pem"),
               "-pkeyopt", "dh_pad:1", "-out", Path("z.bin")});
  ASSERT_EQ(derive.exit_code, 0) << derive.err;
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(Derive(priv, peer_y_, &key), CKR_OK);
  const std::vector<CK_BYTE> z = ReadAttribute(session_, key, CKA_VALUE);
  EXPECT_EQ(z.size(), 256u);
  EXPECT_EQ(z, ReadBinaryFile(Path("z.bin")));
}

TEST_F(DhTest, RefusalsReachTheCaller) {
  Start();
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  std::vector<CK_BYTE> other_prime = prime_;
  other_prime[40] ^= 0x04;
  EXPECT_EQ(Generate(other_prime, &pub, &priv), CKR_ATTRIBUTE_VALUE_INVALID);
  ASSERT_EQ(Generate(prime_, &pub, &priv), CKR_OK);
  std::vector<CK_BYTE> p_minus_1 = prime_;
  p_minus_1.back() -= 1;
  CK_OBJECT_HANDLE key = 0;
  EXPECT_EQ(Derive(priv, p_minus_1, &key), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Derive(priv, {1}, &key), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Derive(priv, prime_, &key), CKR_MECHANISM_PARAM_INVALID);
}

}  // namespace
}  // namespace signet::e2e
