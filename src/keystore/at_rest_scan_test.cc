// Scans the raw bytes of a token's database, WAL and shared-memory files for
// key material: the PKCS#8 form of stored private keys, distinctive pieces of
// them (RSA prime p and exponent d, the EC private scalar, read with
// OpenSSL's own accessors), a stored secret key, the KEK and the PIN-derived
// keys. None may appear, while the token is open (pages still in the WAL)
// and after it is closed (checkpointed into the main file).
#include <openssl/core_names.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "crypto/ossl_ptr.h"
#include "crypto/symmetric.h"
#include "keystore/attribute_codec.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::Contains;
using testing::Pin;
using testing::TempDir;

struct Needle {
  std::string name;
  Bytes bytes;
};

Bytes BnParam(EVP_PKEY* pkey, const char* name, std::size_t pad_to = 0) {
  BIGNUM* raw = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(pkey, name, &raw), 1) << name;
  crypto::BignumPtr bn(raw);
  std::size_t size = pad_to ? pad_to : static_cast<std::size_t>(BN_num_bytes(bn.get()));
  Bytes out(size);
  EXPECT_GT(BN_bn2binpad(bn.get(), out.data(), static_cast<int>(size)), 0);
  return out;
}

// PinKeyAndKek re-derives, independently of the keystore code, the PIN key
// and the KEK from the stored PIN record of `user_type`.
std::vector<Needle> PinKeyAndKek(const std::filesystem::path& file, int user_type, ByteView pin) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT kdf_n, kdf_r, kdf_p, salt, wrapped_kek FROM pin_records "
                     "WHERE user_type = ?1",
                     -1, &stmt, nullptr);
  sqlite3_bind_int(stmt, 1, user_type);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  crypto::ScryptParams params{static_cast<std::uint64_t>(sqlite3_column_int64(stmt, 0)),
                              static_cast<std::uint32_t>(sqlite3_column_int(stmt, 1)),
                              static_cast<std::uint32_t>(sqlite3_column_int(stmt, 2))};
  auto blob = [&](int column) {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt, column));
    return Bytes(p, p + sqlite3_column_bytes(stmt, column));
  };
  Bytes salt = blob(3), wrapped = blob(4);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  auto pin_key = crypto::Scrypt(pin, salt, params, 32);
  EXPECT_TRUE(pin_key.ok());
  auto kek = crypto::AesKeyUnwrapPad(*pin_key, wrapped);
  EXPECT_TRUE(kek.ok());
  EXPECT_EQ(kek->size(), 32u);
  return {{"pin key " + std::to_string(user_type), Bytes(pin_key->begin(), pin_key->end())},
          {"KEK", Bytes(kek->begin(), kek->end())}};
}

Bytes TokenFilesBytes(const std::filesystem::path& file) {
  Bytes all;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    Bytes part = testing::ReadFileBytes(file.string() + suffix);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

void ExpectNoneFound(const std::filesystem::path& file, const std::vector<Needle>& needles,
                     const char* when) {
  Bytes haystack = TokenFilesBytes(file);
  for (const auto& needle : needles) {
    EXPECT_FALSE(Contains(haystack, needle.bytes)) << needle.name << " found " << when;
  }
}

class AtRestScan : public ::testing::Test {
 protected:
  void StoreKey(const crypto::KeySpec& spec, CK_KEY_TYPE type) {
    auto key = crypto::PrivateKey::Generate(spec);
    ASSERT_TRUE(key.ok());
    auto der = key->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                            {CKA_KEY_TYPE, UlongBytes(type)},
                            {CKA_LABEL, Bytes{'m', 'a', 'r', 'k', 'e', 'r'}}};
    ASSERT_TRUE(token_->CreateObject(attributes, &*der).ok());
    needles_.push_back({"PKCS#8 of " + crypto::KeySpecName(spec), Bytes(der->begin(), der->end())});
    keys_.push_back(std::move(*key));
  }

  TempDir dir_;
  std::filesystem::path file_ = dir_.path() / "scan.token";
  std::unique_ptr<Token> token_;
  std::vector<Needle> needles_;
  std::vector<crypto::PrivateKey> keys_;
};

TEST_F(AtRestScan, NoKeyMaterialInDatabaseOrWal) {
  auto token = Token::Create(file_, "scan", Pin("so-pin"), Pin("user-pin"), testing::FastOptions());
  ASSERT_TRUE(token.ok());
  token_ = std::move(*token);
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  StoreKey({crypto::KeyType::kRsa, 2048}, CKK_RSA);
  StoreKey({crypto::KeyType::kEcP256}, CKK_EC);
  SecureBytes aes(32);
  for (std::size_t i = 0; i < aes.size(); ++i) aes[i] = static_cast<std::uint8_t>(0x5a ^ i);
  ASSERT_TRUE(token_->CreateObject({{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}}, &aes).ok());
  needles_.push_back({"AES secret", Bytes(aes.begin(), aes.end())});
  needles_.push_back({"RSA prime p", BnParam(keys_[0].get0_pkey(), OSSL_PKEY_PARAM_RSA_FACTOR1)});
  needles_.push_back({"RSA exponent d", BnParam(keys_[0].get0_pkey(), OSSL_PKEY_PARAM_RSA_D)});
  needles_.push_back({"EC scalar", BnParam(keys_[1].get0_pkey(), OSSL_PKEY_PARAM_PRIV_KEY, 32)});
  for (int user_type : {0, 1}) {
    auto derived = PinKeyAndKek(file_, user_type, Pin(user_type == 0 ? "so-pin" : "user-pin"));
    needles_.insert(needles_.end(), derived.begin(), derived.end());
  }

  // While open the writes sit in the WAL; prove the scan sees them.
  auto wal = file_.string() + "-wal";
  ASSERT_GT(std::filesystem::file_size(wal), 0u);
  EXPECT_TRUE(Contains(testing::ReadFileBytes(wal), AsBytes("marker")))
      << "positive control: clear attributes must be visible in the WAL";
  ExpectNoneFound(file_, needles_, "while open (WAL)");

  token_.reset();
  EXPECT_TRUE(Contains(testing::ReadFileBytes(file_), AsBytes("marker")))
      << "positive control: after close the pages are in the main file";
  ExpectNoneFound(file_, needles_, "after close");
}

