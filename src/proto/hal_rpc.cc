#include "proto/hal_rpc.h"

namespace signet::proto::hal {

const char* OpcodeName(std::uint32_t opcode) {
  static constexpr const char* kNames[kOpcodeCount] = {
      "get_version",
      "get_random",
      "set_pin",
      "login",
      "logout",
      "logout_all",
      "is_logged_in",
      "hash_get_digest_length",
      "hash_get_digest_algorithm_id",
      "hash_get_algorithm",
      "hash_initialize",
      "hash_update",
      "hash_finalize",
      "pkey_load",
      "pkey_open",
      "pkey_generate_rsa",
      "pkey_generate_ec",
      "pkey_close",
      "pkey_delete",
      "pkey_get_key_type",
      "pkey_get_key_flags",
      "pkey_get_public_key_len",
      "pkey_get_public_key",
      "pkey_sign",
      "pkey_verify",
      "pkey_match",
      "pkey_get_key_curve",
      "pkey_set_attributes",
      "pkey_get_attributes",
      "pkey_export",
      "pkey_import",
      "pkey_generate_hashsig",
  };
  return opcode < kOpcodeCount ? kNames[opcode] : "unknown";
}

}  // namespace signet::proto::hal
