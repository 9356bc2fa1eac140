#include "keystore/token_migration.h"

#include "base/printable.h"
#include "keystore/object_wrap.h"

namespace signet::keystore {
namespace {

// FindByLabel reads the tokens of `from` until one has `label`.
Result<TokenRecords> FindByLabel(const Keystore& from, std::string_view label) {
  SIGNET_ASSIGN_OR_RETURN(std::vector<std::string> locations, from.ListTokens());
  std::string unreadable;
  for (const std::string& location : locations) {
    auto records = from.ReadTokenRecords(location);
    if (!records.ok()) {
      unreadable += "; not read: " + records.error().message;
      continue;
    }
    if (records->label == label) return std::move(*records);
  }
  return MakeError(CKR_TOKEN_NOT_PRESENT, "no token labelled '" + PrintableText(label) + "' in " +
                                              from.Describe() + unreadable);
}

// OpenKekOf opens the KEK with `user`'s record among `records`, which it
// reads only.
Result<SecureBytes> OpenKekOf(const TokenRecords& records, UserType user, ByteView pin) {
  const char* who = user == UserType::kSo ? "SO" : "user";
  for (const PinRecord& record : records.pins) {
    if (record.user != user) continue;
    if (record.failures >= records.max_pin_failures) {
      return MakeError(CKR_PIN_LOCKED, std::string("the ") + who + " PIN of token '" +
                                           PrintableText(records.label) + "' is locked");
    }
    auto kek = OpenKek(record, pin);
    if (!kek.ok()) {
      return MakeError(kek.error().code, std::string("the ") + who + " PIN of token '" +
                                             PrintableText(records.label) +
                                             "': " + kek.error().message);
    }
    return kek;
  }
  return MakeError(
      CKR_USER_PIN_NOT_INITIALIZED,
      std::string("token '") + PrintableText(records.label) + "' has no " + who + " PIN");
}

}  // namespace

Result<UnlockedToken> ReadUnlockedToken(const Keystore& from, std::string_view label, UserType user,
                                        ByteView pin) {
  UnlockedToken token;
  SIGNET_ASSIGN_OR_RETURN(token.records, FindByLabel(from, label));
  SIGNET_ASSIGN_OR_RETURN(token.kek, OpenKekOf(token.records, user, pin));
  return token;
}

Result<MigrationReport> WriteUnlockedToken(Keystore& to, const UnlockedToken& token) {
  const SecureBytes& kek = token.kek;
  MigrationReport report;
  report.objects = token.records.objects.size();
  TokenRecords records = token.records;
  SIGNET_ASSIGN_OR_RETURN(records.pool_key, NewPoolSealKey(kek));
  auto rewrap = [&](ObjectHandle from, ObjectHandle into, ByteView wrapped) -> Result<Bytes> {
    // The secret exists unwrapped only in this SecureBytes, wiped on return.
    SIGNET_ASSIGN_OR_RETURN(SecureBytes secret, UnwrapObjectSecret(kek, from, wrapped));
    ++report.secrets;
    return WrapObjectSecret(kek, into, secret);
  };
  SIGNET_ASSIGN_OR_RETURN(report.location, to.CreateTokenFromRecords(records, rewrap));
  return report;
}

}  // namespace signet::keystore
