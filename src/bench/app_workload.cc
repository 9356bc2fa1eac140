#include "bench/app_workload.h"

#include <array>
#include <chrono>

#include "base/secure_bytes.h"
#include "bench/daemon_keys.h"
#include "crypto/keys.h"
#include "crypto/sign.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

using client::BoolAttribute;
using client::StringAttribute;
using client::UlongAttribute;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kGcmIvBytes = 12;
constexpr std::size_t kRootBytes = 32;  // SHA-256

double Ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

Result<client::Bytes> RandomBytes(std::size_t n) {
  client::Bytes out(n);
  SIGNET_TRY(crypto::FillRandom(out));
  return out;
}

Result<CK_SLOT_ID> FindSlot(client::Client& c, const std::string& token_label) {
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, c.GetInfo());
  for (const auto& s : info.slots) {
    if (s.token_present && (token_label.empty() || s.label == token_label)) return s.slot_id;
  }
  return MakeError(CKR_TOKEN_NOT_PRESENT, token_label.empty()
                                              ? "the daemon has no token"
                                              : "no token labelled '" + token_label + "'");
}

// Mismatch: RunApp prefixes "bench app: " to every error, so none here.
Error Mismatch(const std::string& what) { return MakeError(CKR_GENERAL_ERROR, what); }

const client::Mechanism kSha256{.type = CKM_SHA256};

}  // namespace

AppSession::~AppSession() = default;

Result<std::unique_ptr<AppSession>> AppSession::Open(const std::string& socket,
                                                     const std::string& pin,
                                                     const std::string& token_label) {
  std::unique_ptr<AppSession> s(new AppSession());
  SIGNET_ASSIGN_OR_RETURN(s->client_, client::Client::Connect({.address = socket}));
  SIGNET_ASSIGN_OR_RETURN(CK_SLOT_ID slot, FindSlot(*s->client_, token_label));
  SIGNET_ASSIGN_OR_RETURN(s->session_, s->client_->OpenSession(slot));
  SIGNET_TRY(s->client_->Login(s->session_, CKU_USER, AsBytes(pin)));
  client::Template aes = {UlongAttribute(CKA_VALUE_LEN, 32), BoolAttribute(CKA_TOKEN, false),
                          BoolAttribute(CKA_ENCRYPT, true), BoolAttribute(CKA_DECRYPT, true),
                          StringAttribute(CKA_LABEL, "signet-app-aes")};
  SIGNET_ASSIGN_OR_RETURN(s->aes_key_,
                          s->client_->GenerateKey(s->session_, {.type = CKM_AES_KEY_GEN}, aes));
  return s;
}

Result<client::ServerStats> AppSession::Stats() { return client_->GetStats(); }

Result<FileTimes> AppSession::RunFile(const SignAlgorithm& algo, std::size_t payload_size) {
  SIGNET_ASSIGN_OR_RETURN(TokenMechanism m, TokenMechanismFor(algo));
  const client::Mechanism sign{.type = m.sign};
  const auto [pub_t, priv_t] =
      SigningKeyTemplates(algo, m, "signet-app-file-" + std::to_string(++files_));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes first_version, RandomBytes(kRootBytes));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes payload, RandomBytes(payload_size));
  client::Mechanism gcm{.type = CKM_AES_GCM};
  gcm.gcm = client::GcmParams{};
  SIGNET_ASSIGN_OR_RETURN(gcm.gcm->iv, RandomBytes(kGcmIvBytes));
  client::Client& c = *client_;
  FileTimes t;

  const auto t0 = Clock::now();  // create
  SIGNET_ASSIGN_OR_RETURN(client::KeyPair pair,
                          c.GenerateKeyPair(session_, {.type = m.keygen}, pub_t, priv_t));
  const auto t_key = Clock::now();
  SIGNET_ASSIGN_OR_RETURN(client::Bytes root1, c.Digest(session_, kSha256, first_version));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes sig1, c.Sign(session_, pair.private_key, sign, root1));
  const auto t1 = Clock::now();  // upload
  SIGNET_ASSIGN_OR_RETURN(client::Bytes sealed, c.Encrypt(session_, aes_key_, gcm, payload));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes root, c.Digest(session_, kSha256, sealed));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes sig, c.Sign(session_, pair.private_key, sign, root));
  const auto t2 = Clock::now();  // download
  SIGNET_TRY(c.Verify(session_, pair.public_key, sign, root, sig));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes check_root, c.Digest(session_, kSha256, sealed));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes opened, c.Decrypt(session_, aes_key_, gcm, sealed));
  const auto t3 = Clock::now();

  t.keygen_ms = Ms(t0, t_key);
  t.create_ms = Ms(t0, t1);
  t.upload_ms = Ms(t1, t2);
  t.download_ms = Ms(t2, t3);
  if (check_root != root) return Mismatch("the ciphertext's hash changed between two digests");
  if (opened != payload) return Mismatch("decryption did not return the payload");
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, ReadTokenPublicKey(c, session_, pair.public_key));
  const std::pair<const char*, Status> checks[] = {
      {"the first version's", crypto::Verify(pub, m.verify, root1, sig1)},
      {"the upload's", crypto::Verify(pub, m.verify, root, sig)}};
  for (const auto& check : checks) {
    if (!check.second.ok()) {
      return Mismatch(std::string(check.first) + " signature (" + algo.display +
                      ") failed the client-side check: " + check.second.error().message);
    }
  }
  SIGNET_TRY(c.DestroyObject(session_, pair.private_key));
  SIGNET_TRY(c.DestroyObject(session_, pair.public_key));
  return t;
}

}  // namespace signet::bench
