#include "keystore/schema.h"

#include <iterator>
#include <string>

namespace signet::keystore {
namespace {

// kMigrations[i] takes the schema from user_version i to i + 1. Append new
// steps; never edit a released one.
constexpr const char* kMigrations[] = {
    // 1: token metadata, one PIN record per user type, objects.
    R"sql(
      CREATE TABLE token_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        label TEXT NOT NULL,
        serial TEXT NOT NULL,
        max_pin_failures INTEGER NOT NULL CHECK (max_pin_failures > 0),
        created_unix INTEGER NOT NULL
      );
      -- user_type: 0 = SO, 1 = user (CKU_SO / CKU_USER). The KEK is kept only
      -- as AES-KWP under scrypt(PIN, salt) with the cost stored per record.
      CREATE TABLE pin_records (
        user_type INTEGER PRIMARY KEY CHECK (user_type IN (0, 1)),
        kdf TEXT NOT NULL CHECK (kdf = 'scrypt'),
        kdf_n INTEGER NOT NULL,
        kdf_r INTEGER NOT NULL,
        kdf_p INTEGER NOT NULL,
        salt BLOB NOT NULL,
        wrapped_kek BLOB NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0
      );
      -- AUTOINCREMENT: a handle is never reused, even after the highest
      -- object is destroyed. class/key_type/label/id mirror attributes for
      -- searching; wrapped_value is AES-KWP under the KEK (see object_wrap.h).
      CREATE TABLE objects (
        handle INTEGER PRIMARY KEY AUTOINCREMENT,
        class INTEGER,
        key_type INTEGER,
        label BLOB,
        id BLOB,
        attributes BLOB NOT NULL,
        wrapped_value BLOB
      );
      CREATE INDEX objects_by_class ON objects (class, key_type);
      CREATE INDEX objects_by_label ON objects (label);
      CREATE INDEX objects_by_id ON objects (id);
    )sql",
    // 2: the key pool (core/key_pool.h). Pre-generated key pairs that no
    // client sees until TakePoolKey moves one into `objects`. pool names the
    // key type ("rsa:2048"); public_attributes holds what the public key
    // determines; wrapped_value is AES-KWP under the KEK bound to the entry
    // id with its own prefix (see sqlite_token_pool.cc), so a pool blob never
    // unwraps as an object's.
    R"sql(
      CREATE TABLE key_pool (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        pool TEXT NOT NULL,
        public_attributes BLOB NOT NULL,
        wrapped_value BLOB NOT NULL,
        created_unix INTEGER NOT NULL
      );
      CREATE INDEX key_pool_by_pool ON key_pool (pool, id);
    )sql",
    // 3: the token's slot id, kept across restarts (keystore/slot_ids.h).
    // NULL on a token made before this step: the daemon assigns one at its
    // next start and stores it.
    R"sql(
      ALTER TABLE token_meta ADD COLUMN slot_id INTEGER CHECK (slot_id IS NULL OR slot_id >= 0);
    )sql",
    // 4: the pool fills without a login (docs/DESIGN.md "The key pool"). A
    // pool entry is now sealed to the token's pool key (crypto/sealed_box.h)
    // instead of wrapped under the KEK: public_key is that X25519 key's
    // SubjectPublicKeyInfo, wrapped_private its PKCS#8 as AES-KWP under the
    // KEK (see sqlite_token_pool.cc). Entries in the KEK-wrapped form of
    // step 2 are dropped: they are keys no client has seen, and the pool
    // refills.
    R"sql(
      CREATE TABLE pool_seal_key (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        public_key BLOB NOT NULL,
        wrapped_private BLOB NOT NULL
      );
      DELETE FROM key_pool;
    )sql",
};

constexpr int kVersionCount = static_cast<int>(std::size(kMigrations));

}  // namespace

int CurrentSchemaVersion() { return kVersionCount; }

Status CheckIsToken(Database& db) {
  auto app_id = db.PragmaInt("application_id");
  if (!app_id.ok()) {
    // SQLITE_NOTADB (mapped to CKR_TOKEN_NOT_RECOGNIZED): not SQLite at all;
    // anything else (SQLITE_CORRUPT, a short read): a damaged database.
    bool not_sqlite = app_id.error().code == CKR_TOKEN_NOT_RECOGNIZED;
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED,
                     (not_sqlite ? "not a signet token: " : "damaged: ") + app_id.error().message);
  }
  if (*app_id != kApplicationId) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "not a signet token (foreign SQLite file)");
  }
  SIGNET_ASSIGN_OR_RETURN(std::int64_t version, db.PragmaInt("user_version"));
  if (version < 1 || version > kVersionCount) {
    std::string why = version > kVersionCount ? " is newer than this program" : " is not supported";
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "token schema version " + std::to_string(version) +
                                                   why + " (it knows 1.." +
                                                   std::to_string(kVersionCount) + ")");
  }
  return OkStatus();
}

Status CheckIntegrity(Database& db) {
  // quick_check reads every page and index entry (O(file size)) but skips
  // the costly index-content comparison of integrity_check.
  auto damaged = [](const std::string& why) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: " + why);
  };
  auto stmt = db.Prepare("PRAGMA quick_check(3)");
  if (!stmt.ok()) return damaged(stmt.error().message);
  std::string problems;
  for (;;) {
    auto row = stmt->Step();
    if (!row.ok()) return damaged(row.error().message);
    if (!*row) break;
    std::string line = stmt->ColumnText(0);
    if (line == "ok") return OkStatus();
    problems += problems.empty() ? line : "; " + line;
  }
  return damaged("database disk image is malformed (" + problems + ")");
}

Status MigrateSchema(Database& db) {
  SIGNET_ASSIGN_OR_RETURN(std::int64_t version, db.PragmaInt("user_version"));
  if (version > kVersionCount) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "token schema is newer than this build");
  }
  if (version == 0) {
    SIGNET_TRY(db.Exec("PRAGMA application_id=" + std::to_string(kApplicationId)));
  }
  for (auto v = version; v < kVersionCount; ++v) {
    SIGNET_TRY(db.Exec(kMigrations[v]));
  }
  if (version != kVersionCount) {
    SIGNET_TRY(db.Exec("PRAGMA user_version=" + std::to_string(kVersionCount)));
  }
  return OkStatus();
}

}  // namespace signet::keystore
