// The conformance suite's areas, one file each, run in this order by
// main.cc. Each area leaves the module initialised with no session open and
// destroys the token objects it made (Fixture::Cleanup). Check ids start
// with the area's prefix (in brackets).
#pragma once

#include "check.h"
#include "fixture.h"

namespace signet::conformance {

// [general.] §5.4 and §5.1: every function before C_Initialize, C_Initialize
// / C_Finalize arguments, C_GetInfo. Starts with the module not initialised
// and leaves it initialised.
void RunGeneral(Suite& suite);

// [session.handle_invalid.] Every function that takes a session handle
// answers CKR_SESSION_HANDLE_INVALID for a closed session's handle (§5.1.2),
// also the functions the module does not offer.
void RunInvalidSessionHandles(Fixture& fixture);

// [slot.] §5.5: slot list, slot / token info, mechanism list / info, the
// free slot (issue 11 point 16).
void RunSlots(Fixture& fixture);

// [session.] [login.] §5.6: opening and closing sessions, session states,
// login states and every login error.
void RunSessions(Fixture& fixture);

// [object.] §4.1, §5.7.1-5.7.4, §5.7.6: creating, copying, destroying and
// changing objects in each session state; read-only and one-way attributes.
void RunObjects(Fixture& fixture);

// [attr.] §5.7.5: C_GetAttributeValue's rules; [class.] §4.4-4.10: each
// class's required attributes and its defaults.
void RunAttributes(Fixture& fixture);

// [find.] §5.7.7-5.7.9: the object search state machine.
void RunFind(Fixture& fixture);

// [op.] §5.2, §5.8-5.12: the operation state machine for every operation
// kind and every mechanism the module offers that the suite knows.
void RunOperations(Fixture& fixture);

// [key.] §5.14 and mechanism rules: key generation arguments, allowed
// mechanisms, always-authenticate keys, raw ECDSA, RSA keys from n and d.
void RunKeys(Fixture& fixture);

// [random.] §5.15.
void RunRandom(Fixture& fixture);

// [token.] §5.5.7-5.5.9: C_InitToken, C_InitPIN, C_SetPIN (PIN changes are
// undone; C_InitToken only with --reinit).
void RunToken(Fixture& fixture);

}  // namespace signet::conformance
