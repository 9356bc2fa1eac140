// Hsm: opening the data dir, slots, connections and the lookups every
// operation shares (session, object handle, key material).
#include <algorithm>
#include <cstring>
#include <optional>

#include "core/hsm_internal.h"
#include "core/key_policy.h"
#include "crypto/symmetric.h"
#include "keystore/keystore.h"
#include "keystore/slot_ids.h"

namespace signet::core {

CK_ULONG RandomHandle() {
  for (;;) {
    std::uint32_t v = 0;
    std::span<std::uint8_t> out(reinterpret_cast<std::uint8_t*>(&v), sizeof v);
    if (!crypto::FillRandom(out).ok()) continue;  // DRBG failure: retry
    if (v != 0) return v;
  }
}

Result<std::unique_ptr<TokenSlot>> HsmImpl::ServeToken(
    CK_SLOT_ID id, const std::string& location, std::unique_ptr<keystore::Token> token) const {
  TokenPolicy policy = PolicyFor(*token);
  auto slot =
      std::make_unique<TokenSlot>(id, keystore_->FileOf(location), std::move(token), policy);
  if (Status loaded = slot->LoadObjects(); !loaded.ok()) {
    return MakeError(loaded.error().code,
                     "token " + location + ": objects unreadable: " + loaded.error().message);
  }
  return slot;
}

Result<std::unique_ptr<Hsm>> Hsm::Open(HsmOptions options) {
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<HsmImpl> hsm, HsmImpl::Open(std::move(options)));
  return std::unique_ptr<Hsm>(std::move(hsm));
}

Result<std::unique_ptr<HsmImpl>> HsmImpl::Open(HsmOptions options) {
  SIGNET_ASSIGN_OR_RETURN(
      auto keystore, options.keystore_uri.empty()
                         ? keystore::OpenDirectoryKeystore(options.data_dir, options.lock_holder)
                         : keystore::OpenPostgresKeystore(options.keystore_uri));
  SIGNET_ASSIGN_OR_RETURN(auto files, keystore->ListTokens());
  SIGNET_ASSIGN_OR_RETURN(CK_SLOT_ID next_slot_id, keystore->ReadNextSlotId());
  std::unique_ptr<HsmImpl> hsm(new HsmImpl(std::move(options)));
  hsm->keystore_ = std::move(keystore);
  std::optional<Error> first_error;
  auto unavailable = [&](const std::filesystem::path& file, const Error& error) {
    if (!first_error) first_error = error;
    hsm->unavailable_.push_back({file, error.message});
  };
  std::vector<std::pair<std::filesystem::path, std::unique_ptr<keystore::Token>>> tokens;
  std::vector<std::optional<CK_SLOT_ID>> stored_ids;
  for (const auto& file : files) {
    auto token = hsm->keystore_->OpenToken(file, hsm->options_.token_options);
    if (!token.ok()) {
      unavailable(file, token.error());
      continue;
    }
    stored_ids.push_back((*token)->Info().slot_id);
    tokens.emplace_back(file, std::move(*token));
  }
  keystore::SlotIdPlan plan = keystore::PlanSlotIds(stored_ids, next_slot_id);
  std::map<CK_SLOT_ID, std::unique_ptr<TokenSlot>> slots;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    auto& [file, token] = tokens[i];
    const CK_SLOT_ID id = plan.ids[i];
    bool is_new = std::find(plan.new_ids.begin(), plan.new_ids.end(), i) != plan.new_ids.end();
    if (Status stored = is_new ? token->SetSlotId(id) : OkStatus(); !stored.ok()) {
      unavailable(file, stored.error());  // cannot keep its id: not served
      continue;
    }
    auto slot = hsm->ServeToken(id, file.string(), std::move(token));
    if (!slot.ok()) {
      unavailable(file, slot.error());
      continue;
    }
    slots.emplace(id, std::move(*slot));
  }
  if (first_error && (slots.empty() || hsm->options_.strict)) {
    std::string why = slots.empty() ? "no token could be opened: " : "strict: ";
    return MakeError(first_error->code, why + first_error->message);
  }
  if (plan.next != next_slot_id) {
    SIGNET_TRY(hsm->keystore_->WriteNextSlotId(plan.next));
  }
  {
    // No other thread sees the Hsm yet: the locks are uncontended, and keep
    // served_ and slots_ written only under them.
    base::MutexLock init_lock(&hsm->init_mu_);
    hsm->served_.insert(files.begin(), files.end());
    base::WriterMutexLock lock(&hsm->slots_mu_);
    hsm->slots_ = std::move(slots);
    hsm->next_slot_id_ = plan.next;
  }
  return hsm;
}

