// The dispatch scenarios of the cryptographic request types: sign, verify,
// digest, encrypt, decrypt, wrap, unwrap, derive and random numbers
// (dispatch_test.cc runs them for every request type of the schema).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

// ---------------------------------------------------------------- crypto

const std::vector<std::uint8_t> kMessage = S("message to sign");
const std::vector<std::uint8_t> kMessage16 = S("sixteen bytes!!!");

std::vector<std::uint8_t> SignOnce(DispatchFixture& t, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key) {
  auto sig = t.hsm_->Sign(*t.owner_, s, key, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage);
  EXPECT_TRUE(sig.ok());
  return sig.ok() ? *sig : std::vector<std::uint8_t>{};
}

void SignOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  // Plain names, not a structured binding: clang 14 (the fuzz and
  // sanitizer build) cannot capture a binding in a lambda.
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::SignRequest, [&](auto& fbb) {
    return wire::CreateSignRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                   fbb.CreateVector(kMessage));
  });
  ExpectOk(ran);  // signatures are not audited one by one
  // A fresh connection has no signature time yet: a worker signs.
  EXPECT_EQ(ran.route, Route::kWorker);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  std::vector<std::uint8_t> signature(data->data()->begin(), data->data()->end());
  EXPECT_EQ(signature.size(), 64u);  // P-256 r||s
  EXPECT_TRUE(t.hsm_
                  ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage,
                           signature)
                  .ok());
}
void SignRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  // A public key cannot sign (PKCS#11 C_SignInit: CKR_KEY_TYPE_INCONSISTENT).
  ExpectRefused(t.Run(RequestBody::SignRequest,
                      [&](auto& fbb) {
                        return wire::CreateSignRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                                       fbb.CreateVector(kMessage));
                      }),
                CKR_KEY_TYPE_INCONSISTENT);
  // After logout the private key cannot be used.
  ASSERT_TRUE(t.hsm_->Logout(*t.owner_, s).ok());
  Ran ran = t.Run(RequestBody::SignRequest, [&](auto& fbb) {
    return wire::CreateSignRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                   fbb.CreateVector(kMessage));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
}

void SignBatchOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::SignBatchRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::Blob>> inputs;
    for (const char* text : {"one", "two", "three"}) {
      inputs.push_back(wire::CreateBlob(fbb, t.Bytes(fbb, text)));
    }
    return wire::CreateSignBatchRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                        fbb.CreateVector(inputs));
  });
  ExpectOk(ran);
  EXPECT_EQ(ran.route, Route::kWorker);
  EXPECT_EQ(ran.reply_bound, 3 * 544 + 256u);
  auto* results = ran.body<wire::SignBatchResponse>();
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->results()->size(), 3u);
  const char* texts[] = {"one", "two", "three"};
  for (std::size_t i = 0; i < 3; ++i) {
    auto* result = results->results()->Get(i);
    EXPECT_EQ(result->rv(), CKR_OK);
    std::vector<std::uint8_t> signature(result->data()->begin(), result->data()->end());
    EXPECT_TRUE(t.hsm_
                    ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}},
                             S(texts[i]), signature)
                    .ok())
        << i;
  }
}
void SignBatchRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::SignBatchRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::Blob>> inputs(kMaxSignBatchInputs + 1,
                                               wire::CreateBlob(fbb, t.Bytes(fbb, "x")));
    return wire::CreateSignBatchRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                        fbb.CreateVector(inputs));
  });
  ExpectRefused(ran, CKR_ARGUMENTS_BAD);
  EXPECT_NE(ran.message().find("at most 1024 inputs (got 1025)"), std::string::npos)
      << ran.message();
}

void VerifyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  std::vector<std::uint8_t> signature = SignOnce(t, s, priv);
  Ran ran = t.Run(RequestBody::VerifyRequest, [&](auto& fbb) {
    return wire::CreateVerifyRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                     fbb.CreateVector(kMessage), fbb.CreateVector(signature));
  });
  ExpectOk(ran);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
}
void VerifyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  std::vector<std::uint8_t> signature = SignOnce(t, s, priv);
  signature[5] ^= 1;
  ExpectRefused(t.Run(RequestBody::VerifyRequest,
                      [&](auto& fbb) {
                        return wire::CreateVerifyRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                                         fbb.CreateVector(kMessage),
                                                         fbb.CreateVector(signature));
                      }),
                CKR_SIGNATURE_INVALID);
}

void DigestOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::DigestRequest, [&](auto& fbb) {
    return wire::CreateDigestRequest(fbb, s, t.Mech(fbb, CKM_SHA256), t.Bytes(fbb, "abc"));
  });
  ExpectOk(ran);
  EXPECT_EQ(ran.reply_bound, 3 + 64 + 256u);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  // FIPS 180-2 appendix B.1: SHA-256("abc").
  const std::vector<std::uint8_t> expected = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                              0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                              0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                              0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  EXPECT_EQ(std::vector<std::uint8_t>(data->data()->begin(), data->data()->end()), expected);
}
void DigestRefused(DispatchFixture& t) {
  // No mechanism at all: type 0, which no mechanism has.
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(
      t.Run(RequestBody::DigestRequest,
            [&](auto& fbb) { return wire::CreateDigestRequest(fbb, s, 0, t.Bytes(fbb, "abc")); }),
      CKR_MECHANISM_INVALID);
}

void EncryptOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  Ran ran = t.Run(RequestBody::EncryptRequest, [&](auto& fbb) {
    return wire::CreateEncryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      t.Bytes(fbb, "plaintext"));
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->data()->size(), 9 + 16u);  // ciphertext || 128-bit tag
  auto plain = t.hsm_->Decrypt(
      *t.owner_, s, key,
      signet::Mechanism{
          CKM_AES_GCM, {}, signet::GcmParams{std::vector<std::uint8_t>(12, 1), S("aad"), 128}},
      std::vector<std::uint8_t>(data->data()->begin(), data->data()->end()));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(*plain, S("plaintext"));
}
void EncryptRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  ExpectRefused(t.Run(RequestBody::EncryptRequest,
                      [&](auto& fbb) {
                        return wire::CreateEncryptRequest(fbb, s, key, t.Mech(fbb, CKM_AES_GCM),
                                                          t.Bytes(fbb, "plaintext"));
                      }),
                CKR_MECHANISM_PARAM_INVALID);
}

std::vector<std::uint8_t> EncryptOnce(DispatchFixture& t, CK_SESSION_HANDLE s,
                                      CK_OBJECT_HANDLE key) {
  auto ct = t.hsm_->Encrypt(
      *t.owner_, s, key,
      signet::Mechanism{
          CKM_AES_GCM, {}, signet::GcmParams{std::vector<std::uint8_t>(12, 1), S("aad"), 128}},
      S("plaintext"));
  EXPECT_TRUE(ct.ok());
  return ct.ok() ? *ct : std::vector<std::uint8_t>{};
}

void DecryptOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  std::vector<std::uint8_t> ciphertext = EncryptOnce(t, s, key);
  Ran ran = t.Run(RequestBody::DecryptRequest, [&](auto& fbb) {
    return wire::CreateDecryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      fbb.CreateVector(ciphertext));
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(std::string(data->data()->begin(), data->data()->end()), "plaintext");
}
void DecryptRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  std::vector<std::uint8_t> ciphertext = EncryptOnce(t, s, key);
  ciphertext.back() ^= 1;  // the tag no longer matches
  Ran ran = t.Run(RequestBody::DecryptRequest, [&](auto& fbb) {
    return wire::CreateDecryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      fbb.CreateVector(ciphertext));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_EQ(ran.message().find("plaintext"), std::string::npos);
}

void WrapKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.WrappingKey(s);
  const auto pair = t.EcPair(s, "wrap-me", /*token=*/false, /*extractable=*/true);
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::WrapKeyRequest, [&](auto& fbb) {
    return wire::CreateWrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=wrap_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" result=CKR_OK" + kOwnerTail), std::string::npos) << ran.audit;
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_GT(data->data()->size(), 32u);
}
void WrapKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.WrappingKey(s);
  const auto pair = t.EcPair(s, "stay-inside", /*token=*/false, /*extractable=*/false);
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::WrapKeyRequest, [&](auto& fbb) {
    return wire::CreateWrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_KEY_UNEXTRACTABLE) << ran.message();
  EXPECT_NE(ran.audit.find(" result=CKR_KEY_UNEXTRACTABLE" + kOwnerTail), std::string::npos)
      << ran.audit;
}

void UnwrapKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.WrappingKey(s);
  const auto pair = t.EcPair(s, "wrap-me", /*token=*/false, /*extractable=*/true);
  const CK_OBJECT_HANDLE pub = pair.first;
  const CK_OBJECT_HANDLE priv = pair.second;
  auto wrapped = t.hsm_->WrapKey(*t.owner_, s, signet::Mechanism{CKM_AES_KEY_WRAP_KWP, {}, {}},
                                 wrapping, priv);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  Ran ran = t.Run(RequestBody::UnwrapKeyRequest, [&](auto& fbb) {
    return wire::CreateUnwrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping,
                                        fbb.CreateVector(*wrapped),
                                        t.Template(fbb, {{CKA_CLASS, U(CKO_PRIVATE_KEY)},
                                                         {CKA_KEY_TYPE, U(CKK_EC)},
                                                         {CKA_LABEL, S("unwrapped")}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=unwrap_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" class=0x3 key_type=0x3 label=\"unwrapped\" result=CKR_OK"),
            std::string::npos)
      << ran.audit;
  auto* object = ran.body<wire::ObjectResponse>();
  ASSERT_NE(object, nullptr);
  // The unwrapped key signs; its original public half verifies.
  std::vector<std::uint8_t> signature = SignOnce(t, s, object->object());
  EXPECT_TRUE(t.hsm_
                  ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage,
                           signature)
                  .ok());
}
void UnwrapKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.WrappingKey(s);
  Ran ran = t.Run(RequestBody::UnwrapKeyRequest, [&](auto& fbb) {
    return wire::CreateUnwrapKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping,
        fbb.CreateVector(std::vector<std::uint8_t>(40, 0x42)),
        t.Template(fbb, {{CKA_CLASS, U(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, U(CKK_EC)}}));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_TRUE(ran.audit.starts_with("audit op=unwrap_key slot=0 ")) << ran.audit;
  EXPECT_EQ(ran.audit.find("result=CKR_OK"), std::string::npos) << ran.audit;
}

// DerivingPair: a P-256 session pair whose private half may derive; also
// returns the public half's CKA_EC_POINT (a DER OCTET STRING).
struct DerivingPair {
  CK_OBJECT_HANDLE priv = 0;
  std::vector<std::uint8_t> point;
};
DerivingPair MakeDerivingPair(DispatchFixture& t, CK_SESSION_HANDLE s) {
  auto pair = t.hsm_->GenerateKeyPair(
      *t.owner_, s, signet::Mechanism{CKM_EC_KEY_PAIR_GEN, {}, {}},
      {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}}, {{CKA_DERIVE, B(true)}});
  EXPECT_TRUE(pair.ok()) << pair.error().message;
  if (!pair.ok()) return {};
  CK_RV overall = CKR_OK;
  auto point = t.hsm_->GetAttributeValue(*t.owner_, s, pair->first, {CKA_EC_POINT}, &overall);
  EXPECT_TRUE(point.ok());
  return {pair->second, point.ok() ? (*point)[0].value : std::vector<std::uint8_t>{}};
}

