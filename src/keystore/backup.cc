#include "keystore/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "keystore/data_dir.h"
#include "keystore/slot_ids.h"
#include "keystore/sqlite_db.h"

namespace signet::keystore {
namespace {

// Counts: the rows that make a token's content, read by one connection.
struct Counts {
  std::int64_t objects = 0;
  std::int64_t pool_entries = 0;
};

Result<std::int64_t> CountRows(Database& db, const char* sql) {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_DEVICE_ERROR, "no count");
  return stmt.ColumnInt64(0);
}

Result<Counts> CountContent(Database& db) {
  Counts counts;
  SIGNET_ASSIGN_OR_RETURN(counts.objects, CountRows(db, "SELECT COUNT(*) FROM objects"));
  SIGNET_ASSIGN_OR_RETURN(counts.pool_entries, CountRows(db, "SELECT COUNT(*) FROM key_pool"));
  return counts;
}

// CopySnapshot copies the database at `from` into the new file `to` from
// one read transaction, and returns what the snapshot held.
Result<Counts> CopySnapshot(const std::filesystem::path& from, const std::filesystem::path& to) {
  SIGNET_ASSIGN_OR_RETURN(auto source, Database::Open(from));
  // A read transaction: the counts and every page copied below come from
  // the same snapshot, whatever the daemon commits meanwhile (WAL mode).
  SIGNET_TRY(source->Exec("BEGIN"));
  auto counts = CountContent(*source);
  if (!counts.ok()) {
    (void)source->Exec("ROLLBACK");
    return MakeError(CKR_FUNCTION_FAILED,
                     from.string() + " is not a signet token: " + counts.error().message);
  }
  SIGNET_TRY(CreateEmptyFile(to));
  sqlite3* target = nullptr;
  // NOFOLLOW: `to` is the file CreateEmptyFile just made, not a symlink put
  // there since.
  int rc =
      sqlite3_open_v2(to.c_str(), &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nullptr);
  std::string why;
  if (rc == SQLITE_OK) {
    sqlite3_backup* backup = sqlite3_backup_init(target, "main", source->get0(), "main");
    if (backup == nullptr) {
      rc = sqlite3_errcode(target);
    } else {
      rc = sqlite3_backup_step(backup, -1);  // every page, in one step
      int finished = sqlite3_backup_finish(backup);
      rc = rc == SQLITE_DONE ? finished : rc;
    }
  }
  if (rc != SQLITE_OK) why = target ? sqlite3_errmsg(target) : sqlite3_errstr(rc);
  sqlite3_close(target);
  (void)source->Exec("COMMIT");  // ends the read transaction
  if (rc != SQLITE_OK) {
    RemoveTokenFiles(to);
    return MakeError(CKR_DEVICE_ERROR, "cannot copy " + from.string() + ": " + why);
  }
  return *counts;
}

// CheckCopy opens `copy` as a token (application id, schema, integrity
// check, metadata: Token::Open) and compares its content with `expected`.
Result<TokenCopyReport> CheckCopy(const std::filesystem::path& copy, const Counts& expected) {
  TokenCopyReport report;
  {
    auto token = Token::Open(copy, TokenOptions{});
    if (!token.ok()) {
      return MakeError(CKR_FUNCTION_FAILED, "the copy does not open: " + token.error().message);
    }
    TokenInfo info = (*token)->Info();
    report.serial = info.serial;
    report.label = info.label;
  }
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::Open(copy));
  SIGNET_ASSIGN_OR_RETURN(Statement check, db->Prepare("PRAGMA integrity_check"));
  SIGNET_ASSIGN_OR_RETURN(bool row, check.Step());
  if (!row || check.ColumnText(0) != "ok") {
    return MakeError(CKR_FUNCTION_FAILED, "the copy fails SQLite's integrity check");
  }
  check = Statement();
  SIGNET_ASSIGN_OR_RETURN(Counts counts, CountContent(*db));
  // Objects only: opening a copy of an older token migrates it, and the
  // schema step that sealed the pool drops its old pool entries.
  if (counts.objects != expected.objects) {
    return MakeError(CKR_FUNCTION_FAILED, "the copy holds " + std::to_string(counts.objects) +
                                              " objects, the token " +
                                              std::to_string(expected.objects));
  }
  report.objects = counts.objects;
  report.pool_entries = counts.pool_entries;
  db.reset();
  std::error_code ec;
  report.bytes = std::filesystem::file_size(copy, ec);
  return report;
}

// CheckedCopy: CopySnapshot then CheckCopy; the copy is removed on failure.
Result<TokenCopyReport> CheckedCopy(const std::filesystem::path& from,
                                    const std::filesystem::path& to) {
  SIGNET_ASSIGN_OR_RETURN(Counts counts, CopySnapshot(from, to));
  auto report = CheckCopy(to, counts);
  if (!report.ok()) RemoveTokenFiles(to);
  return report;
}

