// signet::client::Client: the C++ client library for signetd.
//
// A Client is one connection to the daemon, over a Unix domain socket (the
// default) or TCP with TLS 1.3 and optional client certificates. Every
// operation of the wire protocol is offered twice:
//
//   - blocking:  `Result<Bytes> sig = client->Sign(session, key, mech, data);`
//   - pipelined: `Send*` queues the request and returns a Pending<T> ticket at
//     once; `Wait(ticket)` returns its result. Many requests can be in flight
//     on one connection; replies come back in any order and are matched by
//     id, those for other tickets being kept until their Wait. The blocking
//     form is exactly `Wait(Send*(...))`.
//
// SignBatch signs many inputs with one key in one request and one reply.
//
// Errors are signet::Error: a PKCS#11 CK_RV code (or a SIGNET_RV_* vendor
// code from signet/protocol.hpp) and a message for humans. Lost connections
// report CKR_DEVICE_REMOVED; every later call on that Client fails the same
// way. Nothing here throws on the request path.
//
// Handles (sessions, objects) are the daemon's CK_ULONG values and are valid
// only on the connection that obtained them: a session opened on one Client
// means nothing to another. Session objects (CKA_TOKEN false) die with their
// session or with this Client.
//
// Thread contract: a Client may be shared by any number of threads; every
// member is thread-safe (except destruction: no call may be running). Many
// threads can have requests in flight on the one connection at the same
// time, and no lock is held across a round trip: a Send* locks only to
// queue its bytes (encoding happens outside), and of the threads in Wait one
// reads the socket for all of them while the others sleep until their reply
// is filed (the reader role passes on as soon as the reader's own reply is
// in). A ticket may be waited for by any thread, exactly once. Handles
// obtained by one thread are valid for every thread of the same Client (the
// daemon's handle space is per connection); a lost connection fails every
// waiting thread with the same error. Over TLS, one SSL object serialises
// the encryption of writes and decryption of reads (not the waiting).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "signet/protocol.hpp"
#include "signet/result.hpp"
#include "signet/types.hpp"

