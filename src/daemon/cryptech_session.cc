#include "daemon/cryptech_session.h"

#include "daemon/cryptech_keys.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

// kHandlers: opcode -> handler, in libhal's numbering.
const CryptechSession::Handler CryptechSession::kHandlers[hal::kOpcodeCount] = {
    &CryptechSession::GetVersion,
    &CryptechSession::GetRandom,
    &CryptechSession::SetPin,
    &CryptechSession::Login,
    &CryptechSession::Logout,
    &CryptechSession::LogoutAll,
    &CryptechSession::IsLoggedIn,
    &CryptechSession::HashGetDigestLength,
    &CryptechSession::HashGetDigestAlgorithmId,
    &CryptechSession::HashGetAlgorithm,
    &CryptechSession::HashInitialize,
    &CryptechSession::HashUpdate,
    &CryptechSession::HashFinalize,
    &CryptechSession::PkeyLoad,
    &CryptechSession::PkeyOpen,
    &CryptechSession::PkeyGenerateRsa,
    &CryptechSession::PkeyGenerateEc,
    &CryptechSession::PkeyClose,
    &CryptechSession::PkeyDelete,
    &CryptechSession::PkeyGetKeyType,
    &CryptechSession::PkeyGetKeyFlags,
    &CryptechSession::PkeyGetPublicKeyLength,
    &CryptechSession::PkeyGetPublicKey,
    &CryptechSession::PkeySign,
    &CryptechSession::PkeyVerify,
    &CryptechSession::PkeyMatch,
    &CryptechSession::PkeyGetKeyCurve,
    &CryptechSession::PkeySetAttributes,
    &CryptechSession::PkeyGetAttributes,
    &CryptechSession::PkeyExport,
    &CryptechSession::PkeyImport,
    &CryptechSession::GenerateHashsig,
};

namespace {

// ReplyHeader starts a reply: opcode, client (echoed, never trusted), status.
proto::XdrWriter ReplyHeader(std::uint32_t opcode, std::uint32_t client, Error status) {
  proto::XdrWriter out;
  out.PutU32(opcode);
  out.PutU32(client);
  out.PutU32(static_cast<std::uint32_t>(status));
  return out;
}

std::optional<CK_USER_TYPE> PkcsUser(std::uint32_t user) {
  switch (static_cast<hal::User>(user)) {
    case hal::User::kNormal:
      return CKU_USER;
    case hal::User::kSo:
      return CKU_SO;
    default:
      return std::nullopt;
  }
}

bool ValidUser(std::uint32_t user) {
  return user >= static_cast<std::uint32_t>(hal::User::kNormal) &&
         user <= static_cast<std::uint32_t>(hal::User::kWheel);
}

bool ValidPin(ByteView pin) { return pin.size() >= hal::kMinPin && pin.size() <= hal::kMaxPin; }

}  // namespace

CryptechSession::CryptechSession(core::Hsm& hsm, CK_SLOT_ID slot, std::string peer,
                                 std::string peer_identity, bool admin)
    : hsm_(hsm), slot_(slot), client_(hsm.NewClient()) {
  client_->peer = std::move(peer);
  client_->peer_identity = std::move(peer_identity);
  client_->admin = admin;
}

CryptechSession::~CryptechSession() { Disconnect(); }

std::optional<SecureBytes> CryptechSession::Handle(ByteView request) {
  proto::XdrReader in(request);
  std::uint32_t opcode = 0;
  std::uint32_t client = 0;
  if (!in.GetU32(opcode) || !in.GetU32(client)) return std::nullopt;
  if (opcode >= hal::kOpcodeCount) {
    return ReplyHeader(opcode, client, Error::kRpcBadFunction).bytes();
  }
  proto::XdrWriter out = ReplyHeader(opcode, client, Error::kOk);
  Error status;
  {
    base::MutexLock lock(&mu_);
    status = disconnected_ ? Error::kForbidden : (this->*kHandlers[opcode])(in, out);
  }
  if (status == Error::kOk && out.size() > hal::kMaxPacket) status = Error::kRpcPacketOverflow;
  if (status != Error::kOk) out = ReplyHeader(opcode, client, status);
  return std::move(out.bytes());
}

SecureBytes CryptechSession::ErrorReply(ByteView request, Error status) {
  proto::XdrReader in(request);
  std::uint32_t opcode = 0;
  std::uint32_t client = 0;
  in.GetU32(opcode);
  in.GetU32(client);
  return ReplyHeader(opcode, client, status).bytes();
}

