// Keystore: the set of tokens one signetd serves, wherever they are kept.
// core/ reaches its tokens only through this interface: it lists and opens
// them when the daemon starts, creates one on C_InitToken, and keeps the
// next slot id to hand out (keystore/slot_ids.h).
//
// DirectoryKeystore, the default, keeps each token in its own SQLite file
// in a data directory (keystore/data_dir.h), which one daemon at a time
// holds: opening it takes the directory's lock, and the Keystore keeps it
// until it is destroyed. The PostgreSQL keystore (issue 18;
// docs/SCALING.md) keeps every token in one database that several daemons
// share.
//
// Thread contract: the daemon calls these from one thread at a time (start
// up, and C_InitToken and the look for new tokens under the Hsm's init
// lock); the Tokens they return follow Token's own contract.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keystore/token.h"
#include "keystore/token_records.h"

namespace signet::keystore {

// KeystoreHealth: what a shared keystore tells the metrics (docs/DESIGN.md
// "Metrics"); all zero for a data directory.
struct KeystoreHealth {
  bool shared = false;
  // listening: the node's LISTEN connection is up and has read every
  // token's generation (postgres_listener.h); while it is not, every use
  // of a key asks the database.
  bool listening = false;
  // statements: SQL statements this process has sent to the database.
  std::uint64_t statements = 0;
};

class Keystore {
 public:
  virtual ~Keystore() = default;

  // Describe names the keystore for messages ("data directory /var/lib/x").
  virtual std::string Describe() const = 0;

  // FileOf: the file that holds the token at `location` (a data
  // directory's tokens), which the daemon's readiness check looks at; empty
  // when the keystore keeps no token in a file of its own.
  virtual std::filesystem::path FileOf(const std::string& location) const = 0;

  // Shared: whether other daemons may add tokens while this one runs (the
  // PostgreSQL keystore); the daemon then looks for them when a client
  // lists the slots or names a slot it does not serve (Hsm::ServeNewTokens).
  virtual bool Shared() const = 0;

  // Health: the keystore's connection, for the metrics. Unlike the rest,
  // any thread may call it at any time.
  virtual KeystoreHealth Health() const = 0;

  // ListTokens returns every token's location (for a directory, its file's
  // path) in a stable order. The keystore's errors (CKR_DEVICE_ERROR).
  virtual Result<std::vector<std::string>> ListTokens() const = 0;

  // OpenToken opens the token at `location` (one ListTokens gave); errors
  // as Token::Open, naming the location.
  virtual Result<std::unique_ptr<Token>> OpenToken(const std::string& location,
                                                   const TokenOptions& options) = 0;

  // CreateToken makes a new token (Token::Create's rules and errors) whose
  // label no token of `others` has (CheckTokenLabelFree), stored on the
  // next slot id: one past every id of `others` and past ReadNextSlotId,
  // which it advances first. Returns its location and the token.
  virtual Result<std::pair<std::string, std::unique_ptr<Token>>> CreateToken(
      std::string_view label, ByteView so_pin, ByteView user_pin, const TokenOptions& options,
      const std::vector<TokenInfo>& others) = 0;

  // ReadTokenRecords: the token at `location` (one ListTokens gave) as
  // stored, read in one snapshot, without opening it as a Token: nothing is
  // written, not even a schema migration (token_records.h). CKR_TOKEN_NOT_
  // RECOGNIZED when it is not a readable token; the keystore's errors.
  virtual Result<TokenRecords> ReadTokenRecords(const std::string& location) const = 0;

  // CreateTokenFromRecords stores `records` as a new token with their label,
  // serial, PIN records (failure counts as they are) and objects, each
  // object's wrapped value replaced by what `rewrap` makes of it for its new
  // handle, and `records.pool_key`; the slot id is kept unless another
  // token has it (then a new one, as CreateToken). All or nothing: one
  // transaction, or a file removed again. CKR_ARGUMENTS_BAD when a token of
  // the keystore has the label or the serial; `rewrap`'s error as is.
  // Returns the new token's location.
  virtual Result<std::string> CreateTokenFromRecords(const TokenRecords& records,
                                                     const RewrapSecret& rewrap) = 0;

  // ReadNextSlotId / WriteNextSlotId: the next slot id to hand out (0 when
  // none was ever stored). CKR_DEVICE_ERROR when it cannot be read or kept.
  virtual Result<CK_SLOT_ID> ReadNextSlotId() const = 0;
  virtual Status WriteNextSlotId(CK_SLOT_ID next) = 0;
};

// OpenDirectoryKeystore makes `dir` (mode 0700) when missing and takes its
// lock for `lock_holder` (LockDataDir: CKR_FUNCTION_FAILED naming the
// daemon that holds it). CKR_DEVICE_ERROR when `dir` is not a usable
// directory.
Result<std::unique_ptr<Keystore>> OpenDirectoryKeystore(const std::filesystem::path& dir,
                                                        std::string_view lock_holder);

// OpenPostgresKeystore connects to the PostgreSQL database at `uri` (a
// libpq URI: postgresql://user@host:port/db?sslmode=verify-full) and brings
// its schema up to date (postgres_schema.h); several nodes may do so at
// once. Token locations are serials. No lock is taken: the database is
// meant to be shared. CKR_DEVICE_ERROR when it cannot be reached;
// CKR_TOKEN_NOT_RECOGNIZED when its schema is newer than this build.
Result<std::unique_ptr<Keystore>> OpenPostgresKeystore(const std::string& uri);

}  // namespace signet::keystore
