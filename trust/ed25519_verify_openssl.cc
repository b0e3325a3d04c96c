#include <openssl/evp.h>

#include "trust/ed25519_verify.h"
#include "trust/openssl_ptr.h"

namespace skb::trust {

bool ed25519_verify(const PublicKey& key, std::string_view message, std::string_view signature) {
  init_crypto();
  Pkey k(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.bytes.data(), key.bytes.size()));
  MdCtx ctx(EVP_MD_CTX_new());
  return k && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
}

}  // namespace skb::trust