HsmImpl::HsmImpl(HsmOptions options)
    : options_(std::move(options)),
      throttle_(options_.limits.login_free_failures, options_.limits.login_delay_base,
                options_.limits.login_delay_cap, options_.clock) {}

HsmImpl::~HsmImpl() { StopKeyPool(); }  // its generators look slots up here

void HsmImpl::EnableRsaSplit(Scheduler* pool) { splitter_ = std::make_unique<RsaSplitter>(pool); }

const std::vector<UnavailableToken>& HsmImpl::unavailable_tokens() const { return unavailable_; }

PhaseCounters& HsmImpl::counters() { return counters_; }

std::size_t HsmImpl::open_sessions() const {
  return open_sessions_.load(std::memory_order_relaxed);
}

TokenPolicy HsmImpl::PolicyFor(const keystore::Token& token) const {
  TokenPolicy policy;
  policy.public_rw_compat = options_.public_rw_compat.count(token.Info().serial) != 0;
  policy.max_objects = options_.limits.max_token_objects;
  policy.max_bytes = options_.limits.max_token_bytes;
  return policy;
}

std::shared_ptr<ClientState> HsmImpl::NewClient() {
  return std::make_shared<ClientState>(next_client_id_.fetch_add(1));
}

TokenSlot* HsmImpl::FindSlot(CK_SLOT_ID slot) const {
  base::ReaderMutexLock lock(&slots_mu_);
  auto it = slots_.find(slot);
  return it == slots_.end() ? nullptr : it->second.get();
}

std::vector<TokenSlot*> HsmImpl::AllSlots() const {
  base::ReaderMutexLock lock(&slots_mu_);
  std::vector<TokenSlot*> out;
  for (const auto& [id, slot] : slots_) out.push_back(slot.get());
  return out;
}

Error HsmImpl::MissingSlotError(CK_SLOT_ID slot) const {
  base::ReaderMutexLock lock(&slots_mu_);
  if (slot == next_slot_id_) return MakeError(CKR_TOKEN_NOT_PRESENT, "free slot has no token");
  return MakeError(CKR_SLOT_ID_INVALID, "no such slot");
}

std::vector<SlotDescription> HsmImpl::Slots() const {
  std::vector<SlotDescription> out;
  base::ReaderMutexLock lock(&slots_mu_);
  for (const auto& [id, slot] : slots_) {
    keystore::TokenInfo info = slot->token().Info();
    SlotDescription d;
    d.id = slot->id();
    d.token_present = true;
    d.label = info.label;
    d.serial = info.serial;
    d.flags = CKF_TOKEN_INITIALIZED | CKF_LOGIN_REQUIRED | CKF_RNG;
    if (info.user_pin_initialized) d.flags |= CKF_USER_PIN_INITIALIZED;
    if (info.user_pin_locked) d.flags |= CKF_USER_PIN_LOCKED;
    if (info.so_pin_locked) d.flags |= CKF_SO_PIN_LOCKED;
    if (info.user_pin_failures > 0) d.flags |= CKF_USER_PIN_COUNT_LOW;
    if (info.user_pin_failures + 1 == info.max_pin_failures) d.flags |= CKF_USER_PIN_FINAL_TRY;
    if (info.so_pin_failures > 0) d.flags |= CKF_SO_PIN_COUNT_LOW;
    d.sessions = static_cast<CK_ULONG>(slot->sessions.load());
    d.rw_sessions = static_cast<CK_ULONG>(slot->rw_sessions.load());
    out.push_back(std::move(d));
  }
  SlotDescription free_slot;
  free_slot.id = next_slot_id_;
  out.push_back(free_slot);
  return out;
}