Ran RunDerive(DispatchFixture& t, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE base,
              const std::vector<std::uint8_t>& point) {
  return t.Run(RequestBody::DeriveKeyRequest, [&](auto& fbb) {
    auto ecdh = wire::CreateEcdhParams(fbb, CKD_NULL, 0, fbb.CreateVector(point));
    auto tmpl = t.Template(fbb, {{CKA_CLASS, U(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, U(CKK_AES)},
                                 {CKA_VALUE_LEN, U(32)},
                                 {CKA_ENCRYPT, B(true)},
                                 {CKA_LABEL, S("derived")}});
    wire::MechanismBuilder mechanism(fbb);
    mechanism.add_type(CKM_ECDH1_DERIVE);
    mechanism.add_ecdh(ecdh);
    auto mech = mechanism.Finish();
    return wire::CreateDeriveKeyRequest(fbb, s, mech, base, tmpl);
  });
}

void DeriveKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  DerivingPair a = MakeDerivingPair(t, s);
  DerivingPair b = MakeDerivingPair(t, s);
  Ran ran = RunDerive(t, s, a.priv, b.point);
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(
      ran.audit.starts_with("audit op=derive_key slot=0 mechanism=CKM_ECDH1_DERIVE base_key="))
      << ran.audit;
  EXPECT_NE(ran.audit.find(" label=\"derived\" result=CKR_OK" + kOwnerTail), std::string::npos)
      << ran.audit;
  auto* object = ran.body<wire::ObjectResponse>();
  ASSERT_NE(object, nullptr);
  // The other party derives the same AES key: what one encrypts, the
  // other decrypts.
  auto other = t.hsm_->DeriveKey(
      *t.owner_, s,
      [&] {
        signet::Mechanism m{CKM_ECDH1_DERIVE, {}, {}};
        m.ecdh = EcdhParams{CKD_NULL, {}, a.point};
        return m;
      }(),
      b.priv, {{CKA_KEY_TYPE, U(CKK_AES)}, {CKA_VALUE_LEN, U(32)}, {CKA_DECRYPT, B(true)}});
  ASSERT_TRUE(other.ok()) << other.error().message;
  signet::Mechanism ecb{CKM_AES_ECB, {}, {}};
  auto sealed = t.hsm_->Encrypt(*t.owner_, s, object->object(), ecb, kMessage16);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message;
  auto opened = t.hsm_->Decrypt(*t.owner_, s, *other, ecb, *sealed);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(*opened, kMessage16);
}
void DeriveKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  DerivingPair b = MakeDerivingPair(t, s);
  const auto pair = t.EcPair(s, "no-derive", /*token=*/false);  // CKA_DERIVE false
  const CK_OBJECT_HANDLE no_derive = pair.second;
  Ran ran = RunDerive(t, s, no_derive, b.point);
  EXPECT_EQ(ran.rv(), CKR_KEY_FUNCTION_NOT_PERMITTED) << ran.message();
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_NE(ran.audit.find(" result=CKR_KEY_FUNCTION_NOT_PERMITTED" + kOwnerTail),
            std::string::npos)
      << ran.audit;
}

void GenerateRandomOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateRandomRequest,
                  [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 4096); });
  ExpectOk(ran);
  EXPECT_EQ(ran.reply_bound, 4096 + 256u);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->data()->size(), 4096u);
}
void GenerateRandomRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::GenerateRandomRequest,
                      [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 65537); }),
                CKR_ARGUMENTS_BAD);
  ExpectRefused(t.Run(RequestBody::GenerateRandomRequest,
                      [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, 0xbad, 16); }),
                CKR_SESSION_HANDLE_INVALID);
}

void SeedRandomOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectOk(t.Run(RequestBody::SeedRandomRequest, [&](auto& fbb) {
    return wire::CreateSeedRandomRequest(fbb, s, t.Bytes(fbb, "more entropy"));
  }));
}
void SeedRandomRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::SeedRandomRequest,
                      [&](auto& fbb) {
                        return wire::CreateSeedRandomRequest(
                            fbb, s,
                            fbb.CreateVector(std::vector<std::uint8_t>(SIGNET_MAX_SEED_LEN + 1)));
                      }),
                CKR_ARGUMENTS_BAD);
}

