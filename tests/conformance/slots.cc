// [slot.] §5.5.1-5.5.6: C_GetSlotList, C_GetSlotInfo, C_GetTokenInfo,
// C_GetMechanismList, C_GetMechanismInfo, C_WaitForSlotEvent; §5.2 length
// queries; the free slot (issue 11 point 16).
#include <algorithm>
#include <cstring>

#include "areas.h"

namespace signet::conformance {
namespace {

// InvalidSlot: a slot id the module does not list.
CK_SLOT_ID InvalidSlot(Fixture& f) {
  CK_ULONG count = 0;
  f.p11()->C_GetSlotList(CK_FALSE, nullptr, &count);
  std::vector<CK_SLOT_ID> slots(count);
  f.p11()->C_GetSlotList(CK_FALSE, slots.data(), &count);
  CK_SLOT_ID candidate = 0x7fff0001;
  while (std::find(slots.begin(), slots.end(), candidate) != slots.end()) ++candidate;
  return candidate;
}

void CheckSlotList(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  s.Rv("slot.list.null_count", "5.5.1", CKR_ARGUMENTS_BAD,
       p->C_GetSlotList(CK_FALSE, nullptr, nullptr));
  CK_ULONG count = 0;
  s.Rv("slot.list.length_query", "5.2", CKR_OK, p->C_GetSlotList(CK_FALSE, nullptr, &count));
  s.True("slot.list.length_query_count", "5.5.1", count >= 1, ">= 1 slot", std::to_string(count));
  CK_SLOT_ID one;
  CK_ULONG zero = 0;
  s.Rv("slot.list.buffer_too_small", "5.2", CKR_BUFFER_TOO_SMALL,
       p->C_GetSlotList(CK_FALSE, &one, &zero));
  s.True("slot.list.buffer_too_small_count", "5.2", zero == count, std::to_string(count),
         std::to_string(zero));
  std::vector<CK_SLOT_ID> slots(count + 4);
  CK_ULONG big = slots.size();
  s.Rv("slot.list.ok", "5.5.1", CKR_OK, p->C_GetSlotList(CK_FALSE, slots.data(), &big));
  s.True("slot.list.ok_count", "5.2", big == count, std::to_string(count), std::to_string(big));
  slots.resize(std::min<CK_ULONG>(big, slots.size()));
  CK_ULONG present = 0;
  p->C_GetSlotList(CK_TRUE, nullptr, &present);
  s.True("slot.list.present_subset", "5.5.1", present <= count && present >= 1,
         "1.." + std::to_string(count), std::to_string(present));

  // Issue 11 point 16: the free slot holds a present, uninitialised token.
  bool free_slot = false;
  for (CK_SLOT_ID slot : slots) {
    CK_SLOT_INFO slot_info;
    CK_TOKEN_INFO token_info;
    if (p->C_GetSlotInfo(slot, &slot_info) != CKR_OK) continue;
    if ((slot_info.flags & CKF_TOKEN_PRESENT) == 0) continue;
    if (p->C_GetTokenInfo(slot, &token_info) == CKR_OK &&
        (token_info.flags & CKF_TOKEN_INITIALIZED) == 0) {
      free_slot = true;
    }
  }
  s.True("slot.free_slot_token_present_uninitialized", "3.2 CK_TOKEN_INFO", free_slot,
         "a slot with CKF_TOKEN_PRESENT and a token without CKF_TOKEN_INITIALIZED",
         free_slot ? "one" : "none");
}

void CheckSlotAndTokenInfo(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SLOT_ID invalid = InvalidSlot(f);
  CK_SLOT_INFO slot_info;
  s.Rv("slot.info.null", "5.5.2", CKR_ARGUMENTS_BAD, p->C_GetSlotInfo(f.slot(), nullptr));
  s.Rv("slot.info.invalid_slot", "5.5.2", CKR_SLOT_ID_INVALID,
       p->C_GetSlotInfo(invalid, &slot_info));
  std::memset(&slot_info, 0, sizeof slot_info);
  if (s.Rv("slot.info.ok", "5.5.2", CKR_OK, p->C_GetSlotInfo(f.slot(), &slot_info))) {
    s.True("slot.info.token_present", "3.2 CK_SLOT_INFO",
           (slot_info.flags & CKF_TOKEN_PRESENT) != 0, "CKF_TOKEN_PRESENT", Hex(slot_info.flags));
    bool padded =
        std::memchr(slot_info.slotDescription, 0, sizeof slot_info.slotDescription) == nullptr &&
        std::memchr(slot_info.manufacturerID, 0, sizeof slot_info.manufacturerID) == nullptr;
    s.True("slot.info.blank_padded", "3.2 CK_SLOT_INFO", padded, "blank padded, no NUL",
           padded ? "blank padded" : "contains NUL");
  }

  CK_TOKEN_INFO info;
  s.Rv("slot.token_info.null", "5.5.3", CKR_ARGUMENTS_BAD, p->C_GetTokenInfo(f.slot(), nullptr));
  s.Rv("slot.token_info.invalid_slot", "5.5.3", CKR_SLOT_ID_INVALID,
       p->C_GetTokenInfo(invalid, &info));
  std::memset(&info, 0, sizeof info);
  if (!s.Rv("slot.token_info.ok", "5.5.3", CKR_OK, p->C_GetTokenInfo(f.slot(), &info))) return;
  const CK_FLAGS needed = CKF_TOKEN_INITIALIZED | CKF_USER_PIN_INITIALIZED | CKF_RNG;
  s.True("slot.token_info.flags", "3.2 CK_TOKEN_INFO", (info.flags & needed) == needed,
         "CKF_TOKEN_INITIALIZED|CKF_USER_PIN_INITIALIZED|CKF_RNG", Hex(info.flags));
  s.True("slot.token_info.pin_lengths", "3.2 CK_TOKEN_INFO",
         info.ulMinPinLen <= info.ulMaxPinLen && info.ulMinPinLen <= f.options().user_pin.size(),
         "ulMinPinLen <= PIN length <= ulMaxPinLen",
         std::to_string(info.ulMinPinLen) + ".." + std::to_string(info.ulMaxPinLen));
  bool padded = std::memchr(info.label, 0, sizeof info.label) == nullptr &&
                std::memchr(info.model, 0, sizeof info.model) == nullptr &&
                std::memchr(info.serialNumber, 0, sizeof info.serialNumber) == nullptr;
  s.True("slot.token_info.blank_padded", "3.2 CK_TOKEN_INFO", padded, "blank padded, no NUL",
         padded ? "blank padded" : "contains NUL");
  s.True("slot.token_info.session_counts", "3.2 CK_TOKEN_INFO",
         info.ulSessionCount == 0 || info.ulSessionCount == CK_UNAVAILABLE_INFORMATION,
         "0 (no session open) or CK_UNAVAILABLE_INFORMATION", std::to_string(info.ulSessionCount));
}

void CheckMechanisms(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SLOT_ID invalid = InvalidSlot(f);
  s.Rv("slot.mechanism_list.null_count", "5.5.5", CKR_ARGUMENTS_BAD,
       p->C_GetMechanismList(f.slot(), nullptr, nullptr));
  CK_ULONG count = 0;
  s.Rv("slot.mechanism_list.invalid_slot", "5.5.5", CKR_SLOT_ID_INVALID,
       p->C_GetMechanismList(invalid, nullptr, &count));
  s.Rv("slot.mechanism_list.length_query", "5.2", CKR_OK,
       p->C_GetMechanismList(f.slot(), nullptr, &count));
  CK_MECHANISM_TYPE one;
  CK_ULONG zero = 0;
  if (count > 0) {
    s.Rv("slot.mechanism_list.buffer_too_small", "5.2", CKR_BUFFER_TOO_SMALL,
         p->C_GetMechanismList(f.slot(), &one, &zero));
    s.True("slot.mechanism_list.buffer_too_small_count", "5.2", zero == count,
           std::to_string(count), std::to_string(zero));
  }
  CK_MECHANISM_INFO info;
  s.Rv("slot.mechanism_info.null", "5.5.6", CKR_ARGUMENTS_BAD,
       p->C_GetMechanismInfo(f.slot(), CKM_SHA256, nullptr));
  s.Rv("slot.mechanism_info.invalid_slot", "5.5.6", CKR_SLOT_ID_INVALID,
       p->C_GetMechanismInfo(invalid, CKM_SHA256, &info));
  s.Rv("slot.mechanism_info.invalid_mechanism", "5.5.6", CKR_MECHANISM_INVALID,
       p->C_GetMechanismInfo(f.slot(), CKM_VENDOR_DEFINED + 0x5157, &info));
  std::string bad;
  for (CK_MECHANISM_TYPE mechanism : f.Mechanisms()) {
    CK_RV rv = p->C_GetMechanismInfo(f.slot(), mechanism, &info);
    if (rv != CKR_OK || info.ulMinKeySize > info.ulMaxKeySize) bad += Hex(mechanism) + " ";
  }
  s.True("slot.mechanism_info.every_listed", "5.5.6", bad.empty(),
         "CKR_OK and min <= max key size for every listed mechanism", bad.empty() ? "all" : bad);

  CK_SLOT_ID event_slot;
  s.RvIn("slot.wait_for_slot_event.dont_block", "5.5.4", {CKR_NO_EVENT, CKR_FUNCTION_NOT_SUPPORTED},
         p->C_WaitForSlotEvent(CKF_DONT_BLOCK, &event_slot, nullptr));
}

}  // namespace

void RunSlots(Fixture& fixture) {
  CheckSlotList(fixture);
  CheckSlotAndTokenInfo(fixture);
  CheckMechanisms(fixture);
}

}  // namespace signet::conformance