std::vector<TokenActivity> HsmImpl::Tokens() const {
  std::vector<TokenActivity> out;
  base::ReaderMutexLock lock(&slots_mu_);
  for (const auto& [id, slot] : slots_) {
    keystore::TokenInfo info = slot->token().Info();
    TokenActivity t;
    t.slot = slot->id();
    t.serial = info.serial;
    t.label = info.label;
    t.file = slot->file();
    for (std::size_t who = 0; who < 2; ++who) {
      t.logins[who] = slot->logins.ok[who].load(std::memory_order_relaxed);
      t.login_failures[who] = slot->logins.failed[who].load(std::memory_order_relaxed);
      t.lockouts[who] = slot->logins.locked[who].load(std::memory_order_relaxed);
      t.throttled[who] = slot->logins.throttled[who].load(std::memory_order_relaxed);
    }
    out.push_back(std::move(t));
  }
  return out;
}

keystore::CacheStats HsmImpl::CacheTotals() const {
  keystore::CacheStats total;
  base::ReaderMutexLock lock(&slots_mu_);
  for (const auto& [id, slot] : slots_) {
    keystore::CacheStats s = slot->token().cache_stats();
    total.hits += s.hits;
    total.misses += s.misses;
    total.evictions += s.evictions;
    total.size += s.size;
    total.capacity += s.capacity;
  }
  return total;
}

Result<HsmImpl::Resolved> HsmImpl::ResolveSession(ClientState& c, CK_SESSION_HANDLE s) {
  Resolved r;
  {
    base::MutexLock lock(&c.mu);
    auto it = c.sessions.find(s);
    if (it == c.sessions.end()) {
      return MakeError(CKR_SESSION_HANDLE_INVALID, "no such session on this connection");
    }
    r.session = it->second;
    auto login = c.logins.find(r.session.slot);
    if (login != c.logins.end()) {
      r.logged_in_user = login->second == keystore::UserType::kUser;
      r.logged_in_so = login->second == keystore::UserType::kSo;
    }
  }
  r.slot = FindSlot(r.session.slot);
  if (r.slot == nullptr) return MakeError(CKR_SESSION_HANDLE_INVALID, "session's slot is gone");
  return r;
}

Result<HsmImpl::ResolvedObject> HsmImpl::ResolveObject(ClientState& c, const Resolved& r,
                                                       CK_OBJECT_HANDLE o) {
  ResolvedObject out;
  {
    base::MutexLock lock(&c.mu);
    auto it = c.handles.find(o);
    if (it != c.handles.end() && it->second.slot == r.session.slot) {
      out.token_object = it->second.token_object;
      out.token_id = it->second.token_id;
      out.record = it->second.session_record;
    } else if (it != c.handles.end() || !c.stable_handles) {
      return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object on this connection");
    }
  }
  if (!out.token_object && out.record == nullptr) {
    // A stable handle this node has not given out yet: the client had it
    // from another node (docs/SCALING.md).
    std::optional<keystore::ObjectHandle> adopted = AdoptStableHandle(c, r, o);
    if (!adopted) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object on this connection");
    out.token_object = true;
    out.token_id = *adopted;
  }
  if (out.token_object) {
    SIGNET_TRY(r.slot->RefreshObjects());
    out.record = r.slot->Get(out.token_id);
    if (out.record == nullptr) return MakeError(CKR_OBJECT_HANDLE_INVALID, "object was destroyed");
  }
  // Private objects exist for a logged-in user only (PKCS#11 §4.4).
  if (out.record->is_private() && !r.logged_in_user) {
    return MakeError(CKR_OBJECT_HANDLE_INVALID, "private object needs a user login");
  }
  return out;
}

