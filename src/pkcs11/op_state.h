// The PKCS#11 operation state machine, one table for every operation kind
// (sign, verify, digest, encrypt, decrypt, and any kind added later): which
// call may follow which, which results end the operation and which keep it
// (PKCS#11 v2.40 §5.2 and §5.8-5.12, v3.0 §5.2 and §5.13-5.15). The
// entry points (fn_crypto.cc) run every call of an operation through
// RunOpCall and C_*Init through BeginInit, so no function carries its own
// copy of these rules. Pure functions; the Operation they act on is guarded
// by its session's mutex.
#pragma once

#include <p11-kit/pkcs11.h>

#include <optional>

#include "pkcs11/session.h"

namespace signet::pkcs11 {

// OpCall: the calls of an active operation (C_Sign / C_SignUpdate /
// C_SignFinal and their likes; C_*Init is BeginInit's).
enum class OpCall : std::uint8_t { kSingle, kUpdate, kFinal };

// Admission returns CKR_OK when `call` may run on an operation in `phase`,
// else the code the call returns: CKR_OPERATION_NOT_INITIALIZED without an
// operation, CKR_OPERATION_ACTIVE for a single-part call during a
// multi-part operation or a multi-part call after a single-part length
// query (only the single-part call may follow it).
CK_RV Admission(OpPhase phase, OpCall call);

// PhaseAfter: the phase `call` leaves behind when it returned `rv`; `kept`
// when it only reported the output's length (NULL output buffer, CKR_OK)
// or returned CKR_BUFFER_TOO_SMALL. Every other error ends the operation
// (kIdle), and so does the successful call that returns the result.
OpPhase PhaseAfter(OpCall call, CK_RV rv, bool kept);

// RunOpCall runs `body(Operation&, bool& kept) -> CK_RV` as `call` of `op`
// under the table's rules: refused calls return Admission's code (ending an
// active operation, as any error does); afterwards the operation moves to
// PhaseAfter, and is cleared (buffered input wiped) when that is kIdle.
template <typename Body>
CK_RV RunOpCall(Operation& op, OpCall call, Body&& body) {
  if (const CK_RV refused = Admission(op.phase, call); refused != CKR_OK) {
    op = Operation{};
    return refused;
  }
  bool kept = false;
  const CK_RV rv = body(op, kept);
  const OpPhase next = PhaseAfter(call, rv, kept);
  if (next == OpPhase::kIdle) {
    op = Operation{};
  } else {
    op.phase = next;
  }
  return rv;
}

// BeginInit applies C_*Init's rules before a new operation starts. nullopt:
// go on and start it. Otherwise the code to return: CKR_OPERATION_ACTIVE
// when an operation of the kind is active (it goes on); for a NULL
// mechanism, CKR_OK after cancelling the active operation (PKCS#11 v3.0
// §5.13-5.15: "C_SignInit can be called with pMechanism set to NULL_PTR to
// terminate an active signature operation"), or CKR_ARGUMENTS_BAD when
// there is none to cancel.
std::optional<CK_RV> BeginInit(Operation& op, const CK_MECHANISM* mechanism);

}  // namespace signet::pkcs11