// PrepareRestoredCopy makes the staged copy of a backup fit its new place:
// its pool entries go (the original may still hand them out, and a pooled
// key must reach one client only; the pool refills), and its slot id goes
// when another token has it (the daemon then gives it a new one, and the
// other keeps its own).
Status PrepareRestoredCopy(const std::filesystem::path& staged,
                           const std::vector<TokenInfo>& others, TokenCopyReport* report) {
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::Open(staged));
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db->Begin());
  SIGNET_TRY(db->Exec("DELETE FROM key_pool"));
  SIGNET_ASSIGN_OR_RETURN(Statement select, db->Prepare("SELECT slot_id FROM token_meta"));
  SIGNET_ASSIGN_OR_RETURN(bool row, select.Step());
  std::optional<CK_SLOT_ID> slot_id;
  if (row && !select.ColumnIsNull(0)) slot_id = static_cast<CK_SLOT_ID>(select.ColumnInt64(0));
  select = Statement();
  for (const TokenInfo& other : others) {
    if (slot_id && other.slot_id == slot_id) {
      SIGNET_TRY(db->Exec("UPDATE token_meta SET slot_id = NULL"));
      break;
    }
  }
  SIGNET_TRY(txn.Commit());
  report->pool_entries = 0;
  return OkStatus();
}

}  // namespace

Result<TokenInfo> PeekTokenInfo(const std::filesystem::path& token_file) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(token_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  TokenInfo info;
  sqlite3_stmt* stmt = nullptr;
  if (rc == SQLITE_OK) {
    rc =
        sqlite3_prepare_v2(db, "SELECT label, serial, slot_id FROM token_meta", -1, &stmt, nullptr);
    if (rc != SQLITE_OK) {  // a token from before stored slot ids
      rc = sqlite3_prepare_v2(db, "SELECT label, serial, NULL FROM token_meta", -1, &stmt, nullptr);
    }
  }
  bool found = rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW;
  if (found) {
    info.label = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    info.serial = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    if (sqlite3_column_type(stmt, 2) != SQLITE_NULL) {
      info.slot_id = static_cast<CK_SLOT_ID>(sqlite3_column_int64(stmt, 2));
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  if (!found) return MakeError(CKR_TOKEN_NOT_RECOGNIZED, token_file.string() + " is not a token");
  return info;
}

Result<std::vector<TokenInfo>> PeekDirectoryTokens(const std::filesystem::path& dir) {
  SIGNET_ASSIGN_OR_RETURN(auto files, ListTokenFiles(dir));
  std::vector<TokenInfo> tokens;
  for (const auto& file : files) {
    auto info = PeekTokenInfo(file);
    if (info.ok()) tokens.push_back(std::move(*info));
  }
  return tokens;
}

Result<TokenCopyReport> BackupToken(const std::filesystem::path& token_file,
                                    const std::filesystem::path& out) {
  return CheckedCopy(token_file, out);
}

Result<TokenCopyReport> RestoreToken(const std::filesystem::path& backup,
                                     const std::filesystem::path& dir, bool replace,
                                     const std::vector<TokenInfo>& others) {
  SIGNET_TRY(EnsureDataDirectory(dir));
  // Checked in the data directory (same file system: the rename is atomic).
  const std::filesystem::path staged = dir / ".restore.token.tmp";
  RemoveTokenFiles(staged);  // an earlier restore cut short
  SIGNET_ASSIGN_OR_RETURN(TokenCopyReport report, CheckedCopy(backup, staged));
  std::vector<TokenInfo> label_owners;
  for (const TokenInfo& other : others) {
    if (other.serial != report.serial) label_owners.push_back(other);
  }
  // The serial names the file: one that is not a serial could name a path
  // outside `dir`.
  if (!IsTokenSerial(report.serial)) {
    RemoveTokenFiles(staged);
    return MakeError(CKR_ARGUMENTS_BAD, "the backup's serial is not a token serial");
  }
  const std::filesystem::path target = TokenFilePath(dir, report.serial);
  Status allowed = CheckTokenLabelFree(report.label, label_owners);
  if (allowed.ok()) allowed = PrepareRestoredCopy(staged, label_owners, &report);
  std::error_code ec;
  if (allowed.ok() && !replace && std::filesystem::exists(target, ec)) {
    allowed = MakeError(CKR_ARGUMENTS_BAD, "token " + report.serial + " is already in " +
                                               dir.string() + "; give --replace to overwrite it");
  }
  if (!allowed.ok()) {
    RemoveTokenFiles(staged);
    return std::move(allowed).error();
  }
  // The old token's WAL must not be applied to the restored file.
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(target.string() + suffix, ec);
  if (::rename(staged.c_str(), target.c_str()) != 0) {
    RemoveTokenFiles(staged);
    return MakeError(CKR_DEVICE_ERROR,
                     "cannot install " + target.string() + ": " + std::strerror(errno));
  }
  SyncDirectory(dir);  // the rename itself durable
  return report;
}

}  // namespace signet::keystore