Result<std::shared_ptr<const keystore::UnwrappedKey>> HsmImpl::FetchSecret(
    const Resolved& r, const ResolvedObject& obj) {
  if (!obj.record->has_secret) {
    return MakeError(CKR_KEY_HANDLE_INVALID, "object holds no key material");
  }
  if (!obj.token_object) return obj.record->session_secret;
  bool hit = false;
  std::uint64_t start = NowNs();
  auto key = r.slot->token().FetchKey(obj.token_id, &hit);
  counters_.Add(hit ? Phase::kKeyFetchHit : Phase::kKeyFetchMiss, NowNs() - start);
  return key;
}

namespace {

// EnterTokenHandleLocked makes `h` `c`'s handle for token object `id` of
// `slot` (HandleForToken's new handles, AdoptStableHandle's adopted ones).
void EnterTokenHandleLocked(ClientState& c, CK_SLOT_ID slot, keystore::ObjectHandle id,
                            CK_OBJECT_HANDLE h) REQUIRES(c.mu) {
  HandleEntry entry;
  entry.slot = slot;
  entry.token_object = true;
  entry.token_id = id;
  c.handles.emplace(h, std::move(entry));
  c.token_handles.emplace(std::make_pair(slot, id), h);
}

}  // namespace

CK_OBJECT_HANDLE HsmImpl::HandleForToken(ClientState& c, CK_SLOT_ID slot,
                                         keystore::ObjectHandle id) {
  base::MutexLock lock(&c.mu);
  auto key = std::make_pair(slot, id);
  auto it = c.token_handles.find(key);
  if (it != c.token_handles.end()) return it->second;
  std::optional<CK_OBJECT_HANDLE> stable;
  if (c.stable_handles) stable = c.stable_handles->HandleOf(slot, id);
  // A stable handle already taken (a random one drawn before, 2^-32 odds)
  // falls back to a random one: that object then does not fail over.
  const CK_OBJECT_HANDLE h =
      stable && c.handles.count(*stable) == 0 ? *stable : UnusedHandle(c.handles);
  EnterTokenHandleLocked(c, slot, id, h);
  return h;
}

std::optional<keystore::ObjectHandle> HsmImpl::AdoptStableHandle(ClientState& c, const Resolved& r,
                                                                 CK_OBJECT_HANDLE o) {
  std::optional<std::pair<CK_SLOT_ID, keystore::ObjectHandle>> named;
  {
    base::MutexLock lock(&c.mu);
    if (c.stable_handles) named = c.stable_handles->ObjectOf(o);
  }
  if (!named || named->first != r.session.slot) return std::nullopt;
  // Only an object that exists takes an entry, so a client naming handles
  // at random cannot grow the table past the token's objects.
  if (!r.slot->RefreshObjects().ok() || r.slot->Get(named->second) == nullptr) {
    return std::nullopt;
  }
  base::MutexLock lock(&c.mu);
  if (c.handles.count(o) == 0) EnterTokenHandleLocked(c, named->first, named->second, o);
  return named->second;
}

Status HsmImpl::CheckTokenWrite(const Resolved& r, bool private_object) const {
  if (!r.session.rw) {
    return MakeError(CKR_SESSION_READ_ONLY, "token objects need a read-write session");
  }
  if (r.logged_in_user) return OkStatus();
  if (private_object) return MakeError(CKR_USER_NOT_LOGGED_IN, "private objects need a user login");
  if (r.logged_in_so || r.slot->policy().public_rw_compat) return OkStatus();
  return MakeError(CKR_USER_NOT_LOGGED_IN,
                   "creating, changing or destroying token objects needs a login (signetd "
                   "--public-rw-compat SERIAL allows public R/W sessions, as PKCS#11 does)");
}

