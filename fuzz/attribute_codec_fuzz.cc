// attribute_codec_fuzz: keystore::DecodeAttributes (src/keystore/
// attribute_codec.h) on arbitrary bytes, as read from a damaged or hostile
// token file. The format is canonical (ascending types, no repeats, no
// trailing bytes), so whatever decodes must encode back to the same bytes,
// and a failure must be CKR_DEVICE_ERROR (a corrupt row), nothing else.
#include <algorithm>

#include "fuzz_target.h"
#include "keystore/attribute_codec.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace signet::keystore;
  using signet::ByteView;
  using signet::Bytes;
  using signet::Result;
  Result<AttributeMap> decoded = DecodeAttributes(ByteView(data, size));
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded.error().code == CKR_DEVICE_ERROR);
    return 0;
  }
  for (const auto& [type, value] : *decoded) {
    std::optional<CK_ULONG> number = FindUlong(*decoded, type);
    FUZZ_CHECK(number.has_value() == (value.size() == sizeof(CK_ULONG)));
    if (number) FUZZ_CHECK(signet::UlongBytes(*number) == value);
  }
  Result<Bytes> encoded = EncodeAttributes(*decoded);
  FUZZ_CHECK(encoded.ok());
  FUZZ_CHECK(encoded->size() == size && std::equal(encoded->begin(), encoded->end(), data));
  return 0;
}
