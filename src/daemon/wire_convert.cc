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
  if (const wire::OaepParams* oaep = m->oaep()) {
    OaepParams o{oaep->hash_alg(), oaep->mgf(), oaep->source(), {}};
    auto label = View(oaep->source_data());
    o.source_data.assign(label.begin(), label.end());
    out.oaep = std::move(o);
  }
  return out;
}

}  // namespace signet::daemon