Status HsmImpl::CheckMayStore(const Resolved& r, const AttributeMap& attrs) {
  bool priv = BoolOr(attrs, CKA_PRIVATE, false);
  if (BoolOr(attrs, CKA_TOKEN, false)) {
    SIGNET_TRY(CheckTokenWrite(r, priv));
  } else if (priv && !r.logged_in_user) {
    return MakeError(CKR_USER_NOT_LOGGED_IN, "private objects need a user login");
  }
  // §4 footnote 10: only the SO may make an object CKA_TRUSTED (what
  // CKA_WRAP_WITH_TRUSTED keys may be wrapped with).
  if (BoolOr(attrs, CKA_TRUSTED, false) && !r.logged_in_so) {
    return MakeError(CKR_ATTRIBUTE_READ_ONLY, "only the SO may set CKA_TRUSTED");
  }
  return CheckKeyRoles(attrs);
}

Status HsmImpl::CheckSessionObjectRoomLocked(const ClientState& c, std::size_t objects,
                                             std::size_t bytes) const {
  const Limits& limits = options_.limits;
  if (c.session_objects + objects > limits.max_session_objects) {
    return MakeError(CKR_DEVICE_MEMORY, "this connection holds the most session objects allowed (" +
                                            std::to_string(limits.max_session_objects) + ")");
  }
  if (c.session_object_bytes + bytes > limits.max_session_object_bytes) {
    return MakeError(CKR_DEVICE_MEMORY, "this connection's session objects would exceed " +
                                            std::to_string(limits.max_session_object_bytes) +
                                            " bytes");
  }
  return OkStatus();
}

void HsmImpl::ForgetSessionObjectLocked(ClientState& c, const HandleEntry& entry) {
  if (entry.token_object) return;
  c.session_objects -= std::min<std::size_t>(1, c.session_objects);
  c.session_object_bytes -= std::min(entry.bytes, c.session_object_bytes);
}

void HsmImpl::EndLoginLocked(ClientState& c, const TokenSlot& slot) {
  DropMultiPartsLocked(c, 0, slot.id());
  for (auto& [h, session] : c.sessions) {
    if (session.slot == slot.id()) session.context_authorized = false;
  }
  for (auto h = c.handles.begin(); h != c.handles.end();) {
    const HandleEntry& entry = h->second;
    RecordPtr record = entry.token_object ? slot.Get(entry.token_id) : entry.session_record;
    if (entry.slot != slot.id() || (record != nullptr && !record->is_private())) {
      ++h;
      continue;
    }
    if (entry.token_object) c.token_handles.erase({entry.slot, entry.token_id});
    ForgetSessionObjectLocked(c, entry);
    h = c.handles.erase(h);
  }
}

Result<CK_OBJECT_HANDLE> HsmImpl::StoreObject(
    ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, AttributeMap attrs,
    std::shared_ptr<const keystore::UnwrappedKey> secret) {
  SIGNET_TRY(CheckMayStore(r, attrs));
  bool token = BoolOr(attrs, CKA_TOKEN, false);
  if (token) {
    SIGNET_ASSIGN_OR_RETURN(keystore::ObjectHandle id,
                            r.slot->Create(std::move(attrs), secret ? &secret->value : nullptr));
    return HandleForToken(c, r.slot->id(), id);
  }
  std::size_t bytes = ObjectBytes(attrs, secret ? secret->value.size() : 0);
  auto rec = std::make_shared<ObjectRecord>();
  rec->attributes = std::move(attrs);
  rec->has_secret = secret != nullptr;
  rec->session_secret = std::move(secret);
  base::MutexLock lock(&c.mu);
  if (c.sessions.count(s) == 0) return MakeError(CKR_SESSION_HANDLE_INVALID, "session closed");
  SIGNET_TRY(CheckSessionObjectRoomLocked(c, 1, bytes));
  CK_OBJECT_HANDLE h = UnusedHandle(c.handles);
  HandleEntry entry;
  entry.slot = r.slot->id();
  entry.session_record = std::move(rec);
  entry.owner_session = s;
  entry.bytes = bytes;
  c.handles.emplace(h, std::move(entry));
  ++c.session_objects;
  c.session_object_bytes += bytes;
  return h;
}

}  // namespace signet::core
