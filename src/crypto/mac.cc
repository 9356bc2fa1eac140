#include "crypto/mac.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "crypto/ossl_error.h"

namespace signet::crypto {
namespace {

constexpr std::size_t kCmacSize = 16;     // the AES block
constexpr std::size_t kDes3CmacSize = 8;  // the DES block

// FetchedMacs: the EVP_MAC algorithms, fetched once per process
// (docs/DESIGN.md "Crypto").
struct FetchedMacs {
  EvpMacPtr hmac{EVP_MAC_fetch(nullptr, "HMAC", nullptr)};
  EvpMacPtr cmac{EVP_MAC_fetch(nullptr, "CMAC", nullptr)};
};

const FetchedMacs& Fetched() {
  static const FetchedMacs fetched;
  return fetched;
}

// CmacCipher: the CBC cipher CMAC runs for a key of `key_size` bytes:
// AES, or triple DES for kDes3Cmac.
const char* CmacCipher(MacKind kind, std::size_t key_size) {
  if (kind == MacKind::kDes3Cmac) {
    return key_size == 16 ? "DES-EDE-CBC" : key_size == 24 ? "DES-EDE3-CBC" : nullptr;
  }
  switch (key_size) {
    case 16:
      return "AES-128-CBC";
    case 24:
      return "AES-192-CBC";
    case 32:
      return "AES-256-CBC";
    default:
      return nullptr;
  }
}

}  // namespace

std::size_t MacSize(const MacAlg& alg) {
  switch (alg.kind) {
    case MacKind::kCmac:
      return kCmacSize;
    case MacKind::kDes3Cmac:
      return kDes3CmacSize;
    case MacKind::kHmac:
      break;
  }
  return FactsOf(alg.digest).size;
}

Result<MacStream> MacStream::Start(const MacAlg& alg, ByteView key) {
  const EVP_MAC* mac = nullptr;
  OSSL_PARAM params[2] = {OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end()};
  if (alg.kind == MacKind::kHmac) {
    const std::string_view name = FactsOf(alg.digest).openssl_name;
    if (name.empty()) return MakeError(CKR_MECHANISM_INVALID, "HMAC needs a hash");
    if (key.empty()) return MakeError(CKR_KEY_SIZE_RANGE, "an HMAC key has at least one byte");
    // openssl_name views a string literal: NUL-terminated.
    params[0] =
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>(name.data()), 0);
    mac = Fetched().hmac.get();
  } else {
    const char* cipher = CmacCipher(alg.kind, key.size());
    if (cipher == nullptr) {
      return MakeError(CKR_KEY_SIZE_RANGE, alg.kind == MacKind::kCmac
                                               ? "AES-CMAC keys are 16, 24 or 32 bytes"
                                               : "triple-DES CMAC keys are 16 or 24 bytes");
    }
    params[0] =
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher), 0);
    mac = Fetched().cmac.get();
  }
  if (mac == nullptr) return MakeError(CKR_MECHANISM_INVALID, "MAC algorithm unavailable");
  EvpMacCtxPtr ctx(EVP_MAC_CTX_new(const_cast<EVP_MAC*>(mac)));
  if (!ctx) return internal::OsslError(CKR_HOST_MEMORY, "EVP_MAC_CTX_new");
  if (EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_MAC_init");
  }
  const std::size_t size = EVP_MAC_CTX_get_mac_size(ctx.get());
  if (size != MacSize(alg)) return MakeError(CKR_FUNCTION_FAILED, "unexpected MAC size");
  return MacStream(std::move(ctx), size);
}

Status MacStream::Update(ByteView data) {
  if (!ctx_) return MakeError(CKR_OPERATION_NOT_INITIALIZED, "the MAC is finished");
  if (data.empty()) return OkStatus();
  if (EVP_MAC_update(ctx_.get(), data.data(), data.size()) != 1) {
    ctx_.reset();
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_MAC_update");
  }
  return OkStatus();
}

Result<SecureBytes> MacStream::Finish() {
  if (!ctx_) return MakeError(CKR_OPERATION_NOT_INITIALIZED, "the MAC is finished");
  EvpMacCtxPtr ctx = std::move(ctx_);
  SecureBytes out(size_);
  std::size_t written = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &written, out.size()) != 1 || written != size_) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_MAC_final");
  }
  return out;
}

Result<SecureBytes> Mac(const MacAlg& alg, ByteView key, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(MacStream stream, MacStream::Start(alg, key));
  SIGNET_TRY(stream.Update(data));
  return stream.Finish();
}

namespace {

class MacPart final : public MultiPart {
 public:
  explicit MacPart(MacStream stream) : stream_(std::move(stream)) {}
  Result<SecureBytes> Update(ByteView part) override {
    SIGNET_TRY(stream_.Update(part));
    return SecureBytes{};
  }
  Result<SecureBytes> Finish() override { return stream_.Finish(); }

 private:
  MacStream stream_;
};

}  // namespace

std::unique_ptr<MultiPart> AsMultiPart(MacStream stream) {
  return std::make_unique<MacPart>(std::move(stream));
}

}  // namespace signet::crypto
