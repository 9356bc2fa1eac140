// [token.] C_InitPIN, C_SetPIN (§5.5.8, §5.5.9; every change is undone) and,
// with --reinit, C_InitToken (§5.5.7) on the token under test (re-creating
// its user PIN afterwards) and on the free slot (issue 11 point 16).
#include <cstring>

#include "areas.h"

namespace signet::conformance {
namespace {

CK_UTF8CHAR_PTR Utf8(const std::string& text) {
  return reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(text.data()));
}

void Label(const std::string& text, CK_UTF8CHAR out[32]) {
  std::memset(out, ' ', 32);
  std::memcpy(out, text.data(), std::min<size_t>(text.size(), 32));
}

void CheckPins(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  const std::string& user = f.options().user_pin;
  const std::string other = user + "-2";
  CK_SESSION_HANDLE ro = f.Open(false);
  s.Rv("token.set_pin.read_only_session", "5.5.9", CKR_SESSION_READ_ONLY,
       p->C_SetPIN(ro, Utf8(user), user.size(), Utf8(other), other.size()));
  f.CloseAll();
  CK_SESSION_HANDLE rw = f.Open(true);
  s.Rv("token.set_pin.null_new", "5.5.9", CKR_ARGUMENTS_BAD,
       p->C_SetPIN(rw, Utf8(user), user.size(), nullptr, 4));
  s.Rv("token.set_pin.null_old", "5.5.9", CKR_ARGUMENTS_BAD,
       p->C_SetPIN(rw, nullptr, 4, Utf8(other), other.size()));
  s.Rv("token.init_pin.public_session", "5.5.8", CKR_USER_NOT_LOGGED_IN,
       p->C_InitPIN(rw, Utf8(user), user.size()));
  f.LoginUser(rw);
  s.Rv("token.init_pin.user_session", "5.5.8", CKR_USER_NOT_LOGGED_IN,
       p->C_InitPIN(rw, Utf8(user), user.size()));
  s.Rv("token.set_pin.wrong_old_pin", "5.5.9", CKR_PIN_INCORRECT,
       p->C_SetPIN(rw, Utf8(other), other.size(), Utf8(other), other.size()));
  CK_TOKEN_INFO info;
  if (p->C_GetTokenInfo(f.slot(), &info) == CKR_OK && info.ulMaxPinLen < 4096) {
    const std::string too_long(info.ulMaxPinLen + 1, '7');
    s.Rv("token.set_pin.too_long", "5.5.9", CKR_PIN_LEN_RANGE,
         p->C_SetPIN(rw, Utf8(user), user.size(), Utf8(too_long), too_long.size()));
    if (info.ulMinPinLen > 1) {
      const std::string too_short(info.ulMinPinLen - 1, '7');
      s.Rv("token.set_pin.too_short", "5.5.9", CKR_PIN_LEN_RANGE,
           p->C_SetPIN(rw, Utf8(user), user.size(), Utf8(too_short), too_short.size()));
    }
  }
  if (s.Rv("token.set_pin.user", "5.5.9", CKR_OK,
           p->C_SetPIN(rw, Utf8(user), user.size(), Utf8(other), other.size()))) {
    p->C_Logout(rw);
    s.Rv("token.set_pin.new_pin_works", "5.5.9", CKR_OK,
         p->C_Login(rw, CKU_USER, Utf8(other), other.size()));
    s.Rv("token.set_pin.restore", "5.5.9", CKR_OK,
         p->C_SetPIN(rw, Utf8(other), other.size(), Utf8(user), user.size()));
  }
  f.CloseAll();
  rw = f.Open(true);
  if (f.Login(rw, CKU_SO) == CKR_OK) {
    s.Rv("token.init_pin.null_pin", "5.5.8", CKR_ARGUMENTS_BAD, p->C_InitPIN(rw, nullptr, 4));
    s.Rv("token.init_pin.so", "5.5.8", CKR_OK, p->C_InitPIN(rw, Utf8(user), user.size()));
    const std::string& so = f.options().so_pin;
    const std::string so_other = so + "-2";
    if (s.Rv("token.set_pin.so", "5.5.9", CKR_OK,
             p->C_SetPIN(rw, Utf8(so), so.size(), Utf8(so_other), so_other.size()))) {
      s.Rv("token.set_pin.so_restore", "5.5.9", CKR_OK,
           p->C_SetPIN(rw, Utf8(so_other), so_other.size(), Utf8(so), so.size()));
    }
  }
  f.CloseAll();
}

void CheckInitToken(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  const std::string& so = f.options().so_pin;
  const std::string& user = f.options().user_pin;
  CK_UTF8CHAR label[32];
  Label(f.options().token_label, label);
  s.Rv("token.init_token.null_pin", "5.5.7", CKR_ARGUMENTS_BAD,
       p->C_InitToken(f.slot(), nullptr, so.size(), label));
  s.Rv("token.init_token.null_label", "5.5.7", CKR_ARGUMENTS_BAD,
       p->C_InitToken(f.slot(), Utf8(so), so.size(), nullptr));
  CK_SESSION_HANDLE session = f.Open(false);
  s.Rv("token.init_token.session_exists", "5.5.7", CKR_SESSION_EXISTS,
       p->C_InitToken(f.slot(), Utf8(so), so.size(), label));
  p->C_CloseSession(session);
  const std::string wrong = so + "x";
  s.Rv("token.init_token.wrong_so_pin", "5.5.7", CKR_PIN_INCORRECT,
       p->C_InitToken(f.slot(), Utf8(wrong), wrong.size(), label));
  s.Rv("token.init_token.reinitialise", "5.5.7", CKR_OK,
       p->C_InitToken(f.slot(), Utf8(so), so.size(), label));
  // Re-initialising forgets the user PIN: the SO sets it again.
  session = f.Open(true);
  CK_TOKEN_INFO info;
  std::memset(&info, 0, sizeof info);
  p->C_GetTokenInfo(f.slot(), &info);
  s.True("token.init_token.user_pin_forgotten", "5.5.7 / 3.2 CK_TOKEN_INFO",
         (info.flags & CKF_USER_PIN_INITIALIZED) == 0, "CKF_USER_PIN_INITIALIZED clear",
         Hex(info.flags));
  s.Rv("token.init_token.user_login_before_init_pin", "5.6.7", CKR_USER_PIN_NOT_INITIALIZED,
       f.LoginUser(session));
  s.Rv("token.init_token.so_login_after", "5.5.7", CKR_OK, f.Login(session, CKU_SO));
  s.Rv("token.init_token.init_pin_after", "5.5.8", CKR_OK,
       p->C_InitPIN(session, Utf8(user), user.size()));
  f.CloseAll();
  session = f.Open(true);
  s.Rv("token.init_token.user_login_after", "5.6.7", CKR_OK, f.LoginUser(session));
  f.CloseAll();

  // Issue 11 point 16: C_InitToken on the free slot's uninitialised token.
  CK_ULONG count = 0;
  p->C_GetSlotList(CK_TRUE, nullptr, &count);
  std::vector<CK_SLOT_ID> slots(count);
  p->C_GetSlotList(CK_TRUE, slots.data(), &count);
  CK_SLOT_ID free_slot = ~CK_SLOT_ID{0};
  for (CK_SLOT_ID slot : slots) {
    if (p->C_GetTokenInfo(slot, &info) == CKR_OK && (info.flags & CKF_TOKEN_INITIALIZED) == 0)
      free_slot = slot;
  }
  if (free_slot == ~CK_SLOT_ID{0})
    return s.Skip("token.init_token.free_slot", "no present uninitialised token");
  CK_UTF8CHAR free_label[32];
  Label(f.options().token_label + "-2", free_label);
  if (!s.Rv("token.init_token.free_slot", "5.5.7", CKR_OK,
            p->C_InitToken(free_slot, Utf8(so), so.size(), free_label))) {
    return;
  }
  std::memset(&info, 0, sizeof info);
  p->C_GetTokenInfo(free_slot, &info);
  s.True("token.init_token.free_slot_initialised", "5.5.7",
         (info.flags & CKF_TOKEN_INITIALIZED) != 0 &&
             Blank(info.label, sizeof info.label) == f.options().token_label + "-2",
         "CKF_TOKEN_INITIALIZED and the new label",
         Blank(info.label, sizeof info.label) + " " + Hex(info.flags));
  CK_ULONG after = 0;
  p->C_GetSlotList(CK_TRUE, nullptr, &after);
  std::vector<CK_SLOT_ID> now(after);
  p->C_GetSlotList(CK_TRUE, now.data(), &after);
  bool another = false;
  for (CK_SLOT_ID slot : now) {
    if (p->C_GetTokenInfo(slot, &info) == CKR_OK && (info.flags & CKF_TOKEN_INITIALIZED) == 0)
      another = true;
  }
  s.True("token.init_token.new_free_slot", "5.5.1", another, "another present uninitialised token",
         another ? "one" : "none");
}

}  // namespace

void RunToken(Fixture& f) {
  CheckPins(f);
  if (f.options().reinit) {
    CheckInitToken(f);
  } else {
    f.suite().Skip("token.init_token", "needs --reinit");
  }
}

}  // namespace signet::conformance
