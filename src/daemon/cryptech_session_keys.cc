// The key opcodes of CryptechSession: load, open, generate, close, delete
// and the key facts (13-22, 26). A Cryptech key is one signet key object,
// named by its CKA_UNIQUE_ID (docs/CRYPTECH.md).
#include "core/object.h"
#include "core/unique_id.h"
#include "daemon/cryptech_session.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

namespace {

// kMaxKeys: key handles one connection may hold open at once.
constexpr std::size_t kMaxKeys = 256;

bool ValidFlags(std::uint32_t flags) { return (flags & ~hal::kAllKeyFlags) == 0; }

void Append(core::Template& t, core::Template more) {
  for (auto& a : more) t.push_back(std::move(a));
}

// PublicKeyTemplate: C_CreateObject's template for the SPKI `key`.
Result<core::Template> PublicKeyTemplate(const crypto::PublicKey& key) {
  SIGNET_ASSIGN_OR_RETURN(core::AttributeMap attrs, core::PublicKeyAttributes(key));
  core::Template t{{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}};
  for (CK_ATTRIBUTE_TYPE type :
       {CKA_KEY_TYPE, CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_EC_PARAMS, CKA_EC_POINT}) {
    if (auto it = attrs.find(type); it != attrs.end()) t.push_back({type, it->second});
  }
  return t;
}

// Servable: the key types libhal knows (RSA, and ECDSA on its three curves).
bool Servable(const crypto::KeySpec& spec) {
  return spec.type == crypto::KeyType::kRsa || CurveOf(spec.type) != hal::Curve::kNone;
}

}  // namespace

CryptechSession::OpenKey* CryptechSession::FindKey(std::uint32_t handle) {
  auto it = keys_.find(handle);
  return it == keys_.end() ? nullptr : &it->second;
}

std::map<CK_ATTRIBUTE_TYPE, Bytes> CryptechSession::Attributes(
    CK_OBJECT_HANDLE object, const std::vector<CK_ATTRIBUTE_TYPE>& types) {
  std::map<CK_ATTRIBUTE_TYPE, Bytes> found;
  CK_RV overall = CKR_OK;
  auto values = hsm_.GetAttributeValue(*client_, session_, object, types, &overall);
  if (!values.ok()) return found;
  for (AttributeValue& v : *values) {
    if (v.rv == CKR_OK) found[v.type] = std::move(v.value);
  }
  return found;
}

Error CryptechSession::ReplyNewKey(CK_OBJECT_HANDLE object, Writer& out, bool with_uuid) {
  std::vector<CK_ATTRIBUTE_TYPE> types = KeyFactTypes();
  types.push_back(CKA_UNIQUE_ID);
  auto attrs = Attributes(object, types);
  auto uuid = core::UuidFromText(attrs[CKA_UNIQUE_ID]);
  if (!uuid) return Error::kImpossible;
  KeyFacts facts = KeyFactsOf(attrs);
  // Not a key libhal could name (an AES key, a certificate): pkey_open's
  // answer for it. load, generate and import only make RSA and EC keys.
  if (facts.type == hal::KeyType::kNone) return Error::kKeyNotFound;
  if (keys_.size() >= kMaxKeys) return Error::kNoKeySlotsAvailable;
  const std::uint32_t handle = next_handle_++;
  keys_[handle] = OpenKey{object, facts};
  out.PutU32(handle);
  if (with_uuid) out.PutOpaque(*uuid);
  return Error::kOk;
}

