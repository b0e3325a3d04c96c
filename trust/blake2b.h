#pragma once
#include <string>
#include <string_view>

namespace skb::trust {

/// BLAKE2b-512 of bytes in lower-case hex, as coreutils' b2sum prints it (OpenSSL's). A .run's
/// header carries that of its installer: the stub checks the library's copy with b2sum.
std::string blake2b512_hex(std::string_view bytes);

}  // namespace skb::trust
