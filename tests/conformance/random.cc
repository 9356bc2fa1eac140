// [random.] C_SeedRandom and C_GenerateRandom (§5.15; issue 11 point 12:
// the seed is mixed in, CKR_OK).
#include "areas.h"

namespace signet::conformance {

void RunRandom(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE session = f.Open(false);
  if (session == CK_INVALID_HANDLE) return s.Skip("random.", "no session");
  CK_BYTE a[32] = {}, b[32] = {};
  s.Rv("random.generate.ok", "5.15.2", CKR_OK, p->C_GenerateRandom(session, a, sizeof a));
  p->C_GenerateRandom(session, b, sizeof b);
  bool differ = std::vector<CK_BYTE>(a, a + 32) != std::vector<CK_BYTE>(b, b + 32);
  s.True("random.generate.differs", "5.15.2", differ, "two different outputs",
         differ ? "two different outputs" : "the same 32 bytes twice");
  s.Rv("random.generate.null", "5.15.2", CKR_ARGUMENTS_BAD,
       p->C_GenerateRandom(session, nullptr, 16));
  s.Rv("random.generate.invalid_session", "5.15.2", CKR_SESSION_HANDLE_INVALID,
       p->C_GenerateRandom(CK_INVALID_HANDLE, a, sizeof a));
  CK_BYTE seed[16] = {1, 2, 3};
  s.Rv("random.seed.ok", "5.15.1", CKR_OK, p->C_SeedRandom(session, seed, sizeof seed));
  s.Rv("random.seed.null", "5.15.1", CKR_ARGUMENTS_BAD, p->C_SeedRandom(session, nullptr, 16));
  s.Rv("random.seed.invalid_session", "5.15.1", CKR_SESSION_HANDLE_INVALID,
       p->C_SeedRandom(CK_INVALID_HANDLE, seed, sizeof seed));
  f.CloseAll();
}

}  // namespace signet::conformance
