// [session.] §5.6.1-5.6.4: opening, closing and describing sessions.
// [login.] §5.6.7-5.6.8 and the session states (v2.20 §6.7, carried into
// v2.40's C_Login / C_OpenSession text): R/O and R/W sessions, public, user
// and SO functions, and every login error.
#include <cstring>

#include "areas.h"

namespace signet::conformance {
namespace {

std::string StateName(CK_STATE state) {
  switch (state) {
    case CKS_RO_PUBLIC_SESSION:
      return "CKS_RO_PUBLIC_SESSION";
    case CKS_RO_USER_FUNCTIONS:
      return "CKS_RO_USER_FUNCTIONS";
    case CKS_RW_PUBLIC_SESSION:
      return "CKS_RW_PUBLIC_SESSION";
    case CKS_RW_USER_FUNCTIONS:
      return "CKS_RW_USER_FUNCTIONS";
    case CKS_RW_SO_FUNCTIONS:
      return "CKS_RW_SO_FUNCTIONS";
    default:
      return "none (" + Hex(state) + ")";
  }
}

void State(Fixture& f, const std::string& id, const char* section, CK_SESSION_HANDLE session,
           CK_STATE expected) {
  CK_STATE got = f.SessionState(session);
  f.suite().True(id, section, got == expected, StateName(expected), StateName(got));
}

void CheckOpenClose(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  s.Rv("session.open.not_serial", "5.6.1", CKR_SESSION_PARALLEL_NOT_SUPPORTED,
       p->C_OpenSession(f.slot(), CKF_RW_SESSION, nullptr, nullptr, &session));
  s.Rv("session.open.null_handle", "5.6.1", CKR_ARGUMENTS_BAD,
       p->C_OpenSession(f.slot(), CKF_SERIAL_SESSION, nullptr, nullptr, nullptr));
  s.Rv("session.open.invalid_slot", "5.6.1", CKR_SLOT_ID_INVALID,
       p->C_OpenSession(0x7fff0101, CKF_SERIAL_SESSION, nullptr, nullptr, &session));

  CK_SESSION_HANDLE ro = CK_INVALID_HANDLE, rw = CK_INVALID_HANDLE;
  s.Rv("session.open.read_only", "5.6.1", CKR_OK,
       p->C_OpenSession(f.slot(), CKF_SERIAL_SESSION, nullptr, nullptr, &ro));
  s.Rv("session.open.read_write", "5.6.1", CKR_OK,
       p->C_OpenSession(f.slot(), CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr, nullptr, &rw));
  s.True("session.open.distinct_valid_handles", "3.4 CK_SESSION_HANDLE",
         ro != CK_INVALID_HANDLE && rw != CK_INVALID_HANDLE && ro != rw, "two distinct non-zero",
         Hex(ro) + "," + Hex(rw));
  State(f, "session.info.ro_public", "5.6.4", ro, CKS_RO_PUBLIC_SESSION);
  State(f, "session.info.rw_public", "5.6.4", rw, CKS_RW_PUBLIC_SESSION);
  CK_SESSION_INFO info;
  std::memset(&info, 0, sizeof info);
  p->C_GetSessionInfo(rw, &info);
  s.True("session.info.flags_and_slot", "5.6.4",
         info.slotID == f.slot() && info.flags == (CKF_SERIAL_SESSION | CKF_RW_SESSION),
         "slot " + Hex(f.slot()) + " flags 0x6",
         "slot " + Hex(info.slotID) + " flags " + Hex(info.flags));
  s.Rv("session.info.null", "5.6.4", CKR_ARGUMENTS_BAD, p->C_GetSessionInfo(rw, nullptr));
  s.Rv("session.info.invalid_handle", "5.6.4", CKR_SESSION_HANDLE_INVALID,
       p->C_GetSessionInfo(CK_INVALID_HANDLE, &info));

  s.Rv("session.close.ok", "5.6.2", CKR_OK, p->C_CloseSession(ro));
  s.Rv("session.close.twice", "5.6.2", CKR_SESSION_HANDLE_INVALID, p->C_CloseSession(ro));
  s.Rv("session.close.then_used", "5.1.2", CKR_SESSION_HANDLE_INVALID,
       p->C_GetSessionInfo(ro, &info));
  s.Rv("session.close.invalid_handle", "5.6.2", CKR_SESSION_HANDLE_INVALID,
       p->C_CloseSession(CK_INVALID_HANDLE));
  s.Rv("session.close_all.invalid_slot", "5.6.3", CKR_SLOT_ID_INVALID,
       p->C_CloseAllSessions(0x7fff0101));
  s.Rv("session.close_all.ok", "5.6.3", CKR_OK, p->C_CloseAllSessions(f.slot()));
  s.Rv("session.close_all.closed", "5.6.3", CKR_SESSION_HANDLE_INVALID,
       p->C_GetSessionInfo(rw, &info));
}

CK_RV LoginWith(Fixture& f, CK_SESSION_HANDLE session, CK_USER_TYPE user, const std::string& pin) {
  return f.p11()->C_Login(
      session, user, reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(pin.data())), pin.size());
}

void CheckUserLogin(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE rw = f.Open(true), ro = f.Open(false);
  if (rw == CK_INVALID_HANDLE || ro == CK_INVALID_HANDLE) return s.Skip("login.", "no session");

  s.Rv("login.logout_not_logged_in", "5.6.8", CKR_USER_NOT_LOGGED_IN, p->C_Logout(rw));
  // Issue 11 point 9: no protected authentication path, so a NULL PIN is bad arguments.
  s.Rv("login.null_pin", "5.6.7", CKR_ARGUMENTS_BAD, p->C_Login(rw, CKU_USER, nullptr, 4));
  s.Rv("login.null_pin_zero_length", "5.6.7", CKR_ARGUMENTS_BAD,
       p->C_Login(rw, CKU_USER, nullptr, 0));
  s.Rv("login.user_type_invalid", "5.6.7", CKR_USER_TYPE_INVALID,
       LoginWith(f, rw, 7, f.options().user_pin));
  s.Rv("login.context_specific_without_operation", "5.6.7", CKR_OPERATION_NOT_INITIALIZED,
       LoginWith(f, rw, CKU_CONTEXT_SPECIFIC, f.options().user_pin));
  s.Rv("login.invalid_session", "5.6.7", CKR_SESSION_HANDLE_INVALID,
       LoginWith(f, CK_INVALID_HANDLE, CKU_USER, f.options().user_pin));
  // One wrong PIN, then the right one (so PIN throttling never starts).
  s.Rv("login.pin_incorrect", "5.6.7", CKR_PIN_INCORRECT,
       LoginWith(f, rw, CKU_USER, f.options().user_pin + "x"));
  State(f, "login.pin_incorrect_stays_public", "5.6.7", rw, CKS_RW_PUBLIC_SESSION);

  s.Rv("login.user_ok", "5.6.7", CKR_OK, f.LoginUser(ro));
  State(f, "login.user_state_ro", "5.6.7", ro, CKS_RO_USER_FUNCTIONS);
  State(f, "login.user_state_rw_other_session", "5.6.7", rw, CKS_RW_USER_FUNCTIONS);
  CK_SESSION_HANDLE later = f.Open(true);
  State(f, "login.user_state_new_session", "5.6.1", later, CKS_RW_USER_FUNCTIONS);
  s.Rv("login.user_already_logged_in", "5.6.7", CKR_USER_ALREADY_LOGGED_IN, f.LoginUser(rw));
  p->C_CloseSession(ro);  // so that only one rule applies to the SO's login
  s.Rv("login.so_while_user", "5.6.7", CKR_USER_ANOTHER_ALREADY_LOGGED_IN, f.Login(rw, CKU_SO));
  ro = f.Open(false);
  State(f, "login.user_state_new_ro_session", "5.6.1", ro, CKS_RO_USER_FUNCTIONS);

  s.Rv("login.logout_ok", "5.6.8", CKR_OK, p->C_Logout(rw));
  State(f, "login.logout_state_ro", "5.6.8", ro, CKS_RO_PUBLIC_SESSION);
  State(f, "login.logout_state_rw", "5.6.8", later, CKS_RW_PUBLIC_SESSION);
  s.Rv("login.logout_twice", "5.6.8", CKR_USER_NOT_LOGGED_IN, p->C_Logout(ro));

  // With a read-only session open the SO cannot log in.
  s.Rv("login.so_read_only_exists", "5.6.7", CKR_SESSION_READ_ONLY_EXISTS, f.Login(rw, CKU_SO));
  f.CloseAll();

  // Closing the last session logs the application out (§5.6.2).
  rw = f.Open(true);
  f.LoginUser(rw);
  f.CloseAll();
  rw = f.Open(true);
  State(f, "login.closing_last_session_logs_out", "5.6.2", rw, CKS_RW_PUBLIC_SESSION);
  f.CloseAll();
}

void CheckSoLogin(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE rw = f.Open(true);
  if (rw == CK_INVALID_HANDLE) return s.Skip("login.so", "no session");
  s.Rv("login.so_pin_incorrect", "5.6.7", CKR_PIN_INCORRECT,
       LoginWith(f, rw, CKU_SO, f.options().so_pin + "x"));
  s.Rv("login.so_ok", "5.6.7", CKR_OK, f.Login(rw, CKU_SO));
  State(f, "login.so_state", "5.6.7", rw, CKS_RW_SO_FUNCTIONS);
  CK_SESSION_HANDLE ro = CK_INVALID_HANDLE;
  s.Rv("login.so_then_open_read_only", "5.6.1", CKR_SESSION_READ_WRITE_SO_EXISTS,
       p->C_OpenSession(f.slot(), CKF_SERIAL_SESSION, nullptr, nullptr, &ro));
  CK_SESSION_HANDLE rw2 = f.Open(true);
  State(f, "login.so_state_new_session", "5.6.1", rw2, CKS_RW_SO_FUNCTIONS);
  s.Rv("login.so_already_logged_in", "5.6.7", CKR_USER_ALREADY_LOGGED_IN, f.Login(rw, CKU_SO));
  s.Rv("login.user_while_so", "5.6.7", CKR_USER_ANOTHER_ALREADY_LOGGED_IN, f.LoginUser(rw));
  s.Rv("login.so_logout", "5.6.8", CKR_OK, p->C_Logout(rw2));
  State(f, "login.so_logout_state", "5.6.8", rw, CKS_RW_PUBLIC_SESSION);
  f.CloseAll();
}

}  // namespace

void RunSessions(Fixture& fixture) {
  CheckOpenClose(fixture);
  RunInvalidSessionHandles(fixture);
  CheckUserLogin(fixture);
  CheckSoLogin(fixture);
}

}  // namespace signet::conformance
