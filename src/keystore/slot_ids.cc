#include "keystore/slot_ids.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <string>

#include "keystore/data_dir.h"

namespace signet::keystore {
namespace {

constexpr std::size_t kMaxNextSlotIdBytes = 32;

Error FileError(const std::filesystem::path& file, std::string_view what) {
  return MakeError(CKR_DEVICE_ERROR,
                   std::string(what) + " " + file.string() + ": " + std::strerror(errno));
}

// WriteAll writes `text` to the open `fd`, then fsyncs it.
bool WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0;
}

}  // namespace

Result<CK_SLOT_ID> ReadNextSlotId(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / std::string(kNextSlotIdName);
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return CK_SLOT_ID{0};
    return FileError(file, "cannot open");
  }
  char buffer[kMaxNextSlotIdBytes];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n < 0) return FileError(file, "cannot read");
  std::string_view text(buffer, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  CK_SLOT_ID next = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), next);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return MakeError(CKR_DEVICE_ERROR, file.string() + " does not hold a slot id");
  }
  return next;
}

Status WriteNextSlotId(const std::filesystem::path& dir, CK_SLOT_ID next) {
  const std::filesystem::path file = dir / std::string(kNextSlotIdName);
  const std::filesystem::path staged = file.string() + ".new";
  int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return FileError(staged, "cannot create");
  bool written = WriteAll(fd, std::to_string(next) + "\n");
  ::close(fd);
  if (!written) return FileError(staged, "cannot write");
  if (::rename(staged.c_str(), file.c_str()) != 0) return FileError(file, "cannot replace");
  SyncDirectory(dir);  // the rename itself durable
  return OkStatus();
}

SlotIdPlan PlanSlotIds(const std::vector<std::optional<CK_SLOT_ID>>& stored,
                       CK_SLOT_ID next_slot_id) {
  SlotIdPlan plan;
  plan.next = next_slot_id;
  for (const auto& id : stored) {
    if (id) plan.next = std::max(plan.next, *id + 1);
  }
  std::set<CK_SLOT_ID> taken;
  plan.ids.resize(stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (stored[i] && taken.insert(*stored[i]).second) {
      plan.ids[i] = *stored[i];
      continue;
    }
    plan.ids[i] = plan.next++;
    taken.insert(plan.ids[i]);
    plan.new_ids.push_back(i);
  }
  return plan;
}

Status CheckTokenLabelFree(std::string_view label, const std::vector<TokenInfo>& tokens) {
  for (const TokenInfo& token : tokens) {
    if (token.label != label) continue;
    std::string where = "serial " + token.serial;
    if (token.slot_id) where = "slot " + std::to_string(*token.slot_id) + ", " + where;
    return MakeError(CKR_ARGUMENTS_BAD, "a token labelled '" + std::string(label) +
                                            "' already exists (" + where +
                                            "); token labels are unique");
  }
  return OkStatus();
}

Result<std::unique_ptr<Token>> CreateTokenOnNewSlot(const std::filesystem::path& dir,
                                                    std::string_view label, ByteView so_pin,
                                                    ByteView user_pin, const TokenOptions& options,
                                                    const std::vector<TokenInfo>& tokens) {
  SIGNET_TRY(CheckTokenLabelFree(label, tokens));
  SIGNET_ASSIGN_OR_RETURN(CK_SLOT_ID id, ReadNextSlotId(dir));
  SIGNET_ASSIGN_OR_RETURN(auto token, CreateInDirectory(dir, label, so_pin, user_pin, options));
  for (const TokenInfo& other : tokens) {
    if (other.slot_id) id = std::max(id, *other.slot_id + 1);
  }
  SIGNET_TRY(WriteNextSlotId(dir, id + 1));
  SIGNET_TRY(token->SetSlotId(id));
  return token;
}

}  // namespace signet::keystore
