// Slot ids that stay: a token keeps the slot id it was created on across
// restarts, so an application configured with a slot id, or a PKCS#11 URI
// read from C_GetSlotList, finds the same token tomorrow. Each token stores
// its id (token_meta.slot_id, SqliteToken::SetSlotId), and the data
// directory remembers the next id to hand out (DIR/next-slot-id), so a new
// token never gets the id of a token removed before it. Token labels are
// unique within a data directory: the CLI and PKCS#11 URIs select tokens by
// label. Functions touch only the file system and the tokens given; the
// caller holds the data directory's lock (LockDataDir).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "keystore/token.h"

namespace signet::keystore {

// kNextSlotIdName: the file in a data directory that holds the next slot id.
inline constexpr std::string_view kNextSlotIdName = "next-slot-id";

// ReadNextSlotId: the next slot id to hand out (0 when the file is absent).
// CKR_DEVICE_ERROR when it cannot be read or does not hold a number.
Result<CK_SLOT_ID> ReadNextSlotId(const std::filesystem::path& dir);

// WriteNextSlotId replaces the file atomically (a new file, fsync, rename).
Status WriteNextSlotId(const std::filesystem::path& dir, CK_SLOT_ID next);

// SlotIdPlan: the slot id of each token opened from a data directory.
struct SlotIdPlan {
  std::vector<CK_SLOT_ID> ids;       // ids[i] for the i-th token given
  std::vector<std::size_t> new_ids;  // tokens whose id is new: to store
  CK_SLOT_ID next = 0;               // the next id to hand out after these
};

// PlanSlotIds gives each token its stored id, and a new one (in the order
// given, after every id in use and after `next_slot_id`) to a token without
// one or whose id an earlier token already has (a copied token file). A data
// directory from before stored ids therefore keeps the numbering it had:
// 0, 1, ... in the order of its files.
SlotIdPlan PlanSlotIds(const std::vector<std::optional<CK_SLOT_ID>>& stored,
                       CK_SLOT_ID next_slot_id);

// CheckTokenLabelFree: OK when no token in `tokens` has `label`;
// CKR_ARGUMENTS_BAD naming the token that has it otherwise
// (docs/PKCS11.md "Specification choices").
Status CheckTokenLabelFree(std::string_view label, const std::vector<TokenInfo>& tokens);

// CreateTokenOnNewSlot creates a token (CreateInDirectory) with a label no
// token in `tokens` (the directory's others) has, on the next slot id: one
// past every id in `tokens` and the directory's next-slot-id, which it
// advances before it stores the id in the token. After a crash in between,
// the token has no id yet and gets a new one when a daemon next opens it.
Result<std::unique_ptr<Token>> CreateTokenOnNewSlot(const std::filesystem::path& dir,
                                                    std::string_view label, ByteView so_pin,
                                                    ByteView user_pin, const TokenOptions& options,
                                                    const std::vector<TokenInfo>& tokens);

}  // namespace signet::keystore
