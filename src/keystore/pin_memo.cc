#include "keystore/pin_memo.h"

#include <openssl/crypto.h>

#include "crypto/mac.h"
#include "crypto/symmetric.h"

namespace signet::keystore {
namespace {

// RecordIdentity: the bytes that change whenever the record is replaced.
Bytes RecordIdentity(const PinRecord& record) {
  Bytes out;
  for (std::uint64_t v : {record.kdf.n, std::uint64_t{record.kdf.r}, std::uint64_t{record.kdf.p},
                          std::uint64_t{record.salt.size()}}) {
    for (int shift = 56; shift >= 0; shift -= 8)
      out.push_back(static_cast<std::uint8_t>(v >> shift));
  }
  out.insert(out.end(), record.salt.begin(), record.salt.end());
  out.insert(out.end(), record.wrapped_kek.begin(), record.wrapped_kek.end());
  return out;
}

}  // namespace

PinMemo::PinMemo() : key_(32) {
  // Without randomness the memo stays empty: every login runs scrypt.
  if (!crypto::FillRandom(key_).ok()) key_.clear();
}

std::optional<std::array<std::uint8_t, 32>> PinMemo::PinMac(ByteView pin) const {
  if (key_.empty()) return std::nullopt;
  Result<SecureBytes> mac =
      crypto::Mac({.kind = crypto::MacKind::kHmac, .digest = DigestAlg::kSha256}, key_, pin);
  if (!mac.ok() || mac->size() != 32) return std::nullopt;
  std::array<std::uint8_t, 32> out{};
  std::copy(mac->begin(), mac->end(), out.begin());
  return out;
}

std::optional<SecureBytes> PinMemo::Recall(const PinRecord& record, ByteView pin) const {
  const std::optional<std::array<std::uint8_t, 32>> mac = PinMac(pin);
  if (!mac) return std::nullopt;
  const Bytes identity = RecordIdentity(record);
  base::MutexLock lock(&mu_);
  const std::optional<Entry>& entry = entries_[UserTypeCode(record.user)];
  if (!entry || entry->record != identity ||
      CRYPTO_memcmp(entry->pin_mac.data(), mac->data(), mac->size()) != 0) {
    return std::nullopt;
  }
  return entry->kek;
}

void PinMemo::Remember(const PinRecord& record, ByteView pin, const SecureBytes& kek) {
  const std::optional<std::array<std::uint8_t, 32>> mac = PinMac(pin);
  if (!mac) return;
  Entry entry{RecordIdentity(record), *mac, kek};
  base::MutexLock lock(&mu_);
  entries_[UserTypeCode(record.user)] = std::move(entry);
}

void PinMemo::Forget() {
  base::MutexLock lock(&mu_);
  for (std::optional<Entry>& entry : entries_) entry.reset();
}

}  // namespace signet::keystore
