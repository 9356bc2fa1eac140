#include "client/encode.h"

namespace signet::client {

flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> EncodeBytes(
    flatbuffers::FlatBufferBuilder& fbb, ByteView bytes) {
  return fbb.CreateVector(bytes.data(), bytes.size());
}

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
  if (mechanism.oaep) {
    auto label = EncodeBytes(fbb, mechanism.oaep->source_data);
    oaep = wire::CreateOaepParams(fbb, mechanism.oaep->hash_alg, mechanism.oaep->mgf,
                                  mechanism.oaep->source, label);
  }
  return wire::CreateMechanism(fbb, mechanism.type, pss, gcm, raw, ctr, oaep);
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
