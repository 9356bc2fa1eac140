// wire_convert: wire tables to core types and back, for the shapes a client
// sends (absent fields, typed parameters, empty values).
#include "daemon/wire_convert.h"

#include <gtest/gtest.h>

#include <vector>

#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

// Root builds a buffer whose root is the table `build(fbb)` returns and
// returns a pointer to that table (valid while `fbb` lives).
template <typename T, typename Build>
const T* Root(fb::FlatBufferBuilder& fbb, Build&& build) {
  fbb.Finish(build(fbb));
  return fb::GetRoot<T>(fbb.GetBufferPointer());
}

TEST(WireConvert, TemplateRoundTripsTypesAndValuesInOrder) {
  fb::FlatBufferBuilder fbb;
  const AttributeList attributes = {
      {CKA_CLASS, U(CKO_SECRET_KEY)}, {CKA_LABEL, S("k")}, {CKA_TOKEN, B(true)}, {CKA_ID, {}}};
  auto* request = Root<wire::CreateObjectRequest>(fbb, [&](auto& b) {
    return wire::CreateCreateObjectRequest(b, 1, DispatchFixture::Template(b, attributes));
  });
  WipedTemplate converted = ToTemplate(request->template_());
  const core::Template& t = converted;
  ASSERT_EQ(t.size(), attributes.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].type, attributes[i].first) << i;
    EXPECT_EQ(std::vector<std::uint8_t>(t[i].value.begin(), t[i].value.end()), attributes[i].second)
        << i;
  }
}

TEST(WireConvert, AbsentPiecesBecomeEmpty) {
  fb::FlatBufferBuilder fbb;
  auto* request = Root<wire::SignRequest>(fbb, [](auto& b) { return wire::CreateSignRequest(b); });
  EXPECT_TRUE(View(request->data()).empty());
  WipedTemplate empty = ToTemplate(nullptr);
  EXPECT_TRUE(static_cast<const core::Template&>(empty).empty());
  signet::Mechanism none = ToMechanism(request->mechanism());
  EXPECT_EQ(none.type, 0u);  // matches no mechanism: CKR_MECHANISM_INVALID later
  EXPECT_FALSE(none.pss.has_value());
  EXPECT_FALSE(none.gcm.has_value());
}

