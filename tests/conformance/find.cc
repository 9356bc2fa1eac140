// [find.] The object search (§5.7.7-5.7.9): C_FindObjects and
// C_FindObjectsFinal need C_FindObjectsInit, a second Init while a search is
// active is CKR_OPERATION_ACTIVE, C_FindObjectsFinal ends the search, an
// empty template finds everything, an attribute no object has finds
// nothing, private objects are found only after login.
#include "areas.h"

namespace signet::conformance {

void RunFind(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE session = f.Open(true);
  if (session == CK_INVALID_HANDLE) return s.Skip("find.", "no session");
  CK_OBJECT_HANDLE found[8];
  CK_ULONG count = 99;
  s.Rv("find.objects_not_initialized", "5.7.8", CKR_OPERATION_NOT_INITIALIZED,
       p->C_FindObjects(session, found, 8, &count));
  s.Rv("find.final_not_initialized", "5.7.9", CKR_OPERATION_NOT_INITIALIZED,
       p->C_FindObjectsFinal(session));
  s.Rv("find.init_null_template", "5.7.7", CKR_ARGUMENTS_BAD,
       p->C_FindObjectsInit(session, nullptr, 1));
  s.Rv("find.init_invalid_session", "5.1.2", CKR_SESSION_HANDLE_INVALID,
       p->C_FindObjectsInit(CK_INVALID_HANDLE, nullptr, 0));

  CK_OBJECT_HANDLE a = f.CreateData(session, "conf-find", false, false);
  CK_OBJECT_HANDLE b = f.CreateData(session, "conf-find", false, false);
  Template label;
  label.Str(CKA_LABEL, "conf-find");
  s.Rv("find.init", "5.7.7", CKR_OK, p->C_FindObjectsInit(session, label.data(), label.size()));
  s.Rv("find.init_while_active", "5.7.7", CKR_OPERATION_ACTIVE,
       p->C_FindObjectsInit(session, label.data(), label.size()));
  s.Rv("find.objects_null_count", "5.7.8", CKR_ARGUMENTS_BAD,
       p->C_FindObjects(session, found, 8, nullptr));
  count = 99;
  s.Rv("find.objects_null_handles", "5.7.8", CKR_ARGUMENTS_BAD,
       p->C_FindObjects(session, nullptr, 8, &count));
  count = 99;
  CK_RV rv = p->C_FindObjects(session, found, 1, &count);
  s.Rv("find.objects_one", "5.7.8", CKR_OK, rv);
  s.True("find.objects_one_count", "5.7.8", count == 1, "1", std::to_string(count));
  CK_OBJECT_HANDLE first = found[0];
  count = 99;
  p->C_FindObjects(session, found, 8, &count);
  s.True("find.objects_rest", "5.7.8",
         count == 1 && found[0] != first && (first == a || first == b) &&
             (found[0] == a || found[0] == b),
         "the other object", std::to_string(count) + " objects");
  count = 99;
  s.Rv("find.objects_exhausted", "5.7.8", CKR_OK, p->C_FindObjects(session, found, 8, &count));
  s.True("find.objects_exhausted_count", "5.7.8", count == 0, "0", std::to_string(count));
  s.Rv("find.final", "5.7.9", CKR_OK, p->C_FindObjectsFinal(session));
  s.Rv("find.final_ends_search", "5.7.8", CKR_OPERATION_NOT_INITIALIZED,
       p->C_FindObjects(session, found, 8, &count));

  s.True("find.empty_template_finds_all", "5.7.7", f.Count(session, Template()) >= 2, ">= 2",
         std::to_string(f.Count(session, Template())));
  Template absent;
  absent.Str(CKA_LABEL, "conf-find").Bytes(CKA_MODULUS, {1, 2, 3});
  s.True("find.attribute_not_held_matches_nothing", "5.7.7", f.Count(session, absent) == 0, "0",
         std::to_string(f.Count(session, absent)));

  f.LoginUser(session);
  f.CreateData(session, "conf-find-private", false, true);
  Template private_label;
  private_label.Str(CKA_LABEL, "conf-find-private");
  s.True("find.private_found_when_logged_in", "5.7.7", f.Count(session, private_label) == 1, "1",
         std::to_string(f.Count(session, private_label)));
  CK_OBJECT_HANDLE token_private = f.CreateData(session, "conf-find-private-token", true, true);
  p->C_Logout(session);
  Template token_label;
  token_label.Str(CKA_LABEL, "conf-find-private-token");
  s.True("find.private_hidden_when_logged_out", "5.7.7",
         token_private != CK_INVALID_HANDLE && f.Count(session, token_label) == 0, "0",
         std::to_string(f.Count(session, token_label)));
  f.CloseAll();
}

}  // namespace signet::conformance
