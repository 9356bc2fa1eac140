#include "daemon/wire_convert.h"

#include <string.h>

namespace signet::daemon {

ByteView View(const ByteVector* v) {
  if (v == nullptr) return {};
  return {v->data(), v->size()};
}

WipedTemplate::~WipedTemplate() {
  for (core::Attribute& a : template_) {
    if (!a.value.empty()) explicit_bzero(a.value.data(), a.value.size());  // never NULL (UBSan)
  }
}

WipedTemplate ToTemplate(const AttrVector* v) {
  core::Template out;
  if (v == nullptr) return WipedTemplate(std::move(out));
  out.reserve(v->size());
  for (const wire::Attribute* a : *v) {
    ByteView value = View(a->value());
    out.push_back({a->type(), Bytes(value.begin(), value.end())});
  }
  return WipedTemplate(std::move(out));
}

namespace {

Bytes Copy(const flatbuffers::Vector<std::uint8_t>* v) {
  const ByteView view = View(v);
  return Bytes(view.begin(), view.end());
}

OaepParams ToOaep(const wire::OaepParams& oaep) {
  return OaepParams{oaep.hash_alg(), oaep.mgf(), oaep.source(), Copy(oaep.source_data())};
}

}  // namespace

Mechanism ToMechanism(const wire::Mechanism* m) {
  Mechanism out;
  if (m == nullptr) return out;
  out.type = m->type();
  if (const wire::PssParams* pss = m->pss()) {
    out.pss = PssParams{pss->hash_alg(), pss->mgf(), pss->salt_len()};
  }
  if (const wire::GcmParams* gcm = m->gcm()) {
    GcmParams g;
    auto iv = View(gcm->iv());
    auto aad = View(gcm->aad());
    g.iv.assign(iv.begin(), iv.end());
    g.aad.assign(aad.begin(), aad.end());
    g.tag_bits = gcm->tag_bits();
    out.gcm = std::move(g);
  }
  const ByteView raw = View(m->raw_params());
  out.raw_params.assign(raw.begin(), raw.end());
  if (const wire::AesCtrParams* ctr = m->ctr()) {
    const ByteView block = View(ctr->counter_block());
    out.ctr = AesCtrParams{ctr->counter_bits(), Bytes(block.begin(), block.end())};
  }
  if (const wire::OaepParams* oaep = m->oaep()) out.oaep = ToOaep(*oaep);
  if (m->mac_length()) out.mac_length = *m->mac_length();
  if (const wire::EcdhParams* ecdh = m->ecdh()) {
    out.ecdh = EcdhParams{ecdh->kdf(), Copy(ecdh->shared_data()), Copy(ecdh->public_data())};
  }
  if (const wire::EddsaParams* eddsa = m->eddsa()) {
    out.eddsa = EddsaParams{eddsa->prehash(), Copy(eddsa->context())};
  }
  if (const wire::HkdfParams* h = m->hkdf()) {
    out.hkdf = HkdfParams{h->extract(),    h->expand(),   h->prf_hash(),  h->salt_type(),
                          Copy(h->salt()), h->salt_key(), Copy(h->info())};
  }
  if (const wire::RsaAesWrapParams* w = m->rsa_aes()) {
    out.rsa_aes =
        RsaAesWrapParams{w->aes_key_bits(), w->oaep() ? ToOaep(*w->oaep()) : OaepParams{}};
  }
  if (const wire::DerivationData* d = m->derivation()) {
    out.derivation = DerivationData{Copy(d->iv()), Copy(d->data())};
  }
  if (m->other_key()) out.other_key = *m->other_key();
  return out;
}

static_assert(static_cast<int>(wire::OperationKind::Sign) ==
              static_cast<int>(OperationKind::kSign));
static_assert(static_cast<int>(wire::OperationKind::Verify) ==
              static_cast<int>(OperationKind::kVerify));
static_assert(static_cast<int>(wire::OperationKind::Digest) ==
              static_cast<int>(OperationKind::kDigest));
static_assert(static_cast<int>(wire::OperationKind::Encrypt) ==
              static_cast<int>(OperationKind::kEncrypt));
static_assert(static_cast<int>(wire::OperationKind::Decrypt) ==
              static_cast<int>(OperationKind::kDecrypt));
static_assert(static_cast<std::size_t>(wire::OperationKind::MAX) + 1 == kOperationKindCount);

std::optional<OperationKind> ToOperationKind(wire::OperationKind kind) {
  if (kind > wire::OperationKind::MAX) return std::nullopt;
  return static_cast<OperationKind>(kind);
}

}  // namespace signet::daemon