// CbcPad: CKM_AES_CBC_PAD with an IV of sixteen 0x24 bytes.
fb::Offset<wire::Mechanism> CbcPad(fb::FlatBufferBuilder& fbb) {
  return wire::CreateMechanism(fbb, CKM_AES_CBC_PAD, 0, 0,
                               fbb.CreateVector(std::vector<std::uint8_t>(16, 0x24)));
}

void StreamUpdateOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  Ran ran = t.Run(RequestBody::StreamUpdateRequest, [&](auto& fbb) {
    return wire::CreateStreamUpdateRequest(fbb, s, wire::OperationKind::Encrypt, true, key,
                                           CbcPad(fbb), t.Bytes(fbb, "twenty bytes of text"));
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->data()->size(), 16u);  // one whole block; four bytes wait
}
void StreamUpdateRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  ExpectRefused(t.Run(RequestBody::StreamUpdateRequest,
                      [&](auto& fbb) {
                        return wire::CreateStreamUpdateRequest(fbb, s, wire::OperationKind::Encrypt,
                                                               false, 0, 0, t.Bytes(fbb, "x"));
                      }),
                CKR_OPERATION_NOT_INITIALIZED);
  ExpectRefused(t.Run(RequestBody::StreamUpdateRequest,
                      [&](auto& fbb) {
                        return wire::CreateStreamUpdateRequest(
                            fbb, s, static_cast<wire::OperationKind>(9), true, 0, 0);
                      }),
                CKR_ARGUMENTS_BAD);
}

void StreamFinalOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  signet::Mechanism cbc_pad{CKM_AES_CBC_PAD};
  cbc_pad.raw_params = std::vector<std::uint8_t>(16, 0x24);
  auto first = t.hsm_->StreamUpdate(*t.owner_, s, OperationKind::kEncrypt, true, key, cbc_pad,
                                    S("twenty bytes of text"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  Ran ran = t.Run(RequestBody::StreamFinalRequest, [&](auto& fbb) {
    return wire::CreateStreamFinalRequest(fbb, s, wire::OperationKind::Encrypt);
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  std::vector<std::uint8_t> joined = *first;
  joined.insert(joined.end(), data->data()->begin(), data->data()->end());
  EXPECT_EQ(joined, t.hsm_->Encrypt(*t.owner_, s, key, cbc_pad, S("twenty bytes of text")).value());
}
void StreamFinalRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  ExpectRefused(t.Run(RequestBody::StreamFinalRequest,
                      [&](auto& fbb) {
                        return wire::CreateStreamFinalRequest(fbb, s, wire::OperationKind::Digest);
                      }),
                CKR_OPERATION_NOT_INITIALIZED);
}

}  // namespace

ScenarioTable CryptoScenarios() {
  return {
      {RequestBody::SignRequest, {SignOk, SignRefused}},
      {RequestBody::SignBatchRequest, {SignBatchOk, SignBatchRefused}},
      {RequestBody::VerifyRequest, {VerifyOk, VerifyRefused}},
      {RequestBody::DigestRequest, {DigestOk, DigestRefused}},
      {RequestBody::EncryptRequest, {EncryptOk, EncryptRefused}},
      {RequestBody::DecryptRequest, {DecryptOk, DecryptRefused}},
      {RequestBody::WrapKeyRequest, {WrapKeyOk, WrapKeyRefused}},
      {RequestBody::UnwrapKeyRequest, {UnwrapKeyOk, UnwrapKeyRefused}},
      {RequestBody::GenerateRandomRequest, {GenerateRandomOk, GenerateRandomRefused}},
      {RequestBody::SeedRandomRequest, {SeedRandomOk, SeedRandomRefused}},
      {RequestBody::DeriveKeyRequest, {DeriveKeyOk, DeriveKeyRefused}},
      {RequestBody::StreamUpdateRequest, {StreamUpdateOk, StreamUpdateRefused}},
      {RequestBody::StreamFinalRequest, {StreamFinalOk, StreamFinalRefused}},
  };
}

}  // namespace signet::daemon
