// Cases for clang's thread-safety analysis over core's own annotated types,
// compiled by the tests in CMakeLists.txt beside this file with core's
// include path and -DCASE_<name>: they fail if a ClientState member or an
// HsmImpl helper loses the annotation that makes the analysis check its
// lock (client_state.h, hsm_internal.h). CASE_core_clean is the correct
// use and must compile.
#include "base/mutex.h"
#include "core/client_state.h"
#include "core/hsm_internal.h"

namespace signet::core {
namespace {

// SessionCount reads a ClientState's sessions under its mu, as Hsm does.
[[maybe_unused]] std::size_t SessionCount(ClientState& c) EXCLUDES(c.mu) {
  base::MutexLock lock(&c.mu);
  return c.sessions.size();
}

// RoomFor checks the session-object limit with c.mu held, as StoreObject does.
[[maybe_unused]] bool RoomFor(const HsmImpl& hsm, ClientState& c) EXCLUDES(c.mu) {
  base::MutexLock lock(&c.mu);
  return hsm.CheckSessionObjectRoomLocked(c, 1, 64).ok();
}

#if defined(CASE_client_state_unlocked_read)
[[maybe_unused]] bool Idle(ClientState& c) { return c.sessions.empty(); }
#elif defined(CASE_room_check_without_client_lock)
[[maybe_unused]] bool Room(const HsmImpl& hsm, ClientState& c) {
  return hsm.CheckSessionObjectRoomLocked(c, 1, 64).ok();
}
#elif !defined(CASE_core_clean)
#error "unknown CASE"
#endif

}  // namespace
}  // namespace signet::core