TEST_F(AtRestScan, DestroyedKeyLeavesNoWrappedBlob) {
  auto token = Token::Create(file_, "scan", Pin("so-pin"), Pin("user-pin"), testing::FastOptions());
  ASSERT_TRUE(token.ok());
  token_ = std::move(*token);
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  SecureBytes secret(48, 0x33);
  auto handle = token_->CreateObject({{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}}, &secret);
  ASSERT_TRUE(handle.ok());
  token_.reset();  // checkpoint: the blob is now in the main file
  Bytes wrapped;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(file_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT wrapped_value FROM objects", -1, &stmt, nullptr);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt, 0));
    wrapped.assign(p, p + sqlite3_column_bytes(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
  ASSERT_TRUE(Contains(testing::ReadFileBytes(file_), wrapped)) << "positive control";

  auto reopened = Token::Open(file_, testing::FastOptions());
  ASSERT_TRUE(reopened.ok());
  ASSERT_TRUE((*reopened)->DestroyObject(*handle).ok());
  reopened->reset();
  EXPECT_FALSE(Contains(TokenFilesBytes(file_), wrapped))
      << "a destroyed key's wrapped blob must be overwritten (secure_delete)";
}

// The key pool fills with nobody logged in (issue 14): its entries are
// sealed to the pool key, whose private half is wrapped under the KEK. No
// pool key's PKCS#8, prime, exponent or scalar, and not the pool key's own
// private value, is in the files before or after a take.
TEST_F(AtRestScan, PoolFilledWithoutALoginLeavesNoKeyMaterial) {
  auto token = Token::Create(file_, "scan", Pin("so-pin"), Pin("user-pin"), testing::FastOptions());
  ASSERT_TRUE(token.ok());
  token_ = std::move(*token);  // nobody logged in
  ASSERT_TRUE(token_->CanFillPool());
  for (int i = 0; i < 2; ++i) {
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kRsa, 2048});
    ASSERT_TRUE(key.ok());
    auto der = key->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    AttributeMap marker{{CKA_LABEL, Bytes{'m', 'a', 'r', 'k', 'e', 'r'}}};
    ASSERT_TRUE(token_->StorePoolKey("rsa:2048", *der, marker).ok());
    needles_.push_back({"pooled PKCS#8", Bytes(der->begin(), der->end())});
    needles_.push_back({"pooled prime p", BnParam(key->get0_pkey(), OSSL_PKEY_PARAM_RSA_FACTOR1)});
    needles_.push_back({"pooled prime q", BnParam(key->get0_pkey(), OSSL_PKEY_PARAM_RSA_FACTOR2)});
    needles_.push_back({"pooled exponent d", BnParam(key->get0_pkey(), OSSL_PKEY_PARAM_RSA_D)});
  }
  // The pool key's private value, unwrapped independently with the KEK.
  std::vector<Needle> derived = PinKeyAndKek(file_, 1, Pin("user-pin"));
  needles_.insert(needles_.end(), derived.begin(), derived.end());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT wrapped_private FROM pool_seal_key", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  const auto* blob = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt, 0));
  Bytes wrapped(blob, blob + sqlite3_column_bytes(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  auto plain = crypto::AesKeyUnwrapPad(derived.back().bytes, wrapped);
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(std::string(plain->begin(), plain->begin() + 7), "SGSEAL1");
  auto seal_key = crypto::PrivateKey::FromPkcs8Der(ByteView(*plain).subspan(7));
  ASSERT_TRUE(seal_key.ok());
  std::size_t raw_length = 32;
  Bytes raw(raw_length);
  ASSERT_EQ(EVP_PKEY_get_raw_private_key(seal_key->get0_pkey(), raw.data(), &raw_length), 1);
  needles_.push_back({"pool key (X25519)", raw});

  ExpectNoneFound(file_, needles_, "after filling (WAL)");
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  PoolObjectsBuilder build = [](const AttributeMap& pool_public) {
    AttributeMap priv{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}};
    return Result<std::pair<AttributeMap, AttributeMap>>(std::make_pair(priv, pool_public));
  };
  auto taken = token_->TakePoolKey("rsa:2048", build, nullptr);
  ASSERT_TRUE(taken.ok() && taken->has_value()) << (taken.ok() ? "empty" : taken.error().message);
  ExpectNoneFound(file_, needles_, "after a take (WAL)");
  token_.reset();
  EXPECT_TRUE(Contains(testing::ReadFileBytes(file_), AsBytes("marker")))
      << "positive control: the entries' clear attributes are in the main file";
  ExpectNoneFound(file_, needles_, "after close");
}

}  // namespace
}  // namespace signet::keystore