void CryptechSession::Disconnect() {
  base::MutexLock lock(&mu_);
  if (disconnected_) return;
  disconnected_ = true;
  hashes_.clear();
  keys_.clear();
  hsm_.Disconnect(*client_);
}

bool CryptechSession::idle() const {
  base::MutexLock lock(&mu_);
  return user_ == hal::User::kNone && keys_.empty() && hashes_.empty();
}

Error CryptechSession::EnsureSession() {
  if (session_ != 0) return Error::kOk;
  auto session = hsm_.OpenSession(*client_, slot_, CKF_SERIAL_SESSION | CKF_RW_SESSION);
  if (!session.ok()) return HalErrorOf(session.error());
  session_ = *session;
  return Error::kOk;
}

void CryptechSession::EndLogin() {
  keys_.clear();
  hashes_.clear();
  if (session_ != 0) {
    // Closing the session logs the client out of the token (its last
    // session) and destroys its session keys, as libhal's logout does.
    (void)hsm_.CloseSession(*client_, session_);
    session_ = 0;
  }
  user_ = hal::User::kNone;
}

Error CryptechSession::RequireUser() {
  return user_ == hal::User::kNormal ? Error::kOk : Error::kForbidden;
}

Error CryptechSession::GetVersion(Reader&, Writer& out) {
  out.PutU32(hal::kRpcVersion);
  return Error::kOk;
}

Error CryptechSession::GetRandom(Reader& in, Writer& out) {
  std::uint32_t length = 0;
  if (!in.GetU32(length)) return Error::kXdrBufferOverflow;
  if (length == 0 || length > hal::kMaxPacket - hal::kReplyHeader - 4) {
    return Error::kRpcPacketOverflow;
  }
  if (Error e = EnsureSession(); e != Error::kOk) return e;
  auto random = hsm_.GenerateRandom(*client_, session_, length);
  if (!random.ok()) return HalErrorOf(random.error());
  out.PutOpaque(*random);
  return Error::kOk;
}

Error CryptechSession::SetPin(Reader& in, Writer&) {
  std::uint32_t user = 0;
  ByteView pin;
  if (!in.GetU32(user) || !in.GetOpaque(pin)) return Error::kXdrBufferOverflow;
  if (!ValidUser(user) || !ValidPin(pin)) return Error::kBadArguments;
  // Only the user's PIN can be set here, by the SO (C_InitPIN); signet has
  // no wheel to set the SO's (docs/CRYPTECH.md).
  if (static_cast<hal::User>(user) != hal::User::kNormal || user_ != hal::User::kSo) {
    return Error::kForbidden;
  }
  Status set = hsm_.InitPin(*client_, session_, pin);
  return set.ok() ? Error::kOk : HalErrorOf(set.error());
}

Error CryptechSession::Login(Reader& in, Writer&) {
  std::uint32_t user = 0;
  ByteView pin;
  if (!in.GetU32(user) || !in.GetOpaque(pin)) return Error::kXdrBufferOverflow;
  if (!ValidUser(user) || !ValidPin(pin)) return Error::kBadArguments;
  auto pkcs_user = PkcsUser(user);
  if (!pkcs_user) return Error::kForbidden;  // wheel
  // A new login replaces the old one, as in libhal.
  if (user_ != hal::User::kNone) EndLogin();
  if (Error e = EnsureSession(); e != Error::kOk) return e;
  Status login = hsm_.Login(*client_, session_, *pkcs_user, pin);
  if (!login.ok()) return HalErrorOf(login.error());
  user_ = static_cast<hal::User>(user);
  return Error::kOk;
}

Error CryptechSession::Logout(Reader&, Writer&) {
  EndLogin();
  return Error::kOk;
}

Error CryptechSession::LogoutAll(Reader&, Writer&) {
  // Only the caller's own login: one client may not end another's.
  EndLogin();
  return Error::kOk;
}

Error CryptechSession::IsLoggedIn(Reader& in, Writer&) {
  std::uint32_t user = 0;
  if (!in.GetU32(user)) return Error::kXdrBufferOverflow;
  if (!ValidUser(user)) return Error::kBadArguments;
  return static_cast<std::uint32_t>(user_) == user ? Error::kOk : Error::kForbidden;
}

Error CryptechSession::GenerateHashsig(Reader&, Writer&) {
  return Error::kNotImplemented;  // LMS/HSS come later (docs/CRYPTECH.md)
}

}  // namespace signet::daemon
