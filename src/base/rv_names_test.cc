#include "base/rv_names.h"

#include <gtest/gtest.h>

#include "signet/protocol.hpp"

namespace signet {
namespace {

TEST(RvNames, NamesStandardCodes) {
  EXPECT_EQ(RvName(CKR_OK), "CKR_OK");
  EXPECT_EQ(RvName(CKR_PIN_INCORRECT), "CKR_PIN_INCORRECT");
  EXPECT_EQ(RvName(CKR_KEY_HANDLE_INVALID), "CKR_KEY_HANDLE_INVALID");
  EXPECT_EQ(RvName(CKR_FUNCTION_REJECTED), "CKR_FUNCTION_REJECTED");
}

TEST(RvNames, NamesSignetVendorCodes) {
  EXPECT_EQ(RvName(SIGNET_RV_BUSY), "SIGNET_RV_BUSY");
  EXPECT_EQ(RvName(SIGNET_RV_SHUTTING_DOWN), "SIGNET_RV_SHUTTING_DOWN");
}

TEST(RvNames, UnknownCodesGetANumericName) {
  EXPECT_TRUE(RvName(0x4242).empty());
  EXPECT_EQ(RvToString(0x4242), "CKR_0x4242");
  EXPECT_EQ(RvToString(CKR_VENDOR_DEFINED | 0x99), "CKR_VENDOR_DEFINED+0x99");
}

TEST(RvNames, DescribeErrorJoinsNameAndMessage) {
  EXPECT_EQ(DescribeError(MakeError(CKR_PIN_INCORRECT, "wrong user PIN")),
            "CKR_PIN_INCORRECT: wrong user PIN");
  EXPECT_EQ(DescribeError(MakeError(CKR_PIN_LOCKED, "")), "CKR_PIN_LOCKED");
}

}  // namespace
}  // namespace signet
