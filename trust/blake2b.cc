#include "trust/blake2b.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/evp.h>

#include "common/error.h"

namespace skb::trust {

std::string blake2b512_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_blake2b512(), nullptr) != 1)
    throw common::Error("OpenSSL could not compute a BLAKE2b-512 hash");
  return fmt::format("{:02x}", fmt::join(md, md + n, ""));
}

}  // namespace skb::trust
