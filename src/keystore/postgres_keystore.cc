// PostgresKeystore (keystore.h): the tokens of a PostgreSQL database that
// several signetd nodes share (issue 18; docs/SCALING.md). A token's
// location is its serial; each token gets its own connection, and all of
// them share the node's one listening connection (postgres_listener.h),
// which the keystore owns and stops when it goes.
#include <algorithm>

#include "keystore/keystore.h"
#include "keystore/postgres_schema.h"
#include "keystore/postgres_token.h"
#include "keystore/postgres_token_records.h"
#include "keystore/slot_ids.h"

namespace signet::keystore {
namespace {

class PostgresKeystore final : public Keystore {
 public:
  PostgresKeystore(std::string uri, std::unique_ptr<PgConnection> db)
      : uri_(std::move(uri)),
        db_(std::move(db)),
        listener_(std::make_shared<PostgresListener>(uri_)) {}

  std::string Describe() const override { return "PostgreSQL keystore, " + db_->Describe(); }
  std::filesystem::path FileOf(const std::string&) const override { return {}; }
  bool Shared() const override { return true; }
  KeystoreHealth Health() const override {
    return {.shared = true, .listening = listener_->listening(), .statements = PgStatementsSent()};
  }

  Result<std::vector<std::string>> ListTokens() const override {
    SIGNET_ASSIGN_OR_RETURN(PgResult rows,
                            db_->Query("SELECT serial FROM signet_tokens ORDER BY token_id"));
    std::vector<std::string> serials;
    for (int i = 0; i < rows.rows(); ++i) serials.push_back(rows.Text(i, 0));
    return serials;
  }

  Result<std::unique_ptr<Token>> OpenToken(const std::string& location,
                                           const TokenOptions& options) override {
    SIGNET_ASSIGN_OR_RETURN(auto token, PostgresToken::Open(uri_, location, options, listener_));
    return std::unique_ptr<Token>(std::move(token));
  }

  Result<std::pair<std::string, std::unique_ptr<Token>>> CreateToken(
      std::string_view label, ByteView so_pin, ByteView user_pin, const TokenOptions& options,
      const std::vector<TokenInfo>& others) override {
    // The database's UNIQUE label decides between nodes; this check only
    // gives the usual message for the tokens this node serves.
    SIGNET_TRY(CheckTokenLabelFree(label, others));
    CK_SLOT_ID after_others = 0;
    for (const TokenInfo& other : others) {
      if (other.slot_id) after_others = std::max(after_others, *other.slot_id + 1);
    }
    SIGNET_ASSIGN_OR_RETURN(
        auto token, PostgresToken::Create(uri_, label, so_pin, user_pin, options, listener_));
    // The id is taken from the shared counter in one statement, so two
    // nodes creating tokens at once never get the same one.
    SIGNET_ASSIGN_OR_RETURN(
        PgResult row,
        db_->Query(
            "UPDATE signet_next_slot_id SET next = GREATEST(next, $1) + 1 RETURNING next - 1",
            {static_cast<std::int64_t>(after_others)}));
    SIGNET_TRY(token->SetSlotId(static_cast<CK_SLOT_ID>(row.Int64(0, 0))));
    std::string serial = token->Info().serial;
    return std::make_pair(std::move(serial), std::unique_ptr<Token>(std::move(token)));
  }

  Result<TokenRecords> ReadTokenRecords(const std::string& location) const override {
    return ReadPgTokenRecords(*db_, location);
  }

  Result<std::string> CreateTokenFromRecords(const TokenRecords& records,
                                             const RewrapSecret& rewrap) override {
    return InsertPgTokenRecords(*db_, records, rewrap);
  }

  Result<CK_SLOT_ID> ReadNextSlotId() const override {
    SIGNET_ASSIGN_OR_RETURN(PgResult row, db_->Query("SELECT next FROM signet_next_slot_id"));
    return static_cast<CK_SLOT_ID>(row.rows() == 0 ? 0 : row.Int64(0, 0));
  }

  Status WriteNextSlotId(CK_SLOT_ID next) override {
    // Never backwards: another node may have handed out more meanwhile.
    return db_->Run("UPDATE signet_next_slot_id SET next = GREATEST(next, $1)",
                    {static_cast<std::int64_t>(next)});
  }

 private:
  const std::string uri_;
  std::unique_ptr<PgConnection> db_;  // the keystore's own (listing, slot ids)
  // listener_: shared with every token opened here, which may outlive the
  // keystore; the last of them stops its thread.
  const std::shared_ptr<PostgresListener> listener_;
};

}  // namespace

Result<std::unique_ptr<Keystore>> OpenPostgresKeystore(const std::string& uri) {
  SIGNET_ASSIGN_OR_RETURN(auto db, PgConnection::Connect(uri));
  SIGNET_TRY(MigratePostgresSchema(*db));
  return std::unique_ptr<Keystore>(new PostgresKeystore(uri, std::move(db)));
}

}  // namespace signet::keystore
