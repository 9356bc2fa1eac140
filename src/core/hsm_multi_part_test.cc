// Hsm's multi-part operations (StreamUpdate / StreamFinal): the parts'
// outputs joined equal the single-part call's, the checks and codes are the
// single-part call's, and the daemon-side state is bounded and dies with its
// session, at logout and on any error.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

class HsmMultiPartTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
    key_ = AesKey(true, true);
  }

  CK_OBJECT_HANDLE AesKey(bool encrypt, bool decrypt) {
    auto h = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                                 {CKA_VALUE, Bytes(32, 0x11)},
                                 {CKA_ENCRYPT, BoolBytes(encrypt)},
                                 {CKA_DECRYPT, BoolBytes(decrypt)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  // InParts runs `in` through a multi-part `kind` operation, `part` bytes
  // per StreamUpdate, and returns every output joined.
  Result<Bytes> InParts(OperationKind kind, const Mechanism& m, ByteView in, std::size_t part,
                        CK_SESSION_HANDLE s = 0) {
    if (s == 0) s = s_;
    Bytes out;
    std::size_t at = 0;
    do {
      const ByteView piece = in.subspan(at, std::min(part, in.size() - at));
      auto got = hsm_->StreamUpdate(*owner_, s, kind, at == 0, key_, m, piece);
      if (!got.ok()) return got.error();
      out.insert(out.end(), got->begin(), got->end());
      at += piece.size();
    } while (at < in.size());
    auto last = hsm_->StreamFinal(*owner_, s, kind, {});
    if (!last.ok()) return last.error();
    out.insert(out.end(), last->begin(), last->end());
    return out;
  }

  static Mechanism Cbc(CK_MECHANISM_TYPE type = CKM_AES_CBC_PAD) {
    Mechanism m{type};
    m.raw_params = Bytes(16, 0x24);
    return m;
  }

  CK_SESSION_HANDLE s_ = 0;
  CK_OBJECT_HANDLE key_ = 0;
};

TEST_F(HsmMultiPartTest, PartsJoinedAreTheSinglePartResult) {
  Bytes message(100'000);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<std::uint8_t>(i * 7);
  Mechanism gcm{CKM_AES_GCM};
  gcm.gcm = GcmParams{Bytes(12, 3), Bytes{'a', 'a', 'd'}, 128};
  Mechanism ctr{CKM_AES_CTR};
  ctr.ctr = AesCtrParams{128, Bytes(16, 0)};
  for (const Mechanism& m : {Cbc(), ctr, gcm}) {
    SCOPED_TRACE(m.type);
    auto one_shot = hsm_->Encrypt(*owner_, s_, key_, m, message);
    ASSERT_TRUE(one_shot.ok()) << one_shot.error().message;
    auto parts = InParts(OperationKind::kEncrypt, m, message, 4097);
    ASSERT_TRUE(parts.ok()) << parts.error().message;
    EXPECT_EQ(*parts, *one_shot);
    auto back = InParts(OperationKind::kDecrypt, m, *one_shot, 1000);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, message);
  }
  Mechanism sha{CKM_SHA256};
  EXPECT_EQ(InParts(OperationKind::kDigest, sha, message, 333).value(),
            hsm_->Digest(*owner_, s_, sha, message).value());
}

// HMAC in parts: RFC 4231 test case 2 whatever the split, verification in
// parts, and the _GENERAL form's truncation.
TEST_F(HsmMultiPartTest, MacsRunInParts) {
  auto key = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(CKK_GENERIC_SECRET)},
                                 {CKA_VALUE, Bytes{'J', 'e', 'f', 'e'}},
                                 {CKA_SIGN, BoolBytes(true)},
                                 {CKA_VERIFY, BoolBytes(true)}});
  ASSERT_TRUE(key.ok()) << key.error().message;
  key_ = *key;
  const std::string text = "what do ya want for nothing?";
  const Bytes message(text.begin(), text.end());
  const Bytes expected = FromHex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
                             .value();  // RFC 4231 section 4.3, HMAC-SHA-256
  const Mechanism hmac{CKM_SHA256_HMAC};
  for (std::size_t part : {1u, 5u, 100u}) {
    EXPECT_EQ(InParts(OperationKind::kSign, hmac, message, part).value(), expected) << part;
  }
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kVerify, true, key_, hmac, message).ok());
  EXPECT_TRUE(hsm_->StreamFinal(*owner_, s_, OperationKind::kVerify, expected).ok());
  Bytes wrong = expected;
  wrong[0] ^= 1;
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kVerify, true, key_, hmac, message).ok());
  EXPECT_EQ(Code(hsm_->StreamFinal(*owner_, s_, OperationKind::kVerify, wrong)),
            CKR_SIGNATURE_INVALID);
  Mechanism general{CKM_SHA256_HMAC_GENERAL};
  general.mac_length = 10;
  EXPECT_EQ(InParts(OperationKind::kSign, general, message, 7).value(),
            Bytes(expected.begin(), expected.begin() + 10));
  general.mac_length = 33;
  EXPECT_EQ(
      Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kSign, true, key_, general, message)),
      CKR_MECHANISM_PARAM_INVALID);
}