namespace signet::client {

// The value types shared with the daemon (signet/types.hpp), also named
// here so client code can say client::Mechanism.
using signet::AesCtrParams;
using signet::AttributeValue;
using signet::BoolFromBytes;
using signet::Bytes;
using signet::ByteView;
using signet::DerivationData;
using signet::EcdhParams;
using signet::EddsaParams;
using signet::GcmParams;
using signet::HkdfParams;
using signet::Mechanism;
using signet::OaepParams;
using signet::OperationKind;
using signet::PssParams;
using signet::RsaAesWrapParams;
using signet::SessionInfo;
using signet::UlongFromBytes;

// Handle: a session or object handle as the daemon issued it.
using Handle = CK_ULONG;

// Attribute: one PKCS#11 attribute in its C ABI byte form (CK_ULONG as 8
// bytes little-endian, CK_BBOOL as 1 byte, strings/big integers as bytes).
struct Attribute {
  CK_ATTRIBUTE_TYPE type = 0;
  Bytes value;
};
using Template = std::vector<Attribute>;

// UlongAttribute / BoolAttribute / BytesAttribute / StringAttribute build an
// Attribute from a typed value.
Attribute UlongAttribute(CK_ATTRIBUTE_TYPE type, CK_ULONG value);
Attribute BoolAttribute(CK_ATTRIBUTE_TYPE type, bool value);
Attribute BytesAttribute(CK_ATTRIBUTE_TYPE type, ByteView value);
Attribute StringAttribute(CK_ATTRIBUTE_TYPE type, std::string_view value);

// UlongFromBytes / BoolFromBytes (signet/types.hpp) read a value back.

// MechanismInfo: CK_MECHANISM_INFO of one mechanism the daemon offers, and
// the key types it works with (CK_UNAVAILABLE_INFORMATION for none):
// key_type, and alt_key_type when it takes a second one (HMAC).
struct MechanismInfo {
  CK_MECHANISM_TYPE type = 0;
  CK_ULONG min_key_size = 0;
  CK_ULONG max_key_size = 0;
  CK_FLAGS flags = 0;
  CK_KEY_TYPE key_type = CK_UNAVAILABLE_INFORMATION;
  CK_KEY_TYPE alt_key_type = CK_UNAVAILABLE_INFORMATION;
};

// SlotInfo: one slot and, when token_present, its token. The last slot is
// the free one, where InitToken creates a new token.
struct SlotInfo {
  CK_SLOT_ID slot_id = 0;
  bool token_present = false;
  std::string label;
  std::string serial;
  CK_FLAGS flags = 0;  // CK_TOKEN_INFO.flags
  CK_ULONG session_count = 0;
  CK_ULONG rw_session_count = 0;
  CK_ULONG min_pin_len = 0;
  CK_ULONG max_pin_len = 0;
};

// UnavailableToken: a token file the daemon found but could not open; it
// has no slot. `reason` names the file and what is wrong with it.
struct UnavailableToken {
  std::string file;
  std::string reason;
};

// ServerInfo: what GetInfo returns.
struct ServerInfo {
  std::uint16_t protocol_version = 0;
  std::string server_version;
  std::string manufacturer;
  std::string model;
  std::vector<SlotInfo> slots;
  std::vector<MechanismInfo> mechanisms;
  std::vector<UnavailableToken> unavailable_tokens;  // empty from older daemons
};


// InitTokenResult: the slot that now holds the token and its serial.
struct InitTokenResult {
  CK_SLOT_ID slot_id = 0;
  std::string serial;
};

// KeyPair: the two handles GenerateKeyPair creates.
struct KeyPair {
  Handle public_key = 0;
  Handle private_key = 0;
};


// PhaseStat: an always-on timing counter of the daemon.
struct PhaseStat {
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t total_ns = 0;
};

// PoolStat: one key-pool type of the daemon (sizes summed over tokens;
// target is per token; generated/generate_ns give the refill rate; misses:
// matching key-pair requests that found the pool empty).
struct PoolStat {
  std::string name;  // "rsa:2048", "ec:p256", "ed25519"
  std::uint64_t target = 0;
  std::uint64_t size = 0;
  std::uint64_t generated = 0;
  std::uint64_t taken = 0;
  std::uint64_t misses = 0;
  std::uint64_t generate_ns = 0;
};

// ServerStats: what GetStats returns (scheduler, phases, key cache, key
// pool).
struct ServerStats {
  std::uint64_t workers = 0;
  std::uint64_t queue_capacity = 0;
  std::uint64_t queue_depth = 0;
  std::uint64_t queue_peak = 0;
  std::uint64_t busy_rejections = 0;
  std::uint64_t completed = 0;
  std::uint64_t ran_on_event_loop = 0;  // of completed: no worker woken
  std::uint64_t ring_requests = 0;      // taken from shared-memory rings
  std::uint64_t ring_connections = 0;   // connections with a ring, open now
  std::uint64_t connections = 0;
  std::uint64_t sessions = 0;
  std::vector<PhaseStat> phases;
  std::uint64_t cache_hits = 0;
  std::uint64_t cache_misses = 0;
  std::uint64_t cache_evictions = 0;
  std::uint64_t cache_size = 0;
  std::uint64_t cache_capacity = 0;
  std::vector<PoolStat> pools;  // empty when the daemon runs without a pool
};

// ConnectOptions: where the daemon is and how to reach it.
struct ConnectOptions {
  // address: a Unix socket path ("/run/signet/signetd.sock" or
  // "unix:/path") or "tcp://host:port" (always TLS 1.3); or several,
  // comma-separated, for the nodes of one shared keystore: Connect then
  // goes to one that answers, spreading connections over them and passing
  // over a node that failed within the last second (docs/SCALING.md).
  std::string address;
  // TLS files (TCP only). Empty tls_ca_file: the system trust store.
  // tls_cert_file / tls_key_file: the client certificate, when the daemon
  // requires one. tls_server_name: the name checked in the daemon's
  // certificate (default: the host of `address`).
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_server_name;
  // timeout bounds every single wait for the daemon (connect excluded);
  // zero waits forever. On timeout the call fails with CKR_DEVICE_ERROR and
  // the connection is unusable.
  std::chrono::milliseconds timeout{0};
  // shared_memory: on a Unix socket, ask signetd for the shared-memory ring
  // (docs/PROTOCOL.md "The shared-memory ring") and send every request
  // that fits a slot through it; the socket carries the rest. A daemon
  // that refuses leaves everything on the socket. Ignored over TCP.
  bool shared_memory = true;
};

// ReplyFrame: one verified reply from the daemon (opaque; defined inside the
// library so no codec type appears in this header).
class ReplyFrame;

// Pending<T>: the ticket of a pipelined request; pass it to Client::Wait
// exactly once. A reply whose ticket is never waited for stays buffered
// until the Client is destroyed.
template <typename T>
struct Pending {
  std::uint64_t id = 0;
  Result<T> (*decode)(const ReplyFrame&) = nullptr;
};

class Client {
 public:
  // Connect opens a connection. CKR_ARGUMENTS_BAD for a malformed address,
  // CKR_DEVICE_ERROR (with the reason) when the daemon cannot be reached or
  // the TLS handshake fails.
  static Result<std::unique_ptr<Client>> Connect(const ConnectOptions& options);

