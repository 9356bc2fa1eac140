// The PostgreSQL keystore's schema (issue 18; docs/SCALING.md): one
// database holds every token of a group of signetd nodes, each row tagged
// with its token. The tables mirror a token file's (keystore/schema.h): the
// token's identity (serial, label and slot id UNIQUE across the group, so
// two nodes can never both take one), PIN records, objects with their
// wrapped values, the pool's seal keys and entries, and the next slot id.
// Nothing in it is a plaintext key.
//
// Migrations are an append-only list, as for SQLite; the applied count is
// kept in `signet_schema`. Several nodes may start at once: MigrateSchema
// holds a transaction-scoped advisory lock, so exactly one applies each
// step and the others find it done.
#pragma once

#include "keystore/postgres_db.h"

namespace signet::keystore {

// CurrentPostgresSchemaVersion: the number of migration steps this build
// knows.
int CurrentPostgresSchemaVersion();

// MigratePostgresSchema creates the schema or brings it up to date, in one
// transaction. CKR_TOKEN_NOT_RECOGNIZED when the database holds a newer
// schema than this build knows (it is left untouched); the database's
// errors otherwise.
Status MigratePostgresSchema(PgConnection& db);

}  // namespace signet::keystore
