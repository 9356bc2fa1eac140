#include "core/login_ticket.h"

#include <gtest/gtest.h>

namespace signet::core {
namespace {

using std::chrono::hours;

const Bytes kKey(kLoginTicketKeySize, 0x42);
constexpr std::string_view kSerial = "0123456789abcdef";

TicketClock::time_point Now() {
  return TicketClock::time_point(std::chrono::seconds(1'800'000'000));
}

Bytes Seal(ByteView key = kKey, std::string_view serial = kSerial,
           keystore::UserType user = keystore::UserType::kUser) {
  auto ticket = SealLoginTicket(key, serial, user, AsBytes("1234-user"), Now() + hours(1));
  EXPECT_TRUE(ticket.ok());
  return ticket.ok() ? *ticket : Bytes();
}

CK_RV OpenCode(ByteView ticket, ByteView key = kKey, std::string_view serial = kSerial,
               keystore::UserType user = keystore::UserType::kUser,
               TicketClock::time_point now = Now()) {
  auto pin = OpenLoginTicket(key, serial, user, ticket, now);
  return pin.ok() ? CKR_OK : pin.error().code;
}

TEST(LoginTicketTest, OpensToThePinItWasSealedWith) {
  const Bytes ticket = Seal();
  auto pin = OpenLoginTicket(kKey, kSerial, keystore::UserType::kUser, ticket, Now());
  ASSERT_TRUE(pin.ok()) << pin.error().message;
  EXPECT_EQ(std::string(pin->begin(), pin->end()), "1234-user");
  // The PIN is not in the ticket in the clear.
  const std::string text(ticket.begin(), ticket.end());
  EXPECT_EQ(text.find("1234-user"), std::string::npos);
  // Two tickets for one PIN differ (a fresh nonce each).
  EXPECT_NE(Seal(), ticket);
}

TEST(LoginTicketTest, OpensOnlyForItsTokenUserAndKeyAndBeforeItsExpiry) {
  const Bytes ticket = Seal();
  EXPECT_EQ(OpenCode(ticket, Bytes(kLoginTicketKeySize, 0x43)), CKR_PIN_INCORRECT);
  EXPECT_EQ(OpenCode(ticket, kKey, "fedcba9876543210"), CKR_PIN_INCORRECT);
  EXPECT_EQ(OpenCode(ticket, kKey, kSerial, keystore::UserType::kSo), CKR_PIN_INCORRECT);
  EXPECT_EQ(OpenCode(ticket, kKey, kSerial, keystore::UserType::kUser, Now() + hours(2)),
            CKR_PIN_EXPIRED);
}

TEST(LoginTicketTest, EveryDamagedByteAndAnyLengthIsRefused) {
  const Bytes ticket = Seal();
  for (std::size_t i = 0; i < ticket.size(); ++i) {
    Bytes damaged = ticket;
    damaged[i] ^= 0x01;
    EXPECT_EQ(OpenCode(damaged), CKR_PIN_INCORRECT) << "byte " << i;
  }
  for (std::size_t n = 0; n < ticket.size(); ++n) {
    EXPECT_EQ(OpenCode(ByteView(ticket).first(n)), CKR_PIN_INCORRECT) << n;
  }
  EXPECT_EQ(OpenCode(Bytes(4096, 0)), CKR_PIN_INCORRECT);
}

TEST(LoginTicketTest, KeysOfTheWrongSizeAreRefused) {
  EXPECT_EQ(SealLoginTicket(Bytes(16, 1), kSerial, keystore::UserType::kUser, AsBytes("x"), Now())
                .error()
                .code,
            CKR_ARGUMENTS_BAD);
  EXPECT_EQ(OpenCode(Seal(), Bytes(16, 1)), CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::core