TEST_F(HsmMultiPartTest, UpdatesReleaseOutputAsTheyGo) {
  auto first = hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_,
                                  Cbc(CKM_AES_CBC), Bytes(40, 1));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 32u);  // two whole blocks; 8 bytes wait for more
  auto second = hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, false, 0, {}, Bytes(8, 1));
  EXPECT_EQ(second.value().size(), 16u);
  EXPECT_EQ(hsm_->StreamFinal(*owner_, s_, OperationKind::kEncrypt, {}).value().size(), 0u);
}

TEST_F(HsmMultiPartTest, TheSinglePartChecksApplyAtTheStart) {
  const Bytes part(16, 0);
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, false, 0, {}, part)),
            CKR_OPERATION_NOT_INITIALIZED);
  EXPECT_EQ(Code(hsm_->StreamFinal(*owner_, s_, OperationKind::kDecrypt, {})),
            CKR_OPERATION_NOT_INITIALIZED);
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_,
                                    Mechanism{CKM_RSA_PKCS}, part)),
            CKR_MECHANISM_INVALID);
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_,
                                    Mechanism{CKM_AES_CBC}, part)),
            CKR_MECHANISM_PARAM_INVALID);
  const CK_OBJECT_HANDLE decrypt_only = AesKey(false, true);
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, decrypt_only, Cbc(),
                                    part)),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  EXPECT_EQ(
      Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, 12345, Cbc(), part)),
      CKR_OBJECT_HANDLE_INVALID);
  // Another connection cannot feed this session's operation.
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_, Cbc(), part).ok());
  EXPECT_EQ(Code(hsm_->StreamUpdate(*stranger_, s_, OperationKind::kEncrypt, false, 0, {}, part)),
            CKR_SESSION_HANDLE_INVALID);
}

TEST_F(HsmMultiPartTest, AnErrorEndsTheOperation) {
  Mechanism ecb{CKM_AES_ECB};
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kDecrypt, true, key_, ecb, Bytes(20, 0)).ok());
  EXPECT_EQ(Code(hsm_->StreamFinal(*owner_, s_, OperationKind::kDecrypt, {})),
            CKR_ENCRYPTED_DATA_LEN_RANGE);
  EXPECT_EQ(Code(hsm_->StreamFinal(*owner_, s_, OperationKind::kDecrypt, {})),
            CKR_OPERATION_NOT_INITIALIZED);
  // A CTR counter that would wrap ends it at the Update.
  Mechanism ctr{CKM_AES_CTR};
  ctr.ctr = AesCtrParams{4, Bytes(16, 0)};  // 16 blocks
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_, ctr, Bytes(256)).ok());
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, false, 0, {}, Bytes(1))),
            CKR_DATA_LEN_RANGE);
  EXPECT_EQ(Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, false, 0, {}, Bytes(1))),
            CKR_OPERATION_NOT_INITIALIZED);
}

TEST_F(HsmMultiPartTest, OperationsDieWithTheirSessionAndAtLogout) {
  const CK_SESSION_HANDLE other = Session(*owner_);
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, other, OperationKind::kEncrypt, true, key_, Cbc(), Bytes(5))
          .ok());
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_, Cbc(), Bytes(5)).ok());
  ASSERT_TRUE(hsm_->CloseSession(*owner_, other).ok());
  {
    base::MutexLock lock(&owner_->mu);
    EXPECT_EQ(owner_->multi_parts.size(), 1u);
  }
  ASSERT_TRUE(hsm_->Logout(*owner_, s_).ok());
  EXPECT_EQ(Code(hsm_->StreamFinal(*owner_, s_, OperationKind::kEncrypt, {})),
            CKR_OPERATION_NOT_INITIALIZED);
}

// GCM decryption holds its plaintext until Final: per operation at most
// one reply frame's worth, per connection Limits::max_multi_part_held_bytes.
TEST_F(HsmMultiPartTest, HeldBytesAreBounded) {
  Limits limits;
  limits.max_held_per_operation = 1000;
  limits.max_multi_part_held_bytes = 1500;
  Open(limits);
  s_ = LoggedIn(*owner_);
  key_ = AesKey(true, true);
  const CK_SESSION_HANDLE other = Session(*owner_);
  Mechanism gcm{CKM_AES_GCM};
  gcm.gcm = GcmParams{Bytes(12, 3), {}, 128};
  EXPECT_EQ(
      Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kDecrypt, true, key_, gcm, Bytes(1001))),
      CKR_ENCRYPTED_DATA_LEN_RANGE);
  ASSERT_TRUE(
      hsm_->StreamUpdate(*owner_, other, OperationKind::kDecrypt, true, key_, gcm, Bytes(900))
          .ok());
  EXPECT_EQ(
      Code(hsm_->StreamUpdate(*owner_, s_, OperationKind::kDecrypt, true, key_, gcm, Bytes(700))),
      CKR_DEVICE_MEMORY);
  // Closing the other session gives its bytes back (the key is a session
  // object of s_, so s_ stays).
  ASSERT_TRUE(hsm_->CloseSession(*owner_, other).ok());
  EXPECT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kDecrypt, true, key_, gcm, Bytes(700)).ok());
  // Encryption holds nothing: no bound applies.
  EXPECT_TRUE(
      hsm_->StreamUpdate(*owner_, s_, OperationKind::kEncrypt, true, key_, gcm, Bytes(5000)).ok());
}

}  // namespace
}  // namespace signet::core
