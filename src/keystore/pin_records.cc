#include "keystore/pin_records.h"

#include "keystore/pin_memo.h"

namespace signet::keystore {
namespace {

constexpr std::size_t kSaltSize = 32;
constexpr std::size_t kPinKeySize = crypto::kAes256KeySize;
// Bounds on stored scrypt costs: below them a record is trivially weak,
// above them one Login would take minutes or gigabytes (a tampered record).
constexpr std::uint64_t kMaxScryptN = 1u << 22;
constexpr std::uint32_t kMaxScryptR = 32;
constexpr std::uint32_t kMaxScryptP = 16;

}  // namespace

int UserTypeCode(UserType user) { return user == UserType::kSo ? 0 : 1; }

bool PlausibleCost(std::int64_t n, std::int64_t r, std::int64_t p) {
  bool power_of_two = n >= 2 && (n & (n - 1)) == 0;
  return power_of_two && static_cast<std::uint64_t>(n) <= kMaxScryptN && r >= 1 &&
         r <= kMaxScryptR && p >= 1 && p <= kMaxScryptP;
}

Result<PinRecord> SealKek(UserType user, ByteView pin, ByteView kek,
                          const crypto::ScryptParams& kdf) {
  if (pin.empty()) return MakeError(CKR_PIN_LEN_RANGE, "PIN must not be empty");
  if (!PlausibleCost(static_cast<std::int64_t>(kdf.n), kdf.r, kdf.p)) {
    return MakeError(CKR_ARGUMENTS_BAD, "scrypt cost out of range");
  }
  PinRecord record;
  record.user = user;
  record.kdf = kdf;
  record.salt.resize(kSaltSize);
  SIGNET_TRY(crypto::FillRandom(record.salt));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pin_key, crypto::Scrypt(pin, record.salt, kdf, kPinKeySize));
  SIGNET_ASSIGN_OR_RETURN(record.wrapped_kek, crypto::AesKeyWrapPad(pin_key, kek));
  return record;
}

Result<SecureBytes> OpenKek(const PinRecord& record, ByteView pin) {
  if (pin.empty()) return MakeError(CKR_PIN_INCORRECT, "PIN incorrect");
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pin_key,
                          crypto::Scrypt(pin, record.salt, record.kdf, kPinKeySize));
  auto kek = crypto::AesKeyUnwrapPad(pin_key, record.wrapped_kek);
  if (!kek.ok() || kek->size() != crypto::kAes256KeySize) {
    return MakeError(CKR_PIN_INCORRECT, "PIN incorrect");
  }
  return std::move(*kek);
}

Result<SecureBytes> CheckPinWithLockout(ByteView pin, int max_failures, const PinCounter& counter) {
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, counter.load());
  if (record.failures >= max_failures) return MakeError(CKR_PIN_LOCKED, "PIN locked");
  if (counter.memo != nullptr) {
    if (std::optional<SecureBytes> kek = counter.memo->Recall(record, pin)) {
      SIGNET_TRY(counter.reset());
      return std::move(*kek);
    }
  }
  auto kek = OpenKek(record, pin);  // scrypt: the slow part, no lock held
  if (!kek.ok()) {
    if (kek.error().code != CKR_PIN_INCORRECT) return std::move(kek).error();
    SIGNET_ASSIGN_OR_RETURN(int failures, counter.record_failure());
    if (failures >= max_failures) return MakeError(CKR_PIN_LOCKED, "PIN incorrect; PIN now locked");
    return MakeError(CKR_PIN_INCORRECT, "PIN incorrect");
  }
  SIGNET_TRY(counter.reset());
  if (counter.memo != nullptr) counter.memo->Remember(record, pin, *kek);
  return std::move(*kek);
}

Result<PinRecord> LoadPinRecord(Database& db, UserType user) {
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("SELECT kdf_n, kdf_r, kdf_p, salt, wrapped_kek, failures FROM pin_records "
                 "WHERE user_type = ?1"));
  SIGNET_TRY(stmt.Bind(1, UserTypeCode(user)));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_USER_PIN_NOT_INITIALIZED, "PIN not initialised");
  if (!PlausibleCost(stmt.ColumnInt64(0), stmt.ColumnInt64(1), stmt.ColumnInt64(2))) {
    return MakeError(CKR_DEVICE_ERROR, "PIN record has an implausible KDF cost");
  }
  PinRecord record;
  record.user = user;
  record.kdf.n = static_cast<std::uint64_t>(stmt.ColumnInt64(0));
  record.kdf.r = static_cast<std::uint32_t>(stmt.ColumnInt64(1));
  record.kdf.p = static_cast<std::uint32_t>(stmt.ColumnInt64(2));
  record.salt = stmt.ColumnBlob(3);
  record.wrapped_kek = stmt.ColumnBlob(4);
  record.failures = static_cast<int>(stmt.ColumnInt64(5));
  return record;
}

Status StorePinRecord(Database& db, const PinRecord& record) {
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("INSERT OR REPLACE INTO pin_records "
                 "(user_type, kdf, kdf_n, kdf_r, kdf_p, salt, wrapped_kek, failures) "
                 "VALUES (?1, 'scrypt', ?2, ?3, ?4, ?5, ?6, ?7)"));
  SIGNET_TRY(stmt.Bind(1, UserTypeCode(record.user)));
  SIGNET_TRY(stmt.Bind(2, static_cast<std::int64_t>(record.kdf.n)));
  SIGNET_TRY(stmt.Bind(3, static_cast<std::int64_t>(record.kdf.r)));
  SIGNET_TRY(stmt.Bind(4, static_cast<std::int64_t>(record.kdf.p)));
  SIGNET_TRY(stmt.Bind(5, ByteView(record.salt)));
  SIGNET_TRY(stmt.Bind(6, ByteView(record.wrapped_kek)));
  SIGNET_TRY(stmt.Bind(7, static_cast<std::int64_t>(record.failures)));
  return stmt.Run();
}

Result<int> RecordPinFailure(Database& db, UserType user) {
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db.Begin());
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("UPDATE pin_records SET failures = failures + 1 WHERE user_type = ?1 "
                 "RETURNING failures"));
  SIGNET_TRY(stmt.Bind(1, UserTypeCode(user)));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_USER_PIN_NOT_INITIALIZED, "PIN not initialised");
  int failures = static_cast<int>(stmt.ColumnInt64(0));
  SIGNET_TRY(stmt.Run());
  SIGNET_TRY(txn.Commit());
  return failures;
}

Status ResetPinFailures(Database& db, UserType user, int max_failures) {
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db.Begin());
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("UPDATE pin_records SET failures = 0 WHERE user_type = ?1 AND failures < ?2"));
  SIGNET_TRY(stmt.Bind(1, UserTypeCode(user)));
  SIGNET_TRY(stmt.Bind(2, max_failures));
  SIGNET_TRY(stmt.Run());
  if (db.Changes() == 0) return MakeError(CKR_PIN_LOCKED, "PIN locked");
  return txn.Commit();
}

}  // namespace signet::keystore