TEST(WireConvert, MechanismParametersKeepTheirValues) {
  fb::FlatBufferBuilder fbb;
  auto* pss = Root<wire::Mechanism>(fbb, [](auto& b) {
    return wire::CreateMechanism(b, CKM_SHA256_RSA_PKCS_PSS,
                                 wire::CreatePssParams(b, CKM_SHA256, CKG_MGF1_SHA256, 32));
  });
  signet::Mechanism converted = ToMechanism(pss);
  EXPECT_EQ(converted.type, CKM_SHA256_RSA_PKCS_PSS);
  ASSERT_TRUE(converted.pss.has_value());
  EXPECT_EQ(converted.pss->hash_alg, CKM_SHA256);
  EXPECT_EQ(converted.pss->mgf, CKG_MGF1_SHA256);
  EXPECT_EQ(converted.pss->salt_len, 32u);
  EXPECT_FALSE(converted.gcm.has_value());

  fb::FlatBufferBuilder gcm_fbb;
  auto* gcm = Root<wire::Mechanism>(gcm_fbb, [](auto& b) {
    return wire::CreateMechanism(
        b, CKM_AES_GCM, 0,
        wire::CreateGcmParams(b, b.CreateVector(std::vector<std::uint8_t>{1, 2, 3}),
                              b.CreateVector(S("aad")), 96));
  });
  signet::Mechanism aes = ToMechanism(gcm);
  ASSERT_TRUE(aes.gcm.has_value());
  EXPECT_EQ(std::vector<std::uint8_t>(aes.gcm->iv.begin(), aes.gcm->iv.end()),
            (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(std::vector<std::uint8_t>(aes.gcm->aad.begin(), aes.gcm->aad.end()), S("aad"));
  EXPECT_EQ(aes.gcm->tag_bits, 96u);

  // The schema's default tag length is 128 bits.
  fb::FlatBufferBuilder default_fbb;
  auto* defaulted = Root<wire::Mechanism>(default_fbb, [](auto& b) {
    return wire::CreateMechanism(b, CKM_AES_GCM, 0, wire::CreateGcmParams(b));
  });
  EXPECT_EQ(ToMechanism(defaulted).gcm->tag_bits, 128u);
}

// The derivation, MAC and EdDSA parameters arrive as they were sent; the
// optional scalars stay absent when not sent.
TEST(WireConvert, DerivationParametersKeepTheirValues) {
  fb::FlatBufferBuilder fbb;
  auto* m = Root<wire::Mechanism>(fbb, [](auto& b) {
    auto ecdh = wire::CreateEcdhParams(b, CKD_SHA256_KDF, b.CreateVector(S("sd")),
                                       b.CreateVector(S("peer")));
    auto eddsa = wire::CreateEddsaParams(b, true, b.CreateVector(S("ctx")));
    auto hkdf = wire::CreateHkdfParams(b, true, false, CKM_SHA384, CKF_HKDF_SALT_KEY,
                                       b.CreateVector(S("salt")), 77, b.CreateVector(S("info")));
    auto oaep = wire::CreateOaepParams(b, CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED,
                                       b.CreateVector(S("label")));
    auto rsa_aes = wire::CreateRsaAesWrapParams(b, 256, oaep);
    auto derivation =
        wire::CreateDerivationData(b, b.CreateVector(S("iv")), b.CreateVector(S("d")));
    return wire::CreateMechanism(b, CKM_ECDH1_DERIVE, 0, 0, 0, 0, 0, 16, ecdh, eddsa, hkdf, rsa_aes,
                                 derivation, 9);
  });
  signet::Mechanism c = ToMechanism(m);
  EXPECT_EQ(c.mac_length, std::optional<CK_ULONG>(16));
  ASSERT_TRUE(c.ecdh && c.eddsa && c.hkdf && c.rsa_aes && c.derivation);
  EXPECT_EQ(c.ecdh->kdf, static_cast<CK_ULONG>(CKD_SHA256_KDF));
  EXPECT_EQ(c.ecdh->shared_data, S("sd"));
  EXPECT_EQ(c.ecdh->public_data, S("peer"));
  EXPECT_TRUE(c.eddsa->prehash);
  EXPECT_EQ(c.eddsa->context, S("ctx"));
  EXPECT_TRUE(c.hkdf->extract);
  EXPECT_FALSE(c.hkdf->expand);
  EXPECT_EQ(c.hkdf->prf_hash, static_cast<CK_ULONG>(CKM_SHA384));
  EXPECT_EQ(c.hkdf->salt_type, static_cast<CK_ULONG>(CKF_HKDF_SALT_KEY));
  EXPECT_EQ(c.hkdf->salt, S("salt"));
  EXPECT_EQ(c.hkdf->salt_key, 77u);
  EXPECT_EQ(c.hkdf->info, S("info"));
  EXPECT_EQ(c.rsa_aes->aes_key_bits, 256u);
  EXPECT_EQ(c.rsa_aes->oaep.hash_alg, static_cast<CK_ULONG>(CKM_SHA256));
  EXPECT_EQ(c.rsa_aes->oaep.source_data, S("label"));
  EXPECT_EQ(c.derivation->iv, S("iv"));
  EXPECT_EQ(c.derivation->data, S("d"));
  EXPECT_EQ(c.other_key, std::optional<CK_OBJECT_HANDLE>(9));

  fb::FlatBufferBuilder bare_fbb;
  auto* bare = Root<wire::Mechanism>(
      bare_fbb, [](auto& b) { return wire::CreateMechanism(b, CKM_SHA256_HMAC_GENERAL); });
  signet::Mechanism none = ToMechanism(bare);
  EXPECT_FALSE(none.mac_length.has_value());
  EXPECT_FALSE(none.other_key.has_value());
  EXPECT_FALSE(none.ecdh.has_value());
}

TEST(WireConvert, OperationKindsBeyondTheEnumAreRefused) {
  EXPECT_EQ(ToOperationKind(wire::OperationKind::Decrypt), OperationKind::kDecrypt);
  EXPECT_EQ(ToOperationKind(static_cast<wire::OperationKind>(5)), std::nullopt);
}

TEST(WireConvert, ViewPointsIntoTheRequestBuffer) {
  fb::FlatBufferBuilder fbb;
  auto* request = Root<wire::DigestRequest>(
      fbb, [](auto& b) { return wire::CreateDigestRequest(b, 1, 0, b.CreateVector(S("bytes"))); });
  auto view = View(request->data());
  EXPECT_EQ(view.data(), request->data()->data());
  EXPECT_EQ(std::string(view.begin(), view.end()), "bytes");
}

}  // namespace
}  // namespace signet::daemon
