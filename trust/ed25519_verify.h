#pragma once
#include <string_view>

#include "trust/key.h"

namespace skb::trust {

/// True when `signature` is key's Ed25519 signature (RFC 8032, 64 bytes) of exactly `message`.
/// Built twice: with OpenSSL for the programs (ed25519_verify_openssl.cc), and with libsodium for
/// the statically linked installer inside every .run (ed25519_verify_sodium.cc), where OpenSSL's
/// EVP verify would bring its provider tables: 3.2 MiB of the installer's 5.9.
bool ed25519_verify(const PublicKey& key, std::string_view message, std::string_view signature);

}  // namespace skb::trust