  // ~Client closes the connection; the daemon then ends its sessions and
  // destroys its session objects.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Wait blocks until the reply for `pending` is here and decodes it. Other
  // replies arriving meanwhile are kept for their own Wait.
  template <typename T>
  Result<T> Wait(const Pending<T>& pending) {
    SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<const ReplyFrame> frame, WaitReply(pending.id));
    return pending.decode(*frame);
  }

  // Flush writes every queued request to the socket. Send* queues requests
  // in memory (up to 64 KiB) and Wait flushes before waiting, so callers
  // rarely need this; it serves fire-then-do-other-work patterns.
  [[nodiscard]] Status Flush();

  // ---- Pipelined operations: each returns at once with a ticket. They fail
  // only when the request cannot be encoded (CKR_DATA_LEN_RANGE: over the
  // 1 MiB frame limit) or the connection is already lost.
  Result<Pending<ServerInfo>> SendGetInfo();
  Result<Pending<Handle>> SendOpenSession(CK_SLOT_ID slot, CK_FLAGS flags);
  Result<Pending<void>> SendCloseSession(Handle session);
  Result<Pending<void>> SendCloseAllSessions(CK_SLOT_ID slot);
  Result<Pending<SessionInfo>> SendGetSessionInfo(Handle session);
  Result<Pending<void>> SendLogin(Handle session, CK_USER_TYPE user, ByteView pin);
  Result<Pending<Bytes>> SendLoginForTicket(Handle session, CK_USER_TYPE user, ByteView pin);
  Result<Pending<void>> SendLoginWithTicket(Handle session, CK_USER_TYPE user, ByteView ticket);
  Result<Pending<void>> SendUseStableHandles(ByteView key);
  Result<Pending<void>> SendLogout(Handle session);
  Result<Pending<InitTokenResult>> SendInitToken(CK_SLOT_ID slot, ByteView so_pin,
                                                 std::string_view label, ByteView user_pin);
  Result<Pending<void>> SendInitPin(Handle session, ByteView pin);
  Result<Pending<void>> SendSetPin(Handle session, ByteView old_pin, ByteView new_pin);
  Result<Pending<KeyPair>> SendGenerateKeyPair(Handle session, const Mechanism& mechanism,
                                               const Template& public_template,
                                               const Template& private_template,
                                               bool unique_label = false);
  Result<Pending<Handle>> SendGenerateKey(Handle session, const Mechanism& mechanism,
                                          const Template& key_template);
  Result<Pending<Handle>> SendCreateObject(Handle session, const Template& object_template);
  Result<Pending<Handle>> SendCopyObject(Handle session, Handle object,
                                         const Template& changes);
  Result<Pending<void>> SendDestroyObject(Handle session, Handle object);
  Result<Pending<std::vector<Handle>>> SendCreateObjects(Handle session,
                                                         const std::vector<Template>& templates,
                                                         bool unique_label);
  Result<Pending<void>> SendDestroyObjects(Handle session, std::span<const Handle> objects);
  Result<Pending<std::vector<Handle>>> SendFindObjects(Handle session, const Template& match,
                                                       CK_ULONG max_count);
  Result<Pending<std::vector<AttributeValue>>> SendGetAttributeValue(
      Handle session, Handle object, std::span<const CK_ATTRIBUTE_TYPE> types);
  Result<Pending<void>> SendSetAttributeValue(Handle session, Handle object,
                                              const Template& changes);
  Result<Pending<Bytes>> SendSign(Handle session, Handle key, const Mechanism& mechanism,
                                  ByteView data);
  Result<Pending<std::vector<Result<Bytes>>>> SendSignBatch(Handle session, Handle key,
                                                            const Mechanism& mechanism,
                                                            std::span<const Bytes> inputs);
  Result<Pending<void>> SendVerify(Handle session, Handle key, const Mechanism& mechanism,
                                   ByteView data, ByteView signature);
  Result<Pending<Bytes>> SendDigest(Handle session, const Mechanism& mechanism, ByteView data);
  Result<Pending<Bytes>> SendEncrypt(Handle session, Handle key, const Mechanism& mechanism,
                                     ByteView plaintext);
  Result<Pending<Bytes>> SendDecrypt(Handle session, Handle key, const Mechanism& mechanism,
                                     ByteView ciphertext);
  Result<Pending<Bytes>> SendWrapKey(Handle session, const Mechanism& mechanism,
                                     Handle wrapping_key, Handle key);
  Result<Pending<Handle>> SendUnwrapKey(Handle session, const Mechanism& mechanism,
                                        Handle unwrapping_key, ByteView wrapped,
                                        const Template& key_template);
  Result<Pending<Handle>> SendDeriveKey(Handle session, const Mechanism& mechanism, Handle base_key,
                                        const Template& key_template);
  Result<Pending<Bytes>> SendStreamUpdate(Handle session, OperationKind kind, bool start,
                                          Handle key, const Mechanism& mechanism, ByteView part);
  Result<Pending<Bytes>> SendStreamFinal(Handle session, OperationKind kind, ByteView signature);
  Result<Pending<Bytes>> SendGenerateRandom(Handle session, std::size_t length);
  Result<Pending<void>> SendSeedRandom(Handle session, ByteView seed);
  Result<Pending<ServerStats>> SendGetStats();

