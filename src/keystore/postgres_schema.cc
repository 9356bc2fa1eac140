#include "keystore/postgres_schema.h"

#include <iterator>
#include <string>

namespace signet::keystore {
namespace {

// kMigrationLock: the advisory lock key MigratePostgresSchema holds ("SGNT"
// in ASCII, the token files' application_id).
constexpr std::int64_t kMigrationLock = 0x53474e54;

// kMigrations[i] takes the schema from version i to i + 1. Append only.
constexpr const char* kMigrations[] = {
    // 1: tokens, PIN records, objects, the pool, the next slot id.
    R"sql(
      CREATE TABLE signet_tokens (
        token_id bigserial PRIMARY KEY,
        serial text NOT NULL UNIQUE,
        label text NOT NULL UNIQUE,
        slot_id bigint UNIQUE,
        max_pin_failures integer NOT NULL CHECK (max_pin_failures > 0),
        -- generation: bumped by every change to the token's objects, in the
        -- changing transaction; nodes compare it to their cached keys'.
        generation bigint NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now()
      );
      -- user_type: 0 = SO, 1 = user. The KEK only as AES-KWP under
      -- scrypt(PIN, salt), the cost kept per record (keystore/pin_records.h).
      CREATE TABLE signet_pin_records (
        token_id bigint NOT NULL REFERENCES signet_tokens ON DELETE CASCADE,
        user_type smallint NOT NULL CHECK (user_type IN (0, 1)),
        kdf_n bigint NOT NULL,
        kdf_r bigint NOT NULL,
        kdf_p bigint NOT NULL,
        salt bytea NOT NULL,
        wrapped_kek bytea NOT NULL,
        failures integer NOT NULL DEFAULT 0,
        PRIMARY KEY (token_id, user_type)
      );
      -- A handle is never reused (bigserial). class/key_type/label/id mirror
      -- attributes for searching; wrapped_value is AES-KWP under the KEK
      -- (keystore/object_wrap.h).
      CREATE TABLE signet_objects (
        handle bigserial PRIMARY KEY,
        token_id bigint NOT NULL REFERENCES signet_tokens ON DELETE CASCADE,
        class bigint,
        key_type bigint,
        label bytea,
        id bytea,
        attributes bytea NOT NULL,
        wrapped_value bytea
      );
      CREATE INDEX signet_objects_by_class ON signet_objects (token_id, class, key_type);
      CREATE INDEX signet_objects_by_label ON signet_objects (token_id, label);
      CREATE INDEX signet_objects_by_id ON signet_objects (token_id, id);
      CREATE TABLE signet_pool_seal_keys (
        token_id bigint PRIMARY KEY REFERENCES signet_tokens ON DELETE CASCADE,
        public_key bytea NOT NULL,
        wrapped_private bytea NOT NULL
      );
      CREATE TABLE signet_key_pool (
        entry_id bigserial PRIMARY KEY,
        token_id bigint NOT NULL REFERENCES signet_tokens ON DELETE CASCADE,
        pool text NOT NULL,
        public_attributes bytea NOT NULL,
        wrapped_value bytea NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX signet_key_pool_by_pool ON signet_key_pool (token_id, pool, entry_id);
      CREATE TABLE signet_next_slot_id (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        next bigint NOT NULL
      );
      INSERT INTO signet_next_slot_id (next) VALUES (0);
    )sql",
    // 2: kek_epoch, bumped by every re-initialisation (a new KEK): a login
    // a node made before it must not wrap a key or a PIN under the old KEK.
    R"sql(
      ALTER TABLE signet_tokens ADD COLUMN kek_epoch bigint NOT NULL DEFAULT 0;
    )sql",
};

constexpr int kVersionCount = static_cast<int>(std::size(kMigrations));

}  // namespace

int CurrentPostgresSchemaVersion() { return kVersionCount; }

Status MigratePostgresSchema(PgConnection& db) {
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db.Begin());
  SIGNET_TRY(db.Run("SELECT pg_advisory_xact_lock($1)", {kMigrationLock}));
  SIGNET_TRY(db.Run(
      "CREATE TABLE IF NOT EXISTS signet_schema ("
      " only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), version integer NOT NULL)"));
  SIGNET_ASSIGN_OR_RETURN(PgResult row, db.Query("SELECT version FROM signet_schema"));
  const int version = row.rows() == 0 ? 0 : static_cast<int>(row.Int64(0, 0));
  if (version > kVersionCount) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED,
                     db.Describe() + ": keystore schema version " + std::to_string(version) +
                         " is newer than this build's " + std::to_string(kVersionCount));
  }
  if (version == kVersionCount) return txn.Commit();
  for (int step = version; step < kVersionCount; ++step) SIGNET_TRY(db.Exec(kMigrations[step]));
  SIGNET_TRY(
      db.Run("INSERT INTO signet_schema (version) VALUES ($1) "
             "ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version",
             {std::int64_t{kVersionCount}}));
  return txn.Commit();
}

}  // namespace signet::keystore
