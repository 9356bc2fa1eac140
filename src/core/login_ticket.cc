#include "core/login_ticket.h"

#include <array>

#include "crypto/symmetric.h"

namespace signet::core {
namespace {

constexpr std::array<std::uint8_t, 5> kMagic = {'S', 'G', 'T', 'K', 1};
constexpr std::size_t kExpirySize = 8;
constexpr std::size_t kHeaderSize = kMagic.size() + kExpirySize + crypto::kGcmIvSize;
// kMaxTicketSize: the largest PIN's ticket; anything longer is not one.
constexpr std::size_t kMaxTicketSize = kHeaderSize + keystore::kMaxPinLen + crypto::kGcmTagSize;

// AssociatedData: the header, then what binds the ticket: user and serial.
Bytes AssociatedData(ByteView header, std::string_view serial, keystore::UserType user) {
  Bytes aad(header.begin(), header.end());
  aad.push_back(user == keystore::UserType::kSo ? 0 : 1);
  aad.insert(aad.end(), serial.begin(), serial.end());
  return aad;
}

Status CheckKey(ByteView key) {
  if (key.size() != kLoginTicketKeySize) {
    return MakeError(CKR_ARGUMENTS_BAD, "a login-ticket key is 32 bytes");
  }
  return OkStatus();
}

}  // namespace

Result<Bytes> SealLoginTicket(ByteView key, std::string_view serial, keystore::UserType user,
                              ByteView pin, TicketClock::time_point expiry) {
  SIGNET_TRY(CheckKey(key));
  Bytes ticket(kMagic.begin(), kMagic.end());
  const auto seconds = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(expiry.time_since_epoch()).count());
  for (int shift = 56; shift >= 0; shift -= 8) {
    ticket.push_back(static_cast<std::uint8_t>(seconds >> shift));
  }
  std::array<std::uint8_t, crypto::kGcmIvSize> nonce{};
  SIGNET_TRY(crypto::FillRandom(nonce));
  ticket.insert(ticket.end(), nonce.begin(), nonce.end());
  SIGNET_ASSIGN_OR_RETURN(
      Bytes sealed, crypto::AesGcmEncrypt(key, nonce, AssociatedData(ticket, serial, user), pin));
  ticket.insert(ticket.end(), sealed.begin(), sealed.end());
  return ticket;
}

Result<SecureBytes> OpenLoginTicket(ByteView key, std::string_view serial, keystore::UserType user,
                                    ByteView ticket, TicketClock::time_point now) {
  SIGNET_TRY(CheckKey(key));
  const Error invalid = MakeError(CKR_PIN_INCORRECT, "not a login ticket of this token and user");
  if (ticket.size() < kHeaderSize + crypto::kGcmTagSize || ticket.size() > kMaxTicketSize ||
      !std::equal(kMagic.begin(), kMagic.end(), ticket.begin())) {
    return invalid;
  }
  std::uint64_t seconds = 0;
  for (std::size_t i = 0; i < kExpirySize; ++i)
    seconds = (seconds << 8) | ticket[kMagic.size() + i];
  const ByteView header = ticket.first(kHeaderSize);
  const ByteView nonce = header.last(crypto::kGcmIvSize);
  Result<SecureBytes> pin = crypto::AesGcmDecrypt(key, nonce, AssociatedData(header, serial, user),
                                                  ticket.subspan(kHeaderSize));
  if (!pin.ok()) return invalid;
  // The expiry is checked after the tag, so only a genuine ticket's is
  // believed.
  if (TicketClock::time_point(std::chrono::seconds(seconds)) <= now) {
    return MakeError(CKR_PIN_EXPIRED, "the login ticket has expired: log in with the PIN");
  }
  return pin;
}

}  // namespace signet::core