  // ---- Blocking operations: Wait(Send*(...)). Semantics and errors are the
  // PKCS#11 function's of the same name (see docs/PROTOCOL.md).

  // GetInfo: version, slots with their tokens, and mechanisms.
  Result<ServerInfo> GetInfo() { return Call(SendGetInfo()); }
  // OpenSession: flags must include CKF_SERIAL_SESSION.
  Result<Handle> OpenSession(CK_SLOT_ID slot, CK_FLAGS flags = CKF_SERIAL_SESSION |
                                                                CKF_RW_SESSION) {
    return Call(SendOpenSession(slot, flags));
  }
  Status CloseSession(Handle session) { return Call(SendCloseSession(session)); }
  // CloseAllSessions closes this connection's sessions on `slot` only.
  Status CloseAllSessions(CK_SLOT_ID slot) { return Call(SendCloseAllSessions(slot)); }
  Result<SessionInfo> GetSessionInfo(Handle session) {
    return Call(SendGetSessionInfo(session));
  }
  // Login logs this connection in on the session's token (CKU_USER, CKU_SO):
  // CKR_PIN_INCORRECT, CKR_PIN_LOCKED, CKR_USER_ALREADY_LOGGED_IN, ...
  Status Login(Handle session, CK_USER_TYPE user, ByteView pin) {
    return Call(SendLogin(session, user, pin));
  }
  // LoginForTicket is Login that also asks for a re-login ticket: a node of
  // a shared keystore started with --login-ticket-key returns one (empty:
  // the node gives none). LoginWithTicket logs in on any node holding the
  // same key with it instead of the PIN: CKR_PIN_INCORRECT for a ticket not
  // of this token and user, CKR_PIN_EXPIRED past its expiry, then Login's
  // errors (a PIN changed since fails as a wrong PIN does). Keep tickets in
  // memory only and wipe them when done, as the PKCS#11 module does
  // (docs/SCALING.md "The PIN trade-off").
  Result<Bytes> LoginForTicket(Handle session, CK_USER_TYPE user, ByteView pin) {
    return Call(SendLoginForTicket(session, user, pin));
  }
  Status LoginWithTicket(Handle session, CK_USER_TYPE user, ByteView ticket) {
    return Call(SendLoginWithTicket(session, user, ticket));
  }
  // UseStableHandles: from now on this connection's token-object handles
  // are the same on every node for a client holding the same 32-byte `key`
  // (a handle from one node then names the same object on another).
  // Once per connection.
  Status UseStableHandles(ByteView key) { return Call(SendUseStableHandles(key)); }
  Status Logout(Handle session) { return Call(SendLogout(session)); }
  // InitToken creates a token on the free slot (or re-initialises a token
  // slot); a non-empty user_pin also sets the user PIN at once.
  Result<InitTokenResult> InitToken(CK_SLOT_ID slot, ByteView so_pin, std::string_view label,
                                    ByteView user_pin = {}) {
    return Call(SendInitToken(slot, so_pin, label, user_pin));
  }
  Status InitPin(Handle session, ByteView pin) { return Call(SendInitPin(session, pin)); }
  Status SetPin(Handle session, ByteView old_pin, ByteView new_pin) {
    return Call(SendSetPin(session, old_pin, new_pin));
  }
  // GenerateKeyPair: a token pair's halves are stored in one transaction.
  // With `unique_label` the daemon generates only if no key on the token
  // has the templates' CKA_LABEL (checked in that transaction):
  // CKR_ATTRIBUTE_VALUE_INVALID otherwise. Token pairs only.
  Result<KeyPair> GenerateKeyPair(Handle session, const Mechanism& mechanism,
                                  const Template& public_template,
                                  const Template& private_template, bool unique_label = false) {
    return Call(SendGenerateKeyPair(session, mechanism, public_template, private_template,
                                    unique_label));
  }
  Result<Handle> GenerateKey(Handle session, const Mechanism& mechanism,
                             const Template& key_template) {
    return Call(SendGenerateKey(session, mechanism, key_template));
  }
  Result<Handle> CreateObject(Handle session, const Template& object_template) {
    return Call(SendCreateObject(session, object_template));
  }
  Result<Handle> CopyObject(Handle session, Handle object, const Template& changes) {
    return Call(SendCopyObject(session, object, changes));
  }
  Status DestroyObject(Handle session, Handle object) {
    return Call(SendDestroyObject(session, object));
  }
  // CreateObjects creates one token object per template in ONE daemon
  // transaction (all or none; e.g. both halves of an imported key pair) and
  // returns their handles in order. `unique_label`: as for GenerateKeyPair.
  // Daemons before this request answer CKR_FUNCTION_NOT_SUPPORTED.
  Result<std::vector<Handle>> CreateObjects(Handle session, const std::vector<Template>& templates,
                                            bool unique_label = false) {
    return Call(SendCreateObjects(session, templates, unique_label));
  }
  // DestroyObjects destroys every object in ONE daemon transaction; nothing
  // is destroyed when any may not be. Older daemons:
  // CKR_FUNCTION_NOT_SUPPORTED.
  Status DestroyObjects(Handle session, std::span<const Handle> objects) {
    return Call(SendDestroyObjects(session, objects));
  }
  // FindObjects returns every object matching `match` (max_count 0: all)
  // that this connection may see.
  Result<std::vector<Handle>> FindObjects(Handle session, const Template& match,
                                          CK_ULONG max_count = 0) {
    return Call(SendFindObjects(session, match, max_count));
  }
  // GetAttributeValue succeeds when the daemon answered for every type; each
  // AttributeValue carries its own rv (PKCS#11 v2.40 section 5.7).
  Result<std::vector<AttributeValue>> GetAttributeValue(
      Handle session, Handle object, std::span<const CK_ATTRIBUTE_TYPE> types) {
    return Call(SendGetAttributeValue(session, object, types));
  }
  Status SetAttributeValue(Handle session, Handle object, const Template& changes) {
    return Call(SendSetAttributeValue(session, object, changes));
  }
  // Sign returns the PKCS#11-form signature (ECDSA: raw r||s).
  Result<Bytes> Sign(Handle session, Handle key, const Mechanism& mechanism, ByteView data) {
    return Call(SendSign(session, key, mechanism, data));
  }
  // SignBatch signs every input with one key in one round trip; the outer
  // Result fails only when the whole request did, each item has its own.
  Result<std::vector<Result<Bytes>>> SignBatch(Handle session, Handle key,
                                               const Mechanism& mechanism,
                                               std::span<const Bytes> inputs) {
    return Call(SendSignBatch(session, key, mechanism, inputs));
  }
  // Verify: OK, or CKR_SIGNATURE_INVALID / CKR_SIGNATURE_LEN_RANGE.
  Status Verify(Handle session, Handle key, const Mechanism& mechanism, ByteView data,
                ByteView signature) {
    return Call(SendVerify(session, key, mechanism, data, signature));
  }
  Result<Bytes> Digest(Handle session, const Mechanism& mechanism, ByteView data) {
    return Call(SendDigest(session, mechanism, data));
  }
  // Encrypt / Decrypt: single-part, with any cipher mechanism the daemon
  // lists (AES-GCM's ciphertext is data||tag). Decrypt's plaintext is
  // returned in an ordinary vector: wipe it yourself when it is secret.
  Result<Bytes> Encrypt(Handle session, Handle key, const Mechanism& mechanism,
                        ByteView plaintext) {
    return Call(SendEncrypt(session, key, mechanism, plaintext));
  }
  Result<Bytes> Decrypt(Handle session, Handle key, const Mechanism& mechanism,
                        ByteView ciphertext) {
    return Call(SendDecrypt(session, key, mechanism, ciphertext));
  }
  Result<Bytes> WrapKey(Handle session, const Mechanism& mechanism, Handle wrapping_key,
                        Handle key) {
    return Call(SendWrapKey(session, mechanism, wrapping_key, key));
  }
  Result<Handle> UnwrapKey(Handle session, const Mechanism& mechanism, Handle unwrapping_key,
                           ByteView wrapped, const Template& key_template) {
    return Call(SendUnwrapKey(session, mechanism, unwrapping_key, wrapped, key_template));
  }
  // DeriveKey: a new secret key from `base_key` (C_DeriveKey: ECDH with
  // mechanism.ecdh); the template says its type and length.
  Result<Handle> DeriveKey(Handle session, const Mechanism& mechanism, Handle base_key,
                           const Template& key_template) {
    return Call(SendDeriveKey(session, mechanism, base_key, key_template));
  }
  // StreamUpdate / StreamFinal: a multi-part operation the daemon keeps
  // for the session (C_EncryptUpdate ... C_EncryptFinal and their likes,
  // for the mechanisms MultiPartInDaemon accepts). The first part says
  // `start` with the key and mechanism; each call returns the output it
  // releases; StreamFinal the rest, or for kVerify checks `signature`.
  Result<Bytes> StreamUpdate(Handle session, OperationKind kind, bool start, Handle key,
                             const Mechanism& mechanism, ByteView part) {
    return Call(SendStreamUpdate(session, kind, start, key, mechanism, part));
  }
  Result<Bytes> StreamFinal(Handle session, OperationKind kind, ByteView signature = {}) {
    return Call(SendStreamFinal(session, kind, signature));
  }
  // GenerateRandom: up to 64 KiB per call from the daemon's DRBG.
  Result<Bytes> GenerateRandom(Handle session, std::size_t length) {
    return Call(SendGenerateRandom(session, length));
  }
  // SeedRandom: mixes `seed` (at most SIGNET_MAX_SEED_LEN bytes) into the
  // daemon's DRBG as additional input.
  Status SeedRandom(Handle session, ByteView seed) { return Call(SendSeedRandom(session, seed)); }
  Result<ServerStats> GetStats() { return Call(SendGetStats()); }

  // in_flight: requests sent whose replies were not yet waited for.
  std::size_t in_flight() const;

  // address: the one address of ConnectOptions::address this connection
  // went to.
  const std::string& address() const { return address_; }

 private:
  class Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  // ConnectOne opens a connection to the one daemon at `address`.
  static Result<std::unique_ptr<Impl>> ConnectOne(const ConnectOptions& options,
                                                  const std::string& address);

  template <typename T>
  Result<T> Call(Result<Pending<T>> pending) {
    if (!pending.ok()) return std::move(pending).error();
    return Wait(*pending);
  }

  // WaitReply returns the reply with `id`, reading and buffering others.
  Result<std::shared_ptr<const ReplyFrame>> WaitReply(std::uint64_t id);

  std::unique_ptr<Impl> impl_;
  std::string address_;
};

}  // namespace signet::client
