// The operation table: one handler per RequestBody type. Each handler reads
// its request table, calls the Hsm, and builds its response body.
#include "daemon/dispatch.h"

#include <algorithm>
#include <array>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "core/key_pool.h"
#include "core/mechanisms.h"
#include "daemon/audit.h"
#include "daemon/audit_log.h"
#include "daemon/log.h"
#include "daemon/request_labels.h"
#include "daemon/wire_convert.h"
#include "proto/framing.h"
#include "proto/shm_ring.h"
#include "signet/version.hpp"

namespace signet::daemon {
namespace {

namespace fb = flatbuffers;
using wire::RequestBody;
using wire::ResponseBody;

struct Ctx {
  core::Hsm& hsm;
  core::ClientState& client;
  const ServerView& view;
  fb::FlatBufferBuilder& fbb;
};

// Reply: what a handler produced; body is built into ctx.fbb.
struct Reply {
  CK_RV rv = CKR_OK;
  std::string message;
  ResponseBody type = ResponseBody::NONE;
  fb::Offset<void> body;
};

Reply FromError(const Error& e) { return Reply{e.code, e.message, ResponseBody::NONE, {}}; }
Reply FromStatus(const Status& s) { return s.ok() ? Reply{} : FromError(s.error()); }
template <typename T>
Reply Body(ResponseBody type, fb::Offset<T> body) {
  return Reply{CKR_OK, {}, type, body.Union()};
}
Reply DataReply(Ctx& c, const Result<Bytes>& data) {
  if (!data.ok()) return FromError(data.error());
  return Body(ResponseBody::DataResponse,
              wire::CreateDataResponse(c.fbb, c.fbb.CreateVector(*data)));
}
Reply ObjectReply(Ctx& c, const Result<CK_OBJECT_HANDLE>& h) {
  if (!h.ok()) return FromError(h.error());
  return Body(ResponseBody::ObjectResponse, wire::CreateObjectResponse(c.fbb, *h));
}

// --- handlers (R: the request table type)

Reply GetInfo(Ctx& c, const wire::Request&) {
  c.hsm.ServeNewTokens();
  std::vector<fb::Offset<wire::SlotInfo>> slots;
  for (const core::SlotDescription& s : c.hsm.Slots()) {
    slots.push_back(wire::CreateSlotInfo(c.fbb, s.id, s.token_present, c.fbb.CreateString(s.label),
                                         c.fbb.CreateString(s.serial), s.flags, s.sessions,
                                         s.rw_sessions, core::kMinPinLen, core::kMaxPinLen));
  }
  std::vector<fb::Offset<wire::MechanismInfo>> mechs;
  for (const MechanismRow& m : kMechanismTable) {
    if (!core::Offered(m)) continue;
    mechs.push_back(wire::CreateMechanismInfo(c.fbb, m.type, m.min_key_size, m.max_key_size,
                                              m.flags, m.key_type, m.alt_key_type));
  }
  std::vector<fb::Offset<wire::UnavailableToken>> unavailable;
  for (const core::UnavailableToken& u : c.hsm.unavailable_tokens()) {
    unavailable.push_back(wire::CreateUnavailableToken(c.fbb, c.fbb.CreateString(u.file.string()),
                                                       c.fbb.CreateString(u.reason)));
  }
  return Body(
      ResponseBody::GetInfoResponse,
      wire::CreateGetInfoResponse(
          c.fbb, proto::kProtocolVersion, c.fbb.CreateString(kVersionString),
          c.fbb.CreateString("signet"), c.fbb.CreateString("signet software HSM"),
          c.fbb.CreateVector(slots), c.fbb.CreateVector(mechs), c.fbb.CreateVector(unavailable)));
}

Reply OpenSession(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_OpenSessionRequest();
  auto h = c.hsm.OpenSession(c.client, r->slot_id(), r->flags());
  if (!h.ok()) return FromError(h.error());
  return Body(ResponseBody::SessionResponse, wire::CreateSessionResponse(c.fbb, *h));
}
Reply CloseSession(Ctx& c, const wire::Request& req) {
  return FromStatus(c.hsm.CloseSession(c.client, req.body_as_CloseSessionRequest()->session()));
}
Reply CloseAllSessions(Ctx& c, const wire::Request& req) {
  return FromStatus(
      c.hsm.CloseAllSessions(c.client, req.body_as_CloseAllSessionsRequest()->slot_id()));
}
Reply GetSessionInfo(Ctx& c, const wire::Request& req) {
  auto info = c.hsm.GetSessionInfo(c.client, req.body_as_GetSessionInfoRequest()->session());
  if (!info.ok()) return FromError(info.error());
  return Body(ResponseBody::SessionInfoResponse,
              wire::CreateSessionInfoResponse(c.fbb, info->slot_id, info->state, info->flags,
                                              info->device_error));
}
Reply Login(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_LoginRequest();
  if (r->ticket() != nullptr && (r->pin() == nullptr || r->pin()->size() == 0)) {
    return FromStatus(
        c.hsm.LoginWithTicket(c.client, r->session(), r->user_type(), View(r->ticket())));
  }
  Status login = c.hsm.Login(c.client, r->session(), r->user_type(), View(r->pin()));
  if (!login.ok() || !r->want_ticket()) return FromStatus(login);
  // The login stands whether or not a ticket can be made: a node without
  // the ticket key answers with no body, and the client goes without.
  Result<Bytes> ticket =
      c.hsm.IssueLoginTicket(c.client, r->session(), r->user_type(), View(r->pin()));
  if (!ticket.ok()) return Reply{};
  return DataReply(c, ticket);
}
Reply UseStableHandles(Ctx& c, const wire::Request& req) {
  return FromStatus(
      c.hsm.UseStableHandles(c.client, View(req.body_as_UseStableHandlesRequest()->key())));
}
Reply Logout(Ctx& c, const wire::Request& req) {
  return FromStatus(c.hsm.Logout(c.client, req.body_as_LogoutRequest()->session()));
}
Reply InitToken(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_InitTokenRequest();
  std::string_view label = r->label() ? r->label()->string_view() : std::string_view();
  auto result =
      c.hsm.InitToken(c.client, r->slot_id(), View(r->so_pin()), label, View(r->user_pin()));
  if (!result.ok()) return FromError(result.error());
  return Body(
      ResponseBody::InitTokenResponse,
      wire::CreateInitTokenResponse(c.fbb, result->first, c.fbb.CreateString(result->second)));
}
Reply InitPin(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_InitPinRequest();
  return FromStatus(c.hsm.InitPin(c.client, r->session(), View(r->pin())));
}
Reply SetPin(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_SetPinRequest();
  return FromStatus(c.hsm.SetPin(c.client, r->session(), View(r->old_pin()), View(r->new_pin())));
}
Reply GenerateKeyPair(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_GenerateKeyPairRequest();
  auto pair = c.hsm.GenerateKeyPair(c.client, r->session(), ToMechanism(r->mechanism()),
                                    ToTemplate(r->public_template()),
                                    ToTemplate(r->private_template()), r->unique_label());
  if (!pair.ok()) return FromError(pair.error());
  return Body(ResponseBody::KeyPairResponse,
              wire::CreateKeyPairResponse(c.fbb, pair->first, pair->second));
}
Reply GenerateKey(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_GenerateKeyRequest();
  return ObjectReply(c, c.hsm.GenerateKey(c.client, r->session(), ToMechanism(r->mechanism()),
                                          ToTemplate(r->template_())));
}
Reply DeriveKey(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_DeriveKeyRequest();
  return ObjectReply(c, c.hsm.DeriveKey(c.client, r->session(), ToMechanism(r->mechanism()),
                                        r->base_key(), ToTemplate(r->template_())));
}
Reply CreateObject(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_CreateObjectRequest();
  return ObjectReply(c, c.hsm.CreateObject(c.client, r->session(), ToTemplate(r->template_())));
}
Reply CopyObject(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_CopyObjectRequest();
  return ObjectReply(
      c, c.hsm.CopyObject(c.client, r->session(), r->object(), ToTemplate(r->template_())));
}
Reply DestroyObject(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_DestroyObjectRequest();
  return FromStatus(c.hsm.DestroyObject(c.client, r->session(), r->object()));
}
Reply CreateObjects(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_CreateObjectsRequest();
  std::vector<core::Template> templates;
  if (r->templates()) {
    for (const wire::ObjectTemplate* t : *r->templates()) {
      templates.push_back(ToTemplate(t->template_()));
    }
  }
  auto made = c.hsm.CreateObjects(c.client, r->session(), templates, r->unique_label());
  // The templates may hold a private key: wipe the copies before freeing.
  for (core::Template& t : templates) {
    for (core::Attribute& a : t) WipeBytes(a.value);
  }
  if (!made.ok()) return FromError(made.error());
  std::vector<std::uint64_t> handles(made->begin(), made->end());
  return Body(ResponseBody::ObjectsResponse,
              wire::CreateObjectsResponse(c.fbb, c.fbb.CreateVector(handles)));
}
Reply DestroyObjects(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_DestroyObjectsRequest();
  std::vector<CK_OBJECT_HANDLE> objects;
  if (r->objects()) objects.assign(r->objects()->begin(), r->objects()->end());
  return FromStatus(c.hsm.DestroyObjects(c.client, r->session(), objects));
}
Reply FindObjects(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_FindObjectsRequest();
  auto found =
      c.hsm.FindObjects(c.client, r->session(), ToTemplate(r->template_()), r->max_count());
  if (!found.ok()) return FromError(found.error());
  std::vector<std::uint64_t> handles(found->begin(), found->end());
  return Body(ResponseBody::FindObjectsResponse,
              wire::CreateFindObjectsResponse(c.fbb, c.fbb.CreateVector(handles)));
}
Reply GetAttributeValue(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_GetAttributeValueRequest();
  std::vector<CK_ATTRIBUTE_TYPE> types;
  if (r->types()) types.assign(r->types()->begin(), r->types()->end());
  CK_RV overall = CKR_OK;
  auto values = c.hsm.GetAttributeValue(c.client, r->session(), r->object(), types, &overall);
  if (!values.ok()) return FromError(values.error());
  std::vector<fb::Offset<wire::AttributeResult>> out;
  for (AttributeValue& v : *values) {
    auto bytes =
        v.rv == CKR_OK ? c.fbb.CreateVector(v.value) : fb::Offset<fb::Vector<std::uint8_t>>();
    out.push_back(wire::CreateAttributeResult(c.fbb, v.type, v.rv, bytes));
    WipeBytes(v.value);  // a non-sensitive key's component may be among them
  }
  Reply reply = Body(ResponseBody::GetAttributeValueResponse,
                     wire::CreateGetAttributeValueResponse(c.fbb, c.fbb.CreateVector(out)));
  reply.rv = overall;  // §5.7: the body travels with these two codes too
  return reply;
}
Reply SetAttributeValue(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_SetAttributeValueRequest();
  return FromStatus(
      c.hsm.SetAttributeValue(c.client, r->session(), r->object(), ToTemplate(r->template_())));
}
Reply Sign(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_SignRequest();
  return DataReply(c, c.hsm.Sign(c.client, r->session(), r->key(), ToMechanism(r->mechanism()),
                                 View(r->data())));
}
Reply SignBatch(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_SignBatchRequest();
  const std::size_t count = r->inputs() ? r->inputs()->size() : 0;
  if (count > kMaxSignBatchInputs) {
    return FromError(Error{CKR_ARGUMENTS_BAD,
                           "SignBatch takes at most " + std::to_string(kMaxSignBatchInputs) +
                               " inputs (got " + std::to_string(count) +
                               "), so that its reply fits the frame limit; split the batch"});
  }
  std::vector<ByteView> inputs;
  if (r->inputs()) {
    for (const wire::Blob* b : *r->inputs()) inputs.push_back(View(b->data()));
  }
  auto results =
      c.hsm.SignBatch(c.client, r->session(), r->key(), ToMechanism(r->mechanism()), inputs);
  if (!results.ok()) return FromError(results.error());
  std::vector<fb::Offset<wire::BlobResult>> out;
  for (const auto& sig : *results) {
    out.push_back(sig.ok() ? wire::CreateBlobResult(c.fbb, CKR_OK, c.fbb.CreateVector(*sig))
                           : wire::CreateBlobResult(c.fbb, sig.error().code));
  }
  return Body(ResponseBody::SignBatchResponse,
              wire::CreateSignBatchResponse(c.fbb, c.fbb.CreateVector(out)));
}
Reply Verify(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_VerifyRequest();
  return FromStatus(c.hsm.Verify(c.client, r->session(), r->key(), ToMechanism(r->mechanism()),
                                 View(r->data()), View(r->signature())));
}
Reply Digest(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_DigestRequest();
  return DataReply(
      c, c.hsm.Digest(c.client, r->session(), ToMechanism(r->mechanism()), View(r->data())));
}
Reply Encrypt(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_EncryptRequest();
  return DataReply(c, c.hsm.Encrypt(c.client, r->session(), r->key(), ToMechanism(r->mechanism()),
                                    View(r->data())));
}
Reply Decrypt(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_DecryptRequest();
  return DataReply(c, c.hsm.Decrypt(c.client, r->session(), r->key(), ToMechanism(r->mechanism()),
                                    View(r->data())));
}
Reply WrapKey(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_WrapKeyRequest();
  return DataReply(c, c.hsm.WrapKey(c.client, r->session(), ToMechanism(r->mechanism()),
                                    r->wrapping_key(), r->key()));
}
Reply UnwrapKey(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_UnwrapKeyRequest();
  return ObjectReply(
      c, c.hsm.UnwrapKey(c.client, r->session(), ToMechanism(r->mechanism()), r->unwrapping_key(),
                         View(r->wrapped()), ToTemplate(r->template_())));
}
Reply GenerateRandom(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_GenerateRandomRequest();
  return DataReply(c, c.hsm.GenerateRandom(c.client, r->session(), r->length()));
}
Reply SeedRandom(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_SeedRandomRequest();
  return FromStatus(c.hsm.SeedRandom(c.client, r->session(), View(r->seed())));
}
Reply StreamUpdate(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_StreamUpdateRequest();
  std::optional<OperationKind> kind = ToOperationKind(r->kind());
  if (!kind) return FromError(MakeError(CKR_ARGUMENTS_BAD, "unknown operation kind"));
  return DataReply(c, c.hsm.StreamUpdate(c.client, r->session(), *kind, r->start(), r->key(),
                                         ToMechanism(r->mechanism()), View(r->data())));
}
Reply StreamFinal(Ctx& c, const wire::Request& req) {
  auto* r = req.body_as_StreamFinalRequest();
  std::optional<OperationKind> kind = ToOperationKind(r->kind());
  if (!kind) return FromError(MakeError(CKR_ARGUMENTS_BAD, "unknown operation kind"));
  return DataReply(c, c.hsm.StreamFinal(c.client, r->session(), *kind, View(r->signature())));
}
Reply GetStats(Ctx& c, const wire::Request&) {
  std::vector<fb::Offset<wire::PhaseStat>> phases;
  for (int i = 0; i < static_cast<int>(core::Phase::kCount); ++i) {
    auto phase = static_cast<core::Phase>(i);
    core::PhaseSnapshot snap = c.hsm.counters().Get(phase);
    phases.push_back(wire::CreatePhaseStat(c.fbb, c.fbb.CreateString(core::PhaseName(phase)),
                                           snap.calls, snap.total_ns));
  }
  core::Scheduler::Stats sched;
  if (c.view.scheduler) sched = c.view.scheduler->stats();
  keystore::CacheStats cache = c.hsm.CacheTotals();
  std::size_t conns = c.view.connections ? c.view.connections->load() : 0;
  std::vector<fb::Offset<wire::PoolStat>> pools;
  if (auto pool = c.hsm.key_pool()) {
    for (const core::PoolTypeStats& p : pool->Stats()) {
      pools.push_back(wire::CreatePoolStat(c.fbb, c.fbb.CreateString(p.name), p.target, p.size,
                                           p.generated, p.taken, p.misses, p.generate_ns));
    }
  }
  return Body(
      ResponseBody::StatsResponse,
      wire::CreateStatsResponse(
          c.fbb, sched.workers, sched.capacity, sched.depth, sched.peak, sched.rejected,
          sched.completed, conns, c.hsm.open_sessions(), c.fbb.CreateVector(phases), cache.hits,
          cache.misses, cache.evictions, cache.size, cache.capacity, c.fbb.CreateVector(pools),
          sched.ran_here, c.view.ring_requests ? c.view.ring_requests->load() : 0,
          c.view.ring_connections ? c.view.ring_connections->load() : 0));
}

using Handler = Reply (*)(Ctx&, const wire::Request&);

// kHandlers: indexed by RequestBody; entry 0 (NONE) is a miss.
constexpr auto kHandlers = [] {
  std::array<Handler, static_cast<std::size_t>(RequestBody::MAX) + 1> t{};
  auto set = [&t](RequestBody b, Handler h) { t[static_cast<std::size_t>(b)] = h; };
  set(RequestBody::GetInfoRequest, GetInfo);
  set(RequestBody::OpenSessionRequest, OpenSession);
  set(RequestBody::CloseSessionRequest, CloseSession);
  set(RequestBody::CloseAllSessionsRequest, CloseAllSessions);
  set(RequestBody::GetSessionInfoRequest, GetSessionInfo);
  set(RequestBody::LoginRequest, Login);
  set(RequestBody::LogoutRequest, Logout);
  set(RequestBody::UseStableHandlesRequest, UseStableHandles);
  set(RequestBody::InitTokenRequest, InitToken);
  set(RequestBody::InitPinRequest, InitPin);
  set(RequestBody::SetPinRequest, SetPin);
  set(RequestBody::GenerateKeyPairRequest, GenerateKeyPair);
  set(RequestBody::GenerateKeyRequest, GenerateKey);
  set(RequestBody::CreateObjectRequest, CreateObject);
  set(RequestBody::CopyObjectRequest, CopyObject);
  set(RequestBody::DestroyObjectRequest, DestroyObject);
  set(RequestBody::FindObjectsRequest, FindObjects);
  set(RequestBody::GetAttributeValueRequest, GetAttributeValue);
  set(RequestBody::SetAttributeValueRequest, SetAttributeValue);
  set(RequestBody::SignRequest, Sign);
  set(RequestBody::SignBatchRequest, SignBatch);
  set(RequestBody::VerifyRequest, Verify);
  set(RequestBody::DigestRequest, Digest);
  set(RequestBody::EncryptRequest, Encrypt);
  set(RequestBody::DecryptRequest, Decrypt);
  set(RequestBody::WrapKeyRequest, WrapKey);
  set(RequestBody::UnwrapKeyRequest, UnwrapKey);
  set(RequestBody::GenerateRandomRequest, GenerateRandom);
  set(RequestBody::GetStatsRequest, GetStats);
  set(RequestBody::CreateObjectsRequest, CreateObjects);
  set(RequestBody::DestroyObjectsRequest, DestroyObjects);
  set(RequestBody::SeedRandomRequest, SeedRandom);
  set(RequestBody::DeriveKeyRequest, DeriveKey);
  set(RequestBody::StreamUpdateRequest, StreamUpdate);
  set(RequestBody::StreamFinalRequest, StreamFinal);
  return t;
}();

std::vector<std::uint8_t> Finish(fb::FlatBufferBuilder& fbb, std::uint64_t id, const Reply& reply) {
  auto message = reply.message.empty() ? fb::Offset<fb::String>() : fbb.CreateString(reply.message);
  fbb.Finish(wire::CreateResponse(fbb, id, reply.rv, message, reply.type, reply.body));
  auto header = proto::EncodeFrameHeader(fbb.GetSize());
  std::vector<std::uint8_t> frame;
  frame.reserve(proto::kFrameHeaderSize + fbb.GetSize());
  frame.insert(frame.end(), header.begin(), header.end());
  frame.insert(frame.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  return frame;
}

// kSmallReplyBound: the reply estimate for operations whose replies are
// small (a signature, a handle, a status).
constexpr std::size_t kSmallReplyBound = 4096;

}  // namespace

std::size_t ReplySizeBound(const wire::Request& request, std::size_t max_frame_size) {
  constexpr std::size_t kEnvelope = 256;  // Response table, message, header
  std::size_t bound = kSmallReplyBound;
  switch (request.body_type()) {
    case RequestBody::GenerateRandomRequest:
      if (auto* r = request.body_as_GenerateRandomRequest()) {
        bound = static_cast<std::size_t>(std::min<std::uint64_t>(r->length(), max_frame_size)) +
                kEnvelope;
      }
      break;
    case RequestBody::SignBatchRequest:
      if (auto* r = request.body_as_SignBatchRequest(); r && r->inputs()) {
        bound = std::min<std::size_t>(r->inputs()->size(), kMaxSignBatchInputs) * 544 + kEnvelope;
      }
      break;
    case RequestBody::EncryptRequest:
    case RequestBody::DecryptRequest:
    case RequestBody::DigestRequest: {
      const ByteVector* data = nullptr;
      if (auto* e = request.body_as_EncryptRequest()) data = e->data();
      if (auto* d = request.body_as_DecryptRequest()) data = d->data();
      if (auto* g = request.body_as_DigestRequest()) data = g->data();
      bound = (data ? data->size() : 0) + 64 + kEnvelope;
      break;
    }
    case RequestBody::StreamUpdateRequest:
      if (auto* r = request.body_as_StreamUpdateRequest(); r && r->data()) {
        bound = r->data()->size() + 64 + kEnvelope;
      }
      break;
    case RequestBody::StreamFinalRequest:
      // GCM decryption releases all its held plaintext here (at most
      // Limits::max_held_per_operation, under one frame).
      bound = max_frame_size;
      break;
    case RequestBody::GetAttributeValueRequest:
    case RequestBody::FindObjectsRequest:
    case RequestBody::GetInfoRequest:
      bound = 64 * 1024;  // attribute values and handle lists vary
      break;
    default:
      break;
  }
  return std::min(bound, max_frame_size + proto::kFrameHeaderSize);
}

std::vector<std::uint8_t> AttachRingFrame(std::uint64_t id) {
  namespace ring = proto::ring;
  fb::FlatBufferBuilder fbb(128);
  auto body = wire::CreateAttachRingResponse(fbb, ring::kVersion, ring::kSlotCount,
                                             static_cast<std::uint32_t>(ring::kSlotSize),
                                             ring::kRegionSize);
  return Finish(fbb, id, Reply{CKR_OK, {}, ResponseBody::AttachRingResponse, body.Union()});
}

const wire::Request* VerifyRequest(std::span<const std::uint8_t> payload) {
  fb::Verifier verifier(payload.data(), payload.size());
  if (!verifier.VerifyBuffer<wire::Request>(nullptr)) return nullptr;
  return fb::GetRoot<wire::Request>(payload.data());
}

bool NeedsWorker(const wire::Request& request) {
  auto type = static_cast<std::size_t>(request.body_type());
  return request.version() == proto::kProtocolVersion && type < kHandlers.size() &&
         kHandlers[type] != nullptr && request.body() != nullptr &&
         request.body_type() != RequestBody::GetStatsRequest;
}

Route RouteFor(const wire::Request& request, std::size_t buffered, std::uint64_t last_sign_ns) {
  if (!NeedsWorker(request)) return Route::kEventLoop;
  bool sign = request.body_type() == RequestBody::SignRequest;
  return sign && buffered == 0 && last_sign_ns < kInlineSignNs ? Route::kHereIfIdle
                                                               : Route::kWorker;
}

std::vector<std::uint8_t> ErrorFrame(std::uint64_t id, CK_RV rv, std::string_view message) {
  fb::FlatBufferBuilder fbb(128);
  return Finish(fbb, id, Reply{rv, std::string(message), ResponseBody::NONE, {}});
}

namespace {

// RecordAudit writes `record` to the audit log, or as a text line to
// stderr when signetd has none. A failed write is logged on stderr with the
// record, so the record is not lost (docs/SECURITY.md "Audit log").
Status RecordAudit(const ServerView& view, const AuditRecord& record) {
  if (view.audit_log == nullptr) {
    Log(AuditText(record));
    return OkStatus();
  }
  Status written = view.audit_log->Append(AuditJson(record));
  if (!written.ok()) {
    Log("audit log write failed, request answered CKR_DEVICE_ERROR: " + written.error().message +
        "; the record: " + AuditText(record));
  }
  return written;
}

}  // namespace

std::vector<std::uint8_t> Dispatch(core::Hsm& hsm, core::ClientState& client,
                                   const ServerView& view, const wire::Request& request) {
  if (request.version() != proto::kProtocolVersion) {
    return ErrorFrame(request.id(), SIGNET_RV_UNSUPPORTED_VERSION,
                      "protocol version " + std::to_string(request.version()) +
                          " not supported; this daemon speaks " + std::to_string(proto::kProtocolVersion));
  }
  auto type = static_cast<std::size_t>(request.body_type());
  Handler handler = type < kHandlers.size() ? kHandlers[type] : nullptr;
  if (handler == nullptr || request.body() == nullptr) {
    return ErrorFrame(request.id(), CKR_FUNCTION_NOT_SUPPORTED,
                      "unknown operation " + std::to_string(type));
  }
  const std::uint64_t start = core::NowNs();
  fb::FlatBufferBuilder fbb(256);
  Ctx ctx{hsm, client, view, fbb};
  Reply reply;
  try {
    reply = handler(ctx, request);
  } catch (const std::bad_alloc&) {
    fbb.Clear();
    reply = Reply{CKR_HOST_MEMORY, "out of memory", ResponseBody::NONE, {}};
  } catch (...) {
    fbb.Clear();
    reply = Reply{CKR_GENERAL_ERROR, "internal error", ResponseBody::NONE, {}};
  }
  if (auto record = DescribeAudited(request, reply.rv, client)) {
    // Written (and synced) before the reply exists: an acknowledged
    // security-relevant request is always on record.
    if (Status recorded = RecordAudit(view, *record); !recorded.ok()) {
      fbb.Clear();
      reply = Reply{CKR_DEVICE_ERROR,
                    "the audit log could not be written (signetd's log says why); the "
                    "operation itself was carried out",
                    ResponseBody::NONE,
                    {}};
    }
  }
  core::ScopedPhase encode(hsm.counters(), core::Phase::kEncode);
  std::vector<std::uint8_t> frame = Finish(fbb, request.id(), reply);
  const bool too_large = frame.size() - proto::kFrameHeaderSize > view.max_frame_size;
  if (view.requests != nullptr) {
    view.requests->Record(RequestOp(request), RequestMechanismSlot(request),
                          too_large ? CKR_DATA_LEN_RANGE : reply.rv, core::NowNs() - start);
  }
  if (too_large) {
    return ErrorFrame(request.id(), CKR_DATA_LEN_RANGE,
                      "reply of " + std::to_string(frame.size() - proto::kFrameHeaderSize) +
                          " bytes exceeds the frame limit of " +
                          std::to_string(view.max_frame_size) + "; ask for less per request");
  }
  return frame;
}

}  // namespace signet::daemon