Error CryptechSession::PkeyLoad(Reader& in, Writer& out) {
  std::uint32_t session = 0;
  std::uint32_t flags = 0;
  ByteView der;
  if (!in.GetU32(session) || !in.GetOpaque(der) || !in.GetU32(flags)) {
    return Error::kXdrBufferOverflow;
  }
  if (der.empty() || !ValidFlags(flags)) return Error::kBadArguments;
  // The SO may load public keys only, and they are trusted (CKA_TRUSTED):
  // the receivers pkey_export may wrap keys for (docs/CRYPTECH.md).
  const bool by_so = user_ == hal::User::kSo;
  if (!by_so) {
    if (Error e = RequireUser(); e != Error::kOk) return e;
  }
  Result<CK_OBJECT_HANDLE> object = MakeError(CKR_GENERAL_ERROR, "");
  auto private_key = by_so ? Result<crypto::PrivateKey>(MakeError(CKR_USER_TYPE_INVALID, ""))
                           : crypto::PrivateKey::FromPkcs8Der(der);
  if (by_so && !crypto::PublicKey::FromDer(der).ok()) return Error::kForbidden;
  if (auto& key = private_key; key.ok()) {
    if (!Servable(key->spec())) return Error::kUnsupportedKey;
    core::Template t{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                     {CKA_VALUE, Bytes(der.begin(), der.end())}};
    Append(t, KeyFlagTemplate(flags, /*private_key=*/true));
    object = hsm_.ImportPrivateKey(*client_, session_, t);
    WipeBytes(t[1].value);
  } else if (auto pub = crypto::PublicKey::FromDer(der); pub.ok()) {
    if (!Servable(pub->spec())) return Error::kUnsupportedKey;
    auto t = PublicKeyTemplate(*pub);
    if (!t.ok()) return HalErrorOf(t.error());
    Append(*t, KeyFlagTemplate(flags, /*private_key=*/false));
    if (by_so) t->push_back({CKA_TRUSTED, BoolBytes(true)});
    object = hsm_.CreateObject(*client_, session_, *t);
  } else {
    return Error::kAsn1ParseFailed;
  }
  if (!object.ok()) return HalErrorOf(object.error());
  return ReplyNewKey(*object, out);
}

Error CryptechSession::PkeyOpen(Reader& in, Writer& out) {
  std::uint32_t session = 0;
  ByteView name;
  if (!in.GetU32(session) || !in.GetOpaque(name)) return Error::kXdrBufferOverflow;
  if (name.size() != hal::kUuidLength) return Error::kKeyNameTooLong;
  if (Error e = RequireUser(); e != Error::kOk) return e;
  core::Uuid uuid;
  std::copy(name.begin(), name.end(), uuid.begin());
  auto found = hsm_.FindObjects(*client_, session_, {{CKA_UNIQUE_ID, core::UuidText(uuid)}}, 1);
  if (!found.ok()) return HalErrorOf(found.error());
  if (found->empty()) return Error::kKeyNotFound;
  return ReplyNewKey(found->front(), out, /*with_uuid=*/false);
}

Error CryptechSession::PkeyGenerateRsa(Reader& in, Writer& out) {
  std::uint32_t session = 0;
  std::uint32_t bits = 0;
  std::uint32_t flags = 0;
  ByteView exponent;
  if (!in.GetU32(session) || !in.GetU32(bits) || !in.GetOpaque(exponent) || !in.GetU32(flags)) {
    return Error::kXdrBufferOverflow;
  }
  if (bits == 0 || bits % 8 != 0 || exponent.empty() || !ValidFlags(flags)) {
    return Error::kBadArguments;
  }
  if (Error e = RequireUser(); e != Error::kOk) return e;
  core::Template pub{{CKA_TOKEN, BoolBytes(false)},
                     {CKA_MODULUS_BITS, UlongBytes(bits)},
                     {CKA_PUBLIC_EXPONENT, Bytes(exponent.begin(), exponent.end())}};
  auto pair = hsm_.GenerateKeyPair(*client_, session_, Mechanism{CKM_RSA_PKCS_KEY_PAIR_GEN}, pub,
                                   KeyFlagTemplate(flags, /*private_key=*/true));
  if (!pair.ok()) return HalErrorOf(pair.error());
  // A Cryptech key is one object: its public half is the private key's
  // CKA_PUBLIC_KEY_INFO.
  (void)hsm_.DestroyObject(*client_, session_, pair->first);
  return ReplyNewKey(pair->second, out);
}

