#include "client/client_impl.h"

#include <openssl/crypto.h>

namespace signet::client {
namespace {

// kFlushThreshold: queued request bytes that trigger a write without a Wait.
constexpr std::size_t kFlushThreshold = 64 * 1024;

}  // namespace

Error Client::Impl::Fail(Error error) {
  if (!broken_) broken_ = error;
  return error;
}

Result<std::uint64_t> Client::Impl::Frame(wire::RequestBody type, flatbuffers::Offset<void> body,
                                          bool secret) {
  if (broken_) return *broken_;
  if (write_failed_) return *write_failed_;
  std::uint64_t id = next_id_++;
  builder_.Finish(wire::CreateRequest(builder_, id, rpc::kProtocolVersion, type, body));
  std::span<const std::uint8_t> payload(builder_.GetBufferPointer(), builder_.GetSize());
  if (payload.size() > reader_.max_frame_size()) {
    if (secret) OPENSSL_cleanse(builder_.GetBufferPointer(), builder_.GetSize());
    return MakeError(CKR_DATA_LEN_RANGE, "request of " + std::to_string(payload.size()) +
                                             " bytes exceeds the frame limit");
  }
  auto header = rpc::EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
  outbox_.insert(outbox_.end(), header.begin(), header.end());
  outbox_.insert(outbox_.end(), payload.begin(), payload.end());
  if (secret) OPENSSL_cleanse(builder_.GetBufferPointer(), builder_.GetSize());
  in_flight_.insert(id);
  if (outbox_.size() >= kFlushThreshold) {
    Status flushed = Flush();
    if (!flushed.ok()) {
      in_flight_.erase(id);  // the caller gets no ticket for it
      return std::move(flushed).error();
    }
  }
  return id;
}

Status Client::Impl::Flush() {
  if (outbox_.empty()) return OkStatus();
  if (broken_) return *broken_;
  Status written = stream_->Write(outbox_);
  OPENSSL_cleanse(outbox_.data(), outbox_.size());
  outbox_.clear();
  if (written.ok()) return OkStatus();
  if (written.error().code != CKR_DEVICE_REMOVED) return Fail(std::move(written).error());
  // The daemon hung up on our requests (e.g. it is shutting down), but its
  // replies to earlier ones may still be in the socket: keep reading them.
  write_failed_ = std::move(written).error();
  return *write_failed_;
}

Status Client::Impl::FileReply(std::span<const std::uint8_t> payload) {
  if (!VerifyReply(payload)) {
    return Fail(MakeError(CKR_DEVICE_ERROR, "signetd sent a malformed reply"));
  }
  auto frame = std::make_shared<const ReplyFrame>(
      std::vector<std::uint8_t>(payload.begin(), payload.end()));
  std::uint64_t id = frame->response().id();
  if (id == 0) {
    // The daemon could not read one of our frames; it cannot say which, so
    // no ticket can be answered reliably any more.
    return Fail(frame->ToError());
  }
  if (in_flight_.erase(id) == 0) {
    return Fail(MakeError(CKR_DEVICE_ERROR,
                          "signetd replied to unknown request id " + std::to_string(id)));
  }
  replies_.emplace(id, std::move(frame));
  return OkStatus();
}

Status Client::Impl::ReadMore() {
  std::span<std::uint8_t> space = reader_.Prepare(64 * 1024);
  Result<std::size_t> got = stream_->Read(space);
  if (!got.ok()) {
    reader_.Commit(0);
    return Fail(std::move(got).error());
  }
  reader_.Commit(*got);
  std::span<const std::uint8_t> payload;
  for (;;) {
    rpc::FrameReader::State state = reader_.Next(&payload);
    if (state == rpc::FrameReader::State::kNeedMore) return OkStatus();
    if (state == rpc::FrameReader::State::kTooLarge) {
      return Fail(MakeError(CKR_DEVICE_ERROR, "signetd sent a frame over the size limit"));
    }
    SIGNET_TRY(FileReply(payload));
  }
}

Result<std::shared_ptr<const ReplyFrame>> Client::Impl::WaitReply(std::uint64_t id) {
  for (;;) {
    auto found = replies_.find(id);
    if (found != replies_.end()) {
      std::shared_ptr<const ReplyFrame> frame = std::move(found->second);
      replies_.erase(found);
      return frame;
    }
    if (broken_) return *broken_;
    if (in_flight_.count(id) == 0) {
      return MakeError(CKR_ARGUMENTS_BAD, "no request with id " + std::to_string(id) +
                                              " is pending (waited twice?)");
    }
    // A hang-up while writing is noted in write_failed_ and reading goes
    // on: replies to earlier requests may still be in the socket.
    if (!write_failed_) (void)Flush();
    if (broken_) return *broken_;
    SIGNET_TRY(ReadMore());
  }
}

}  // namespace signet::client
