// Limits: every resource bound and access switch of the core, declared once
// with its default. The daemon fills it from its flags (signetd --help);
// tests shrink it. Read-only after Hsm::Open, so any thread may read it.
//
// What each bound protects (docs/SECURITY.md): a connection, logged in or
// not, cannot hold more than max_sessions sessions, nor more than
// max_session_objects session objects of max_session_object_bytes in total;
// a token cannot grow past max_token_objects objects of max_token_bytes;
// failed logins slow down (login_delay_*) per token and per peer; the
// multi-part operations of a connection hold at most
// max_multi_part_held_bytes.
#pragma once

#include <chrono>
#include <cstddef>

#include "signet/protocol.hpp"

namespace signet::core {

struct Limits {
  // Sessions one connection may hold open at once (CKR_SESSION_COUNT).
  std::size_t max_sessions = 1024;
  // Session objects one connection may hold, and their total size
  // (ObjectBytes), over all its sessions (CKR_DEVICE_MEMORY).
  std::size_t max_session_objects = 1000;
  std::size_t max_session_object_bytes = std::size_t{16} << 20;
  // A token's quota: objects and their total size (ObjectBytes; wrapped key
  // material counts as its unwrapped size when created here, and as
  // kObjectOverhead for objects loaded from disk). CKR_DEVICE_MEMORY.
  std::size_t max_token_objects = 100000;
  std::size_t max_token_bytes = std::size_t{64} << 20;
  // Multi-part operations the daemon runs (Hsm::StreamUpdate): what one
  // connection's operations may hold back at once, over all its sessions
  // (AES-GCM decryption holds its plaintext until the tag checks out), and
  // what one operation may hold: its Final returns it in one reply frame.
  // CKR_DEVICE_MEMORY / CKR_ENCRYPTED_DATA_LEN_RANGE beyond.
  std::size_t max_multi_part_held_bytes = std::size_t{16} << 20;
  std::size_t max_held_per_operation = (std::size_t{1} << 20) - 4096;
  // Failed-login throttle (login_throttle.h): after the n-th consecutive
  // failure of a token (or of a peer), n > login_free_failures, further PIN
  // checks of that token (or from that peer) are refused for
  // min(base * 2^(n - free - 1), cap). One free failure: a mistyped PIN can
  // be retried at once. Ten guesses (the lockout) then take >= 91 s.
  int login_free_failures = 1;
  std::chrono::milliseconds login_delay_base{500};
  std::chrono::milliseconds login_delay_cap{30000};
};

// kMaxSeedBytes: the most one C_SeedRandom mixes in (CKR_ARGUMENTS_BAD
// beyond); the wire's bound, shared with the module (signet/protocol.hpp).
inline constexpr std::size_t kMaxSeedBytes = SIGNET_MAX_SEED_LEN;

// kObjectOverhead: bytes counted per object besides its attribute values
// (the attribute types, the row, the wrapped key of a loaded key object).
inline constexpr std::size_t kObjectOverhead = 256;

// kLoginTicketLifetime: how long a re-login ticket (login_ticket.h) lets
// a module log in again on another node: a month, so a long-running
// application keeps failing over; the PIN changing voids it sooner.
inline constexpr std::chrono::hours kLoginTicketLifetime{24 * 30};

}  // namespace signet::core
