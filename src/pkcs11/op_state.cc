#include "pkcs11/op_state.h"

#include <cstddef>

namespace signet::pkcs11 {
namespace {

constexpr std::size_t kPhaseCount = 4;
constexpr std::size_t kCallCount = 3;

// kAdmission[phase][call]: what a call answers before it runs (CKR_OK: it
// may run). Rows follow OpPhase, columns OpCall.
constexpr CK_RV kAdmission[kPhaseCount][kCallCount] = {
    // kIdle: single, update, final
    {CKR_OPERATION_NOT_INITIALIZED, CKR_OPERATION_NOT_INITIALIZED, CKR_OPERATION_NOT_INITIALIZED},
    {CKR_OK, CKR_OK, CKR_OK},                              // kReady
    {CKR_OK, CKR_OPERATION_ACTIVE, CKR_OPERATION_ACTIVE},  // kSinglePending
    {CKR_OPERATION_ACTIVE, CKR_OK, CKR_OK},                // kMultiPart
};

// kAfterOk / kAfterKept[call]: the phase after a call that succeeded with
// the result, or that only reported the length (or CKR_BUFFER_TOO_SMALL).
constexpr OpPhase kAfterOk[kCallCount] = {OpPhase::kIdle, OpPhase::kMultiPart, OpPhase::kIdle};
constexpr OpPhase kAfterKept[kCallCount] = {OpPhase::kSinglePending, OpPhase::kMultiPart,
                                            OpPhase::kMultiPart};

constexpr std::size_t Index(auto e) { return static_cast<std::size_t>(e); }

}  // namespace

CK_RV Admission(OpPhase phase, OpCall call) { return kAdmission[Index(phase)][Index(call)]; }

OpPhase PhaseAfter(OpCall call, CK_RV rv, bool kept) {
  if (kept && (rv == CKR_OK || rv == CKR_BUFFER_TOO_SMALL)) return kAfterKept[Index(call)];
  if (rv == CKR_OK) return kAfterOk[Index(call)];
  return OpPhase::kIdle;  // any other error ends the operation
}

std::optional<CK_RV> BeginInit(Operation& op, const CK_MECHANISM* mechanism) {
  const bool active = op.phase != OpPhase::kIdle;
  if (mechanism != nullptr) {
    if (active) return CKR_OPERATION_ACTIVE;
    return std::nullopt;
  }
  if (!active) return CKR_ARGUMENTS_BAD;
  op = Operation{};
  return CKR_OK;
}

}  // namespace signet::pkcs11
