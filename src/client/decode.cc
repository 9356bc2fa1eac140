#include "client/decode.h"

#include "client/reply_frame.h"

namespace signet::client {

Error ReplyFrame::ToError() const {
  std::string message = ToString(response_->message());
  if (message.empty()) message = "signetd refused the request";
  return MakeError(response_->rv(), std::move(message));
}

bool VerifyReply(std::span<const std::uint8_t> payload) {
  flatbuffers::Verifier verifier(payload.data(), payload.size());
  return verifier.VerifyBuffer<wire::Response>(nullptr);
}

Result<void> DecodeStatus(const ReplyFrame& frame) {
  if (frame.response().rv() != CKR_OK) return frame.ToError();
  return OkStatus();
}

Result<Bytes> DecodeLoginTicket(const ReplyFrame& frame) {
  const wire::Response& response = frame.response();
  if (response.rv() != CKR_OK) return frame.ToError();
  const wire::DataResponse* body = response.body_as_DataResponse();
  if (body == nullptr || body->data() == nullptr) return Bytes();
  return Bytes(body->data()->begin(), body->data()->end());
}

Result<Handle> DecodeSession(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::SessionResponse>(frame));
  return Handle{body->session()};
}

Result<Handle> DecodeObject(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::ObjectResponse>(frame));
  return Handle{body->object()};
}

Result<std::vector<Handle>> DecodeObjects(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::ObjectsResponse>(frame));
  std::vector<Handle> handles;
  if (body->objects() != nullptr) handles.assign(body->objects()->begin(), body->objects()->end());
  return handles;
}

Result<Bytes> DecodeData(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::DataResponse>(frame));
  return ToBytes(body->data());
}

namespace {

SlotInfo ToSlotInfo(const wire::SlotInfo& slot) {
  SlotInfo info;
  info.slot_id = slot.slot_id();
  info.token_present = slot.token_present();
  info.label = ToString(slot.label());
  info.serial = ToString(slot.serial());
  info.flags = slot.flags();
  info.session_count = slot.session_count();
  info.rw_session_count = slot.rw_session_count();
  info.min_pin_len = slot.min_pin_len();
  info.max_pin_len = slot.max_pin_len();
  return info;
}

}  // namespace

Result<ServerInfo> DecodeInfo(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::GetInfoResponse>(frame));
  ServerInfo info;
  info.protocol_version = body->protocol_version();
  info.server_version = ToString(body->server_version());
  info.manufacturer = ToString(body->manufacturer());
  info.model = ToString(body->model());
  if (body->slots() != nullptr) {
    for (const wire::SlotInfo* slot : *body->slots()) info.slots.push_back(ToSlotInfo(*slot));
  }
  if (body->mechanisms() != nullptr) {
    for (const wire::MechanismInfo* mech : *body->mechanisms()) {
      info.mechanisms.push_back(MechanismInfo{mech->type(), mech->min_key_size(),
                                              mech->max_key_size(), mech->flags(), mech->key_type(),
                                              mech->alt_key_type()});
    }
  }
  if (body->unavailable_tokens() != nullptr) {
    for (const wire::UnavailableToken* token : *body->unavailable_tokens()) {
      info.unavailable_tokens.push_back({ToString(token->file()), ToString(token->reason())});
    }
  }
  return info;
}

Result<SessionInfo> DecodeSessionInfo(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::SessionInfoResponse>(frame));
  return SessionInfo{body->slot_id(), body->state(), body->flags(), body->device_error()};
}

Result<InitTokenResult> DecodeInitToken(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::InitTokenResponse>(frame));
  return InitTokenResult{body->slot_id(), ToString(body->serial())};
}

Result<KeyPair> DecodeKeyPair(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::KeyPairResponse>(frame));
  return KeyPair{body->public_key(), body->private_key()};
}

Result<std::vector<Handle>> DecodeFindObjects(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::FindObjectsResponse>(frame));
  std::vector<Handle> handles;
  if (body->objects() != nullptr) handles.assign(body->objects()->begin(), body->objects()->end());
  return handles;
}

Result<std::vector<AttributeValue>> DecodeAttributes(const ReplyFrame& frame) {
  const wire::Response& response = frame.response();
  const auto* body = response.body_as<wire::GetAttributeValueResponse>();
  bool partial = response.rv() == CKR_ATTRIBUTE_SENSITIVE ||
                 response.rv() == CKR_ATTRIBUTE_TYPE_INVALID;
  if (response.rv() != CKR_OK && !(partial && body != nullptr)) return frame.ToError();
  if (body == nullptr) return MakeError(CKR_DEVICE_ERROR, "signetd reply lacks attributes");
  std::vector<AttributeValue> values;
  if (body->values() != nullptr) {
    for (const wire::AttributeResult* value : *body->values()) {
      values.push_back(AttributeValue{value->type(), value->rv(), ToBytes(value->value())});
    }
  }
  return values;
}

Result<std::vector<Result<Bytes>>> DecodeSignBatch(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::SignBatchResponse>(frame));
  std::vector<Result<Bytes>> results;
  if (body->results() == nullptr) return results;
  results.reserve(body->results()->size());
  std::size_t index = 0;
  for (const wire::BlobResult* item : *body->results()) {
    if (item->rv() == CKR_OK) {
      results.emplace_back(ToBytes(item->data()));
    } else {
      results.emplace_back(MakeError(item->rv(), "batch item " + std::to_string(index) +
                                                     " failed"));
    }
    ++index;
  }
  return results;
}

Result<ServerStats> DecodeStats(const ReplyFrame& frame) {
  SIGNET_ASSIGN_OR_RETURN(auto body, ReplyBody<wire::StatsResponse>(frame));
  ServerStats stats;
  stats.workers = body->workers();
  stats.queue_capacity = body->queue_capacity();
  stats.queue_depth = body->queue_depth();
  stats.queue_peak = body->queue_peak();
  stats.busy_rejections = body->busy_rejections();
  stats.completed = body->completed();
  stats.ran_on_event_loop = body->ran_on_event_loop();
  stats.ring_requests = body->ring_requests();
  stats.ring_connections = body->ring_connections();
  stats.connections = body->connections();
  stats.sessions = body->sessions();
  if (body->phases() != nullptr) {
    for (const wire::PhaseStat* phase : *body->phases()) {
      stats.phases.push_back(PhaseStat{ToString(phase->name()), phase->calls(),
                                       phase->total_ns()});
    }
  }
  stats.cache_hits = body->cache_hits();
  stats.cache_misses = body->cache_misses();
  stats.cache_evictions = body->cache_evictions();
  stats.cache_size = body->cache_size();
  stats.cache_capacity = body->cache_capacity();
  if (body->pools() != nullptr) {
    for (const wire::PoolStat* pool : *body->pools()) {
      stats.pools.push_back(PoolStat{ToString(pool->name()), pool->target(), pool->size(),
                                     pool->generated(), pool->taken(), pool->misses(),
                                     pool->generate_ns()});
    }
  }
  return stats;
}

}  // namespace signet::client
