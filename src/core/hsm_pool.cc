// Hsm: key pairs from the key pool (key_pool.h).
//
// Token key pairs (both halves CKA_TOKEN true) are made in ONE keystore
// transaction that removes the pool entry and inserts both objects, so a
// crash never loses or duplicates one. Any other pair (session keys, or a
// mixed pair) claims the entry unwrapped and stores it exactly as a freshly
// generated key (StoreGeneratedKeyPair): session keys live in memory only,
// which is as safe as a fresh session key. Either way the attributes come
// from CompleteKeyPairAttributes, the same function fresh keys go through,
// so CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALWAYS_SENSITIVE and
// CKA_NEVER_EXTRACTABLE match a fresh key's.
#include "core/hsm_internal.h"
#include "core/key_pair_attributes.h"
#include "core/key_pool.h"

namespace signet::core {

void HsmImpl::StartKeyPool(KeyPool::Options options) {
  StopKeyPool();
  auto pool = std::make_shared<KeyPool>([this] { return AllSlots(); }, std::move(options));
  base::MutexLock lock(&pool_mu_);
  key_pool_ = std::move(pool);
}

void HsmImpl::StopKeyPool() {
  std::shared_ptr<KeyPool> pool;
  {
    base::MutexLock lock(&pool_mu_);
    pool.swap(key_pool_);
  }
  if (pool) pool->Stop();  // outside pool_mu_: joins the generator threads
}

std::shared_ptr<KeyPool> HsmImpl::key_pool() const {
  base::MutexLock lock(&pool_mu_);
  return key_pool_;
}

namespace {

using KeyPairHandles = std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>;

// Fallback: a pool that cannot serve without the KEK leaves the request to
// fresh generation, whose own checks answer it.
bool FallBackToFresh(const Error& error) { return error.code == CKR_USER_NOT_LOGGED_IN; }

}  // namespace

Result<std::optional<KeyPairHandles>> HsmImpl::GenerateKeyPairFromPool(
    ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, const crypto::KeySpec& spec,
    CK_MECHANISM_TYPE mechanism, const AttributeMap& pub, const AttributeMap& priv,
    const Bytes* unique_label) {
  std::shared_ptr<KeyPool> pool = key_pool();
  const PoolTarget* target = pool ? pool->Find(spec) : nullptr;
  if (target == nullptr) return std::optional<KeyPairHandles>();

  bool token_pair = BoolOr(pub, CKA_TOKEN, false) && BoolOr(priv, CKA_TOKEN, false);
  if (token_pair) {
    // StoreObject's rule for the public half, checked here because the
    // keystore inserts both halves itself.
    if (BoolOr(pub, CKA_PRIVATE, false) && !r.logged_in_user) {
      return MakeError(CKR_USER_NOT_LOGGED_IN, "private objects need a user login");
    }
    auto build =
        [&](const AttributeMap& pool_public) -> Result<std::pair<AttributeMap, AttributeMap>> {
      AttributeMap final_pub = pub;
      AttributeMap final_priv = priv;
      CompleteKeyPairAttributes(pool_public, mechanism, final_pub, final_priv);
      return std::make_pair(std::move(final_priv), std::move(final_pub));
    };
    auto take = r.slot->TakePoolKey(target->name, build, unique_label);
    if (!take.ok()) {
      if (FallBackToFresh(take.error())) return std::optional<KeyPairHandles>();
      return std::move(take).error();
    }
    if (!take->has_value()) {
      pool->RecordMiss(target->name);
      return std::optional<KeyPairHandles>();
    }
    pool->RecordTake(r.slot->id(), target->name);
    CK_OBJECT_HANDLE pub_h = HandleForToken(c, r.slot->id(), (*take)->public_handle);
    CK_OBJECT_HANDLE priv_h = HandleForToken(c, r.slot->id(), (*take)->private_handle);
    return std::optional<KeyPairHandles>(std::make_pair(pub_h, priv_h));
  }

  auto claimed = r.slot->token().ClaimPoolKey(target->name);
  if (!claimed.ok()) {
    if (FallBackToFresh(claimed.error())) return std::optional<KeyPairHandles>();
    return std::move(claimed).error();
  }
  if (!claimed->has_value()) {
    pool->RecordMiss(target->name);
    return std::optional<KeyPairHandles>();
  }
  pool->RecordTake(r.slot->id(), target->name);
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key,
                          crypto::PrivateKey::FromPkcs8Der((*claimed)->private_der));
  SIGNET_ASSIGN_OR_RETURN(
      KeyPairHandles handles,
      StoreGeneratedKeyPair(c, s, r, mechanism, std::move(key), pub, priv, unique_label));
  return std::optional<KeyPairHandles>(handles);
}

}  // namespace signet::core
