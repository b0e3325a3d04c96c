#include <sodium.h>

#include "trust/ed25519_verify.h"

namespace skb::trust {

bool ed25519_verify(const PublicKey& key, std::string_view message, std::string_view signature) {
  static_assert(sizeof key.bytes == crypto_sign_PUBLICKEYBYTES);
  if (signature.size() != crypto_sign_BYTES || sodium_init() < 0) return false;
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature.data()),
                                     reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                                     key.bytes.data()) == 0;
}

}  // namespace skb::trust
