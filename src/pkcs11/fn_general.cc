// C_Initialize ... C_InitToken: the library, its slots and tokens, and the
// mechanisms (PKCS#11 v2.40 §5.4-5.5). Slot, token and mechanism data come
// from the daemon's GetInfo (one round trip on the application's connection).
#include <algorithm>
#include <cstring>

#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/session_ops.h"
#include "signet/version.hpp"

namespace signet::pkcs11::entry {
namespace {

constexpr const char* kManufacturer = "signet";
// kLibraryVersion: signet's major.minor (signet/version.hpp), reported as the
// library's, the slots' hardware and the tokens' firmware version.
constexpr CK_VERSION kLibraryVersion = {kVersionMajor, kVersionMinor};

// FindSlot returns the slot `id` of `info`, or nullptr.
const client::SlotInfo* FindSlot(const client::ServerInfo& info, CK_SLOT_ID id) {
  auto it = std::find_if(info.slots.begin(), info.slots.end(),
                         [id](const client::SlotInfo& s) { return s.slot_id == id; });
  return it == info.slots.end() ? nullptr : &*it;
}

// WithTokenSlot fetches GetInfo and runs body(info, slot) for slot `id`
// (CKR_SLOT_ID_INVALID when there is none). Every slot holds a token: the
// daemon's free slot is presented as a present, uninitialised token
// (slot.token_present false: CKF_TOKEN_INITIALIZED clear), which is what
// PKCS#11 tools expect C_InitToken to be called on (SoftHSMv2's shape).
template <typename Body>
CK_RV WithTokenSlot(CK_SLOT_ID id, Body&& body) {
  return WithState([&](ModuleState& state) -> CK_RV {
    Result<client::ServerInfo> info = state.GetInfo();
    if (!info.ok()) return info.error().code;
    const client::SlotInfo* slot = FindSlot(*info, id);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    return body(*info, *slot);
  });
}

// TokenFlags: CK_TOKEN_INFO.flags of the slot's token; the free slot's
// uninitialised token has a random number generator and will need a login
// once initialised, nothing else.
CK_FLAGS TokenFlags(const client::SlotInfo& slot) {
  return slot.token_present ? slot.flags : CKF_RNG | CKF_LOGIN_REQUIRED;
}

}  // namespace

CK_RV C_Initialize(CK_VOID_PTR init_args) {
  return Guard([&] { return InitializeModule(init_args); });
}

CK_RV C_Finalize(CK_VOID_PTR reserved) {
  return Guard([&] { return FinalizeModule(reserved); });
}

CK_RV C_GetInfo(CK_INFO_PTR info) {
  return WithState([&](ModuleState&) -> CK_RV {
    if (info == nullptr) return CKR_ARGUMENTS_BAD;
    info->cryptokiVersion = CK_VERSION{2, 40};
    PadCopy(kManufacturer, info->manufacturerID, sizeof(info->manufacturerID));
    info->flags = 0;
    PadCopy("signet PKCS#11 module", info->libraryDescription, sizeof(info->libraryDescription));
    info->libraryVersion = kLibraryVersion;
    return CKR_OK;
  });
}

// C_GetSlotList: every slot holds a token (the free slot an uninitialised
// one), so the tokenPresent filter changes nothing.
CK_RV C_GetSlotList(CK_BBOOL, CK_SLOT_ID_PTR slots, CK_ULONG_PTR count) {
  return WithState([&](ModuleState& state) -> CK_RV {
    if (count == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::ServerInfo> info = state.GetInfo();
    if (!info.ok()) return info.error().code;
    std::vector<CK_SLOT_ID> ids;
    for (const client::SlotInfo& slot : info->slots) ids.push_back(slot.slot_id);
    if (slots == nullptr) {
      *count = ids.size();
      return CKR_OK;
    }
    const CK_ULONG room = *count;
    *count = ids.size();
    if (room < ids.size()) return CKR_BUFFER_TOO_SMALL;
    std::copy(ids.begin(), ids.end(), slots);
    return CKR_OK;
  });
}

CK_RV C_GetSlotInfo(CK_SLOT_ID id, CK_SLOT_INFO_PTR info) {
  return WithState([&](ModuleState& state) -> CK_RV {
    if (info == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::ServerInfo> server = state.GetInfo();
    if (!server.ok()) return server.error().code;
    const client::SlotInfo* slot = FindSlot(*server, id);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    const std::string description =
        slot->token_present ? "signet token slot " + std::to_string(id) : "signet free slot";
    PadCopy(description, info->slotDescription, sizeof(info->slotDescription));
    PadCopy(kManufacturer, info->manufacturerID, sizeof(info->manufacturerID));
    // The free slot holds an uninitialised token (WithTokenSlot); tokens
    // appear there with C_InitToken, so slots are removable.
    info->flags = CKF_REMOVABLE_DEVICE | CKF_TOKEN_PRESENT;
    info->hardwareVersion = kLibraryVersion;
    info->firmwareVersion = kLibraryVersion;
    return CKR_OK;
  });
}

CK_RV C_GetTokenInfo(CK_SLOT_ID id, CK_TOKEN_INFO_PTR info) {
  if (info == nullptr) return WithState([](ModuleState&) { return CKR_ARGUMENTS_BAD; });
  return WithTokenSlot(id, [&](const client::ServerInfo& server, const client::SlotInfo& slot) {
    PadCopy(slot.label, info->label, sizeof(info->label));
    PadCopy(server.manufacturer.empty() ? kManufacturer : server.manufacturer,
            info->manufacturerID, sizeof(info->manufacturerID));
    PadCopy(server.model.empty() ? "software HSM" : server.model, info->model,
            sizeof(info->model));
    PadCopy(slot.serial, info->serialNumber, sizeof(info->serialNumber));
    info->flags = TokenFlags(slot);
    info->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
    info->ulSessionCount = slot.session_count;
    info->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
    info->ulRwSessionCount = slot.rw_session_count;
    info->ulMaxPinLen = slot.max_pin_len;
    info->ulMinPinLen = slot.min_pin_len;
    info->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    info->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    info->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    info->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    info->hardwareVersion = kLibraryVersion;
    info->firmwareVersion = kLibraryVersion;
    PadCopy("", info->utcTime, sizeof(info->utcTime));  // no CKF_CLOCK_ON_TOKEN
    return CKR_OK;
  });
}

CK_RV C_GetMechanismList(CK_SLOT_ID id, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR count) {
  if (count == nullptr) return WithState([](ModuleState&) { return CKR_ARGUMENTS_BAD; });
  return WithTokenSlot(id, [&](const client::ServerInfo& server, const client::SlotInfo&) {
    const CK_ULONG room = *count;
    *count = server.mechanisms.size();
    if (list == nullptr) return CKR_OK;
    if (room < server.mechanisms.size()) return CKR_BUFFER_TOO_SMALL;
    for (std::size_t i = 0; i < server.mechanisms.size(); ++i) list[i] = server.mechanisms[i].type;
    return CKR_OK;
  });
}

CK_RV C_GetMechanismInfo(CK_SLOT_ID id, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR info) {
  if (info == nullptr) return WithState([](ModuleState&) { return CKR_ARGUMENTS_BAD; });
  return WithTokenSlot(id, [&](const client::ServerInfo& server, const client::SlotInfo&) {
    for (const client::MechanismInfo& m : server.mechanisms) {
      if (m.type != type) continue;
      info->ulMinKeySize = m.min_key_size;
      info->ulMaxKeySize = m.max_key_size;
      // Every mechanism runs in signetd, outside the application's process:
      // for the caller that is the device doing it (CKF_HW), which is also
      // what tools such as pkcs11-tool look for before testing signatures.
      info->flags = m.flags | CKF_HW;
      return CKR_OK;
    }
    return CKR_MECHANISM_INVALID;
  });
}

CK_RV C_InitToken(CK_SLOT_ID id, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len, CK_UTF8CHAR_PTR label) {
  return WithState([&](ModuleState& state) -> CK_RV {
    if (pin == nullptr || label == nullptr) return CKR_ARGUMENTS_BAD;
    // §5.5: C_InitToken fails while the application has sessions on the token.
    if (!state.sessions().OnSlot(id).empty()) return CKR_SESSION_EXISTS;
    const std::string name(TrimPadded(label, 32));
    return RvOf(state.InitToken(id, ToView(pin, pin_len), name));
  });
}

}  // namespace signet::pkcs11::entry