Error CryptechSession::PkeyGenerateEc(Reader& in, Writer& out) {
  std::uint32_t session = 0;
  std::uint32_t curve = 0;
  std::uint32_t flags = 0;
  if (!in.GetU32(session) || !in.GetU32(curve) || !in.GetU32(flags)) {
    return Error::kXdrBufferOverflow;
  }
  auto type = CurveKeyType(curve);
  if (!type || !ValidFlags(flags)) return Error::kBadArguments;
  if (Error e = RequireUser(); e != Error::kOk) return e;
  core::Template pub{{CKA_TOKEN, BoolBytes(false)}, {CKA_EC_PARAMS, crypto::EcParamsDer(*type)}};
  auto pair = hsm_.GenerateKeyPair(*client_, session_, Mechanism{CKM_EC_KEY_PAIR_GEN}, pub,
                                   KeyFlagTemplate(flags, /*private_key=*/true));
  if (!pair.ok()) return HalErrorOf(pair.error());
  (void)hsm_.DestroyObject(*client_, session_, pair->first);
  return ReplyNewKey(pair->second, out);
}

Error CryptechSession::PkeyClose(Reader& in, Writer&) {
  std::uint32_t handle = 0;
  if (!in.GetU32(handle)) return Error::kXdrBufferOverflow;
  return keys_.erase(handle) == 1 ? Error::kOk : Error::kKeyNotFound;
}

Error CryptechSession::PkeyDelete(Reader& in, Writer&) {
  std::uint32_t handle = 0;
  if (!in.GetU32(handle)) return Error::kXdrBufferOverflow;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  Status destroyed = hsm_.DestroyObject(*client_, session_, key->object);
  if (!destroyed.ok()) return HalErrorOf(destroyed.error());
  keys_.erase(handle);
  return Error::kOk;
}

Error CryptechSession::ReplyKeyFact(Reader& in, Writer& out,
                                    std::uint32_t (*fact)(const KeyFacts&)) {
  std::uint32_t handle = 0;
  if (!in.GetU32(handle)) return Error::kXdrBufferOverflow;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  out.PutU32(fact(key->facts));
  return Error::kOk;
}

Error CryptechSession::PkeyGetKeyType(Reader& in, Writer& out) {
  return ReplyKeyFact(in, out,
                      [](const KeyFacts& f) { return static_cast<std::uint32_t>(f.type); });
}

Error CryptechSession::PkeyGetKeyFlags(Reader& in, Writer& out) {
  return ReplyKeyFact(in, out, [](const KeyFacts& f) { return f.flags; });
}

Error CryptechSession::PkeyGetKeyCurve(Reader& in, Writer& out) {
  return ReplyKeyFact(in, out,
                      [](const KeyFacts& f) { return static_cast<std::uint32_t>(f.curve); });
}

Error CryptechSession::PkeyGetPublicKeyLength(Reader& in, Writer& out) {
  std::uint32_t handle = 0;
  if (!in.GetU32(handle)) return Error::kXdrBufferOverflow;
  // libhal answers 0 for an unknown handle, with status OK; so does signet.
  OpenKey* key = FindKey(handle);
  std::size_t length =
      key == nullptr ? 0
                     : Attributes(key->object, {CKA_PUBLIC_KEY_INFO})[CKA_PUBLIC_KEY_INFO].size();
  out.PutU32(static_cast<std::uint32_t>(length));
  return Error::kOk;
}

Error CryptechSession::PkeyGetPublicKey(Reader& in, Writer& out) {
  std::uint32_t handle = 0;
  std::uint32_t max = 0;
  if (!in.GetU32(handle) || !in.GetU32(max)) return Error::kXdrBufferOverflow;
  if (max > hal::kReplySpace - 4) return Error::kRpcPacketOverflow;
  if (max == 0) return Error::kBadArguments;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  Bytes spki = Attributes(key->object, {CKA_PUBLIC_KEY_INFO})[CKA_PUBLIC_KEY_INFO];
  if (spki.empty()) return Error::kImpossible;
  if (spki.size() > max) return Error::kResultTooLong;
  out.PutOpaque(spki);
  return Error::kOk;
}

}  // namespace signet::daemon
