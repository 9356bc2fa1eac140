#include "pkcs11/op_state.h"

#include <gtest/gtest.h>

namespace signet::pkcs11 {
namespace {

// Drive: one call through RunOpCall whose body returns `rv` (`kept`: it
// was a length query).
CK_RV Drive(Operation& op, OpCall call, CK_RV rv, bool kept = false) {
  return RunOpCall(op, call, [&](Operation&, bool& k) {
    k = kept;
    return rv;
  });
}

Operation Ready() {
  Operation op;
  op.phase = OpPhase::kReady;
  return op;
}

TEST(OpState, NothingRunsWithoutInit) {
  Operation op;
  for (OpCall call : {OpCall::kSingle, OpCall::kUpdate, OpCall::kFinal}) {
    EXPECT_EQ(Drive(op, call, CKR_OK), CKR_OPERATION_NOT_INITIALIZED);
    EXPECT_EQ(op.phase, OpPhase::kIdle);
  }
}

TEST(OpState, SinglePartAfterUpdateIsActiveAndEnds) {
  Operation op = Ready();
  ASSERT_EQ(Drive(op, OpCall::kUpdate, CKR_OK), CKR_OK);
  op.buffered = {1, 2, 3};
  EXPECT_EQ(Drive(op, OpCall::kSingle, CKR_OK), CKR_OPERATION_ACTIVE);
  EXPECT_EQ(op.phase, OpPhase::kIdle);
  EXPECT_TRUE(op.buffered.empty());
}

TEST(OpState, SinglePartLengthQueryAdmitsOnlyTheSinglePartCall) {
  Operation op = Ready();
  ASSERT_EQ(Drive(op, OpCall::kSingle, CKR_OK, true), CKR_OK);
  EXPECT_EQ(op.phase, OpPhase::kSinglePending);
  ASSERT_EQ(Drive(op, OpCall::kSingle, CKR_BUFFER_TOO_SMALL, true), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(op.phase, OpPhase::kSinglePending);
  EXPECT_EQ(Drive(op, OpCall::kFinal, CKR_OK), CKR_OPERATION_ACTIVE);
  EXPECT_EQ(op.phase, OpPhase::kIdle);
  op = Ready();
  ASSERT_EQ(Drive(op, OpCall::kSingle, CKR_OK, true), CKR_OK);
  EXPECT_EQ(Drive(op, OpCall::kUpdate, CKR_OK), CKR_OPERATION_ACTIVE);
  EXPECT_EQ(op.phase, OpPhase::kIdle);
  op = Ready();
  ASSERT_EQ(Drive(op, OpCall::kSingle, CKR_OK, true), CKR_OK);
  EXPECT_EQ(Drive(op, OpCall::kSingle, CKR_OK), CKR_OK);
  EXPECT_EQ(op.phase, OpPhase::kIdle);
}

TEST(OpState, FinalLengthQueryKeepsTheMultiPartOperation) {
  Operation op = Ready();
  ASSERT_EQ(Drive(op, OpCall::kFinal, CKR_OK, true), CKR_OK);
  EXPECT_EQ(op.phase, OpPhase::kMultiPart);
  EXPECT_EQ(Drive(op, OpCall::kUpdate, CKR_OK), CKR_OK);
  EXPECT_EQ(Drive(op, OpCall::kSingle, CKR_OK), CKR_OPERATION_ACTIVE);
}

TEST(OpState, AnyOtherErrorEndsTheOperation) {
  for (OpCall call : {OpCall::kSingle, OpCall::kUpdate, OpCall::kFinal}) {
    Operation op = Ready();
    EXPECT_EQ(Drive(op, call, CKR_ARGUMENTS_BAD), CKR_ARGUMENTS_BAD);
    EXPECT_EQ(op.phase, OpPhase::kIdle);
    op = Ready();
    // "kept" only counts for a length query or a short buffer.
    EXPECT_EQ(Drive(op, call, CKR_DEVICE_ERROR, true), CKR_DEVICE_ERROR);
    EXPECT_EQ(op.phase, OpPhase::kIdle);
  }
}

TEST(OpState, InitRules) {
  CK_MECHANISM mech = {CKM_SHA256, nullptr, 0};
  Operation op;
  EXPECT_EQ(BeginInit(op, &mech), std::nullopt);
  EXPECT_EQ(BeginInit(op, nullptr), CKR_ARGUMENTS_BAD);
  op = Ready();
  EXPECT_EQ(BeginInit(op, &mech), CKR_OPERATION_ACTIVE);
  EXPECT_EQ(op.phase, OpPhase::kReady);
  EXPECT_EQ(BeginInit(op, nullptr), CKR_OK);  // cancelled (PKCS#11 v3.0)
  EXPECT_EQ(op.phase, OpPhase::kIdle);
}

}  // namespace
}  // namespace signet::pkcs11
