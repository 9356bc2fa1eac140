// DirectoryKeystore (keystore.h): a data directory of SQLite token files.
#include <system_error>

#include "base/printable.h"
#include "keystore/backup.h"
#include "keystore/data_dir.h"
#include "keystore/keystore.h"
#include "keystore/slot_ids.h"
#include "keystore/sqlite_token_records.h"

namespace signet::keystore {
namespace {

class DirectoryKeystore final : public Keystore {
 public:
  DirectoryKeystore(std::filesystem::path dir, std::unique_ptr<DataDirLock> lock)
      : dir_(std::move(dir)), lock_(std::move(lock)) {}

  std::string Describe() const override { return "data directory " + dir_.string(); }
  std::filesystem::path FileOf(const std::string& location) const override { return location; }
  bool Shared() const override { return false; }  // the directory's lock keeps other daemons out
  KeystoreHealth Health() const override { return {}; }

  Result<std::vector<std::string>> ListTokens() const override {
    SIGNET_ASSIGN_OR_RETURN(auto files, ListTokenFiles(dir_));
    std::vector<std::string> out;
    out.reserve(files.size());
    for (const auto& file : files) out.push_back(file.string());
    return out;
  }

  Result<std::unique_ptr<Token>> OpenToken(const std::string& location,
                                           const TokenOptions& options) override {
    return Token::Open(location, options);
  }

  Result<std::pair<std::string, std::unique_ptr<Token>>> CreateToken(
      std::string_view label, ByteView so_pin, ByteView user_pin, const TokenOptions& options,
      const std::vector<TokenInfo>& others) override {
    SIGNET_ASSIGN_OR_RETURN(auto token,
                            CreateTokenOnNewSlot(dir_, label, so_pin, user_pin, options, others));
    std::string location = TokenFilePath(dir_, token->Info().serial).string();
    return std::make_pair(std::move(location), std::move(token));
  }

  Result<TokenRecords> ReadTokenRecords(const std::string& location) const override {
    return ReadTokenFileRecords(location);
  }

  Result<std::string> CreateTokenFromRecords(const TokenRecords& records,
                                             const RewrapSecret& rewrap) override {
    // The serial names the file: one that is not a serial could name a
    // path outside the directory.
    if (!IsTokenSerial(records.serial)) {
      return MakeError(CKR_ARGUMENTS_BAD,
                       "'" + PrintableText(records.serial) + "' is not a token serial");
    }
    SIGNET_ASSIGN_OR_RETURN(std::vector<TokenInfo> others, PeekDirectoryTokens(dir_));
    SIGNET_TRY(CheckTokenLabelFree(records.label, others));
    const std::filesystem::path file = TokenFilePath(dir_, records.serial);
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(file, ec))) {
      return MakeError(CKR_ARGUMENTS_BAD,
                       "token " + records.serial + " is already in " + dir_.string());
    }
    // A slot id another token has goes: the daemon gives the token a new
    // one when it opens it (PlanSlotIds).
    TokenRecords placed = records;
    for (const TokenInfo& other : others) {
      if (placed.slot_id && other.slot_id == placed.slot_id) placed.slot_id.reset();
    }
    SIGNET_TRY(CreateTokenFileFromRecords(file, placed, rewrap));
    return file.string();
  }

  Result<CK_SLOT_ID> ReadNextSlotId() const override { return keystore::ReadNextSlotId(dir_); }
  Status WriteNextSlotId(CK_SLOT_ID next) override { return keystore::WriteNextSlotId(dir_, next); }

 private:
  const std::filesystem::path dir_;
  std::unique_ptr<DataDirLock> lock_;  // held while the keystore lives
};

}  // namespace

Result<std::unique_ptr<Keystore>> OpenDirectoryKeystore(const std::filesystem::path& dir,
                                                        std::string_view lock_holder) {
  std::error_code ec;
  if (std::filesystem::create_directories(dir, ec)) {
    // Only the daemon's user may list tokens or reach the socket.
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    return MakeError(CKR_DEVICE_ERROR, "data dir " + dir.string() + " is not usable");
  }
  // One daemon per data dir; `signet admin` refuses to touch it meanwhile.
  SIGNET_ASSIGN_OR_RETURN(auto lock, LockDataDir(dir, lock_holder));
  return std::unique_ptr<Keystore>(new DirectoryKeystore(dir, std::move(lock)));
}

}  // namespace signet::keystore
