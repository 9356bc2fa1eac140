// Send* for signing, verification, digests, encryption, key wrapping and
// random bytes.
#include "client/client_impl.h"
#include "client/decode.h"
#include "client/encode.h"

namespace signet::client {

using wire::RequestBody;

Result<Pending<Bytes>> Client::SendSign(Handle session, Handle key, const Mechanism& mechanism,
                                        ByteView data) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, data);
  auto body = wire::CreateSignRequest(fbb, session, key, mech, input);
  return request.Enqueue(RequestBody::SignRequest, body.Union(), DecodeData);
}

Result<Pending<std::vector<Result<Bytes>>>> Client::SendSignBatch(Handle session, Handle key,
                                                                  const Mechanism& mechanism,
                                                                  std::span<const Bytes> inputs) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  std::vector<flatbuffers::Offset<wire::Blob>> blobs;
  blobs.reserve(inputs.size());
  for (const Bytes& input : inputs) blobs.push_back(wire::CreateBlob(fbb, EncodeBytes(fbb, input)));
  auto body = wire::CreateSignBatchRequest(fbb, session, key, mech, fbb.CreateVector(blobs));
  return request.Enqueue(RequestBody::SignBatchRequest, body.Union(), DecodeSignBatch);
}

Result<Pending<void>> Client::SendVerify(Handle session, Handle key, const Mechanism& mechanism,
                                         ByteView data, ByteView signature) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, data);
  auto sig = EncodeBytes(fbb, signature);
  auto body = wire::CreateVerifyRequest(fbb, session, key, mech, input, sig);
  return request.Enqueue(RequestBody::VerifyRequest, body.Union(), DecodeStatus);
}

Result<Pending<Bytes>> Client::SendDigest(Handle session, const Mechanism& mechanism,
                                          ByteView data) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, data);
  auto body = wire::CreateDigestRequest(fbb, session, mech, input);
  return request.Enqueue(RequestBody::DigestRequest, body.Union(), DecodeData);
}

Result<Pending<Bytes>> Client::SendEncrypt(Handle session, Handle key, const Mechanism& mechanism,
                                           ByteView plaintext) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, plaintext);
  auto body = wire::CreateEncryptRequest(fbb, session, key, mech, input);
  return request.Enqueue(RequestBody::EncryptRequest, body.Union(), DecodeData, /*secret=*/true);
}

Result<Pending<Bytes>> Client::SendDecrypt(Handle session, Handle key, const Mechanism& mechanism,
                                           ByteView ciphertext) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, ciphertext);
  auto body = wire::CreateDecryptRequest(fbb, session, key, mech, input);
  return request.Enqueue(RequestBody::DecryptRequest, body.Union(), DecodeData);
}

Result<Pending<Bytes>> Client::SendWrapKey(Handle session, const Mechanism& mechanism,
                                           Handle wrapping_key, Handle key) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto body = wire::CreateWrapKeyRequest(fbb, session, mech, wrapping_key, key);
  return request.Enqueue(RequestBody::WrapKeyRequest, body.Union(), DecodeData);
}

Result<Pending<Handle>> Client::SendUnwrapKey(Handle session, const Mechanism& mechanism,
                                              Handle unwrapping_key, ByteView wrapped,
                                              const Template& key_template) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto blob = EncodeBytes(fbb, wrapped);
  auto attributes = EncodeTemplate(fbb, key_template);
  auto body = wire::CreateUnwrapKeyRequest(fbb, session, mech, unwrapping_key, blob, attributes);
  return request.Enqueue(RequestBody::UnwrapKeyRequest, body.Union(), DecodeObject);
}

Result<Pending<Handle>> Client::SendDeriveKey(Handle session, const Mechanism& mechanism,
                                              Handle base_key, const Template& key_template) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto attributes = EncodeTemplate(fbb, key_template);
  auto body = wire::CreateDeriveKeyRequest(fbb, session, mech, base_key, attributes);
  return request.Enqueue(RequestBody::DeriveKeyRequest, body.Union(), DecodeObject);
}

Result<Pending<Bytes>> Client::SendStreamUpdate(Handle session, OperationKind kind, bool start,
                                                Handle key, const Mechanism& mechanism,
                                                ByteView part) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  flatbuffers::Offset<wire::Mechanism> mech = 0;
  if (start) mech = EncodeMechanism(fbb, mechanism);
  auto input = EncodeBytes(fbb, part);
  auto body = wire::CreateStreamUpdateRequest(fbb, session, static_cast<wire::OperationKind>(kind),
                                              start, key, mech, input);
  return request.Enqueue(RequestBody::StreamUpdateRequest, body.Union(), DecodeData,
                         /*secret=*/true);
}

Result<Pending<Bytes>> Client::SendStreamFinal(Handle session, OperationKind kind,
                                               ByteView signature) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto sig = EncodeBytes(fbb, signature);
  auto body =
      wire::CreateStreamFinalRequest(fbb, session, static_cast<wire::OperationKind>(kind), sig);
  return request.Enqueue(RequestBody::StreamFinalRequest, body.Union(), DecodeData);
}

Result<Pending<Bytes>> Client::SendGenerateRandom(Handle session, std::size_t length) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateGenerateRandomRequest(fbb, session, length);
  return request.Enqueue(RequestBody::GenerateRandomRequest, body.Union(), DecodeData);
}

Result<Pending<void>> Client::SendSeedRandom(Handle session, ByteView seed) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateSeedRandomRequest(fbb, session, EncodeBytes(fbb, seed));
  // The seed may be secret to the application: wipe the builder after.
  return request.Enqueue(RequestBody::SeedRandomRequest, body.Union(), DecodeStatus,
                         /*secret=*/true);
}

}  // namespace signet::client
