// Send* for key generation and the object operations.
#include "client/client_impl.h"
#include "client/decode.h"
#include "client/encode.h"

namespace signet::client {

using wire::RequestBody;

Result<Pending<KeyPair>> Client::SendGenerateKeyPair(Handle session, const Mechanism& mechanism,
                                                     const Template& public_template,
                                                     const Template& private_template,
                                                     bool unique_label) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto pub = EncodeTemplate(fbb, public_template);
  auto priv = EncodeTemplate(fbb, private_template);
  auto body = wire::CreateGenerateKeyPairRequest(fbb, session, mech, pub, priv, unique_label);
  return request.Enqueue(RequestBody::GenerateKeyPairRequest, body.Union(), DecodeKeyPair);
}

Result<Pending<Handle>> Client::SendGenerateKey(Handle session, const Mechanism& mechanism,
                                                const Template& key_template) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto mech = EncodeMechanism(fbb, mechanism);
  auto attributes = EncodeTemplate(fbb, key_template);
  auto body = wire::CreateGenerateKeyRequest(fbb, session, mech, attributes);
  return request.Enqueue(RequestBody::GenerateKeyRequest, body.Union(), DecodeObject);
}

Result<Pending<Handle>> Client::SendCreateObject(Handle session, const Template& object_template) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto attributes = EncodeTemplate(fbb, object_template);
  auto body = wire::CreateCreateObjectRequest(fbb, session, attributes);
  // An imported private key travels in CKA_VALUE: wipe the builder after.
  return request.Enqueue(RequestBody::CreateObjectRequest, body.Union(), DecodeObject,
                        /*secret=*/true);
}

Result<Pending<Handle>> Client::SendCopyObject(Handle session, Handle object,
                                               const Template& changes) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto attributes = EncodeTemplate(fbb, changes);
  auto body = wire::CreateCopyObjectRequest(fbb, session, object, attributes);
  return request.Enqueue(RequestBody::CopyObjectRequest, body.Union(), DecodeObject);
}

Result<Pending<void>> Client::SendDestroyObject(Handle session, Handle object) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateDestroyObjectRequest(fbb, session, object);
  return request.Enqueue(RequestBody::DestroyObjectRequest, body.Union(), DecodeStatus);
}

Result<Pending<std::vector<Handle>>> Client::SendCreateObjects(
    Handle session, const std::vector<Template>& templates, bool unique_label) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  std::vector<flatbuffers::Offset<wire::ObjectTemplate>> encoded;
  for (const Template& t : templates) {
    encoded.push_back(wire::CreateObjectTemplate(fbb, EncodeTemplate(fbb, t)));
  }
  auto body =
      wire::CreateCreateObjectsRequest(fbb, session, fbb.CreateVector(encoded), unique_label);
  // An imported private key travels in CKA_VALUE: wipe the builder after.
  return request.Enqueue(RequestBody::CreateObjectsRequest, body.Union(), DecodeObjects,
                         /*secret=*/true);
}

Result<Pending<void>> Client::SendDestroyObjects(Handle session, std::span<const Handle> objects) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  std::vector<std::uint64_t> handles(objects.begin(), objects.end());
  auto body = wire::CreateDestroyObjectsRequest(fbb, session, fbb.CreateVector(handles));
  return request.Enqueue(RequestBody::DestroyObjectsRequest, body.Union(), DecodeStatus);
}

Result<Pending<std::vector<Handle>>> Client::SendFindObjects(Handle session,
                                                             const Template& match,
                                                             CK_ULONG max_count) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto attributes = EncodeTemplate(fbb, match);
  auto body = wire::CreateFindObjectsRequest(fbb, session, attributes, max_count);
  return request.Enqueue(RequestBody::FindObjectsRequest, body.Union(), DecodeFindObjects);
}

Result<Pending<std::vector<AttributeValue>>> Client::SendGetAttributeValue(
    Handle session, Handle object, std::span<const CK_ATTRIBUTE_TYPE> types) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  std::vector<std::uint64_t> wide(types.begin(), types.end());
  auto body = wire::CreateGetAttributeValueRequest(fbb, session, object, fbb.CreateVector(wide));
  return request.Enqueue(RequestBody::GetAttributeValueRequest, body.Union(), DecodeAttributes);
}

Result<Pending<void>> Client::SendSetAttributeValue(Handle session, Handle object,
                                                    const Template& changes) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto attributes = EncodeTemplate(fbb, changes);
  auto body = wire::CreateSetAttributeValueRequest(fbb, session, object, attributes);
  return request.Enqueue(RequestBody::SetAttributeValueRequest, body.Union(), DecodeStatus);
}

}  // namespace signet::client
