#include "client/encode.h"

namespace signet::client {

flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> EncodeBytes(
    flatbuffers::FlatBufferBuilder& fbb, ByteView bytes) {
  return fbb.CreateVector(bytes.data(), bytes.size());
}

namespace {

flatbuffers::Offset<wire::OaepParams> EncodeOaep(flatbuffers::FlatBufferBuilder& fbb,
                                                 const OaepParams& oaep) {
  auto label = EncodeBytes(fbb, oaep.source_data);
  return wire::CreateOaepParams(fbb, oaep.hash_alg, oaep.mgf, oaep.source, label);
}

}  // namespace

flatbuffers::Offset<wire::Mechanism> EncodeMechanism(flatbuffers::FlatBufferBuilder& fbb,
                                                     const Mechanism& mechanism) {
  flatbuffers::Offset<wire::PssParams> pss = 0;
  if (mechanism.pss) {
    pss = wire::CreatePssParams(fbb, mechanism.pss->hash_alg, mechanism.pss->mgf,
                                mechanism.pss->salt_len);
  }
  flatbuffers::Offset<wire::GcmParams> gcm = 0;
  if (mechanism.gcm) {
    auto iv = EncodeBytes(fbb, mechanism.gcm->iv);
    auto aad = EncodeBytes(fbb, mechanism.gcm->aad);
    gcm = wire::CreateGcmParams(fbb, iv, aad, mechanism.gcm->tag_bits);
  }
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> raw = 0;
  if (!mechanism.raw_params.empty()) raw = EncodeBytes(fbb, mechanism.raw_params);
  flatbuffers::Offset<wire::AesCtrParams> ctr = 0;
  if (mechanism.ctr) {
    auto block = EncodeBytes(fbb, mechanism.ctr->counter_block);
    ctr = wire::CreateAesCtrParams(fbb, mechanism.ctr->counter_bits, block);
  }
  flatbuffers::Offset<wire::OaepParams> oaep = 0;
  if (mechanism.oaep) oaep = EncodeOaep(fbb, *mechanism.oaep);
  flatbuffers::Offset<wire::EcdhParams> ecdh = 0;
  if (mechanism.ecdh) {
    auto shared = EncodeBytes(fbb, mechanism.ecdh->shared_data);
    auto peer = EncodeBytes(fbb, mechanism.ecdh->public_data);
    ecdh = wire::CreateEcdhParams(fbb, mechanism.ecdh->kdf, shared, peer);
  }
  flatbuffers::Offset<wire::EddsaParams> eddsa = 0;
  if (mechanism.eddsa) {
    auto context = EncodeBytes(fbb, mechanism.eddsa->context);
    eddsa = wire::CreateEddsaParams(fbb, mechanism.eddsa->prehash, context);
  }
  flatbuffers::Offset<wire::HkdfParams> hkdf = 0;
  if (mechanism.hkdf) {
    const HkdfParams& h = *mechanism.hkdf;
    auto salt = EncodeBytes(fbb, h.salt);
    auto info = EncodeBytes(fbb, h.info);
    hkdf = wire::CreateHkdfParams(fbb, h.extract, h.expand, h.prf_hash, h.salt_type, salt,
                                  h.salt_key, info);
  }
  flatbuffers::Offset<wire::RsaAesWrapParams> rsa_aes = 0;
  if (mechanism.rsa_aes) {
    rsa_aes = wire::CreateRsaAesWrapParams(fbb, mechanism.rsa_aes->aes_key_bits,
                                           EncodeOaep(fbb, mechanism.rsa_aes->oaep));
  }
  flatbuffers::Offset<wire::DerivationData> derivation = 0;
  if (mechanism.derivation) {
    auto iv = EncodeBytes(fbb, mechanism.derivation->iv);
    auto data = EncodeBytes(fbb, mechanism.derivation->data);
    derivation = wire::CreateDerivationData(fbb, iv, data);
  }
  return wire::CreateMechanism(fbb, mechanism.type, pss, gcm, raw, ctr, oaep, mechanism.mac_length,
                               ecdh, eddsa, hkdf, rsa_aes, derivation, mechanism.other_key);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>> EncodeTemplate(
    flatbuffers::FlatBufferBuilder& fbb, const Template& attributes) {
  std::vector<flatbuffers::Offset<wire::Attribute>> offsets;
  offsets.reserve(attributes.size());
  for (const Attribute& attribute : attributes) {
    offsets.push_back(wire::CreateAttribute(fbb, attribute.type, EncodeBytes(fbb, attribute.value)));
  }
  return fbb.CreateVector(offsets);
}

}  // namespace signet::client
