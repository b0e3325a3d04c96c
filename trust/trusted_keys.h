#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trust/key.h"

namespace skb::trust {

/// The public keys a reader trusts. Several at once (a key rotation); a key that is not in the
/// set is not trusted (a revocation is a line removed).
struct TrustedKeys {
  std::vector<PublicKey> keys;
  std::string source;  // where the set came from, as shown to people
  /// The key of that name, or nullptr.
  const PublicKey* find(std::string_view name) const;
  /// Adds a key; throws common::Error when the set has another key of the same name.
  void add(const PublicKey& key);
};

/// A trust file: one public key line (`<name>:<base64>`) per line; blank lines and lines that
/// start with '#' are skipped. Throws common::Error as `<source>:<line>: <what>`. Untrusted
/// bytes: any text gives a set or that error.
TrustedKeys parse_trusted_keys(const std::string& source, std::string_view text);

/// Reads and parses a trust file (at most 1 MiB). Throws common::Error naming the file.
TrustedKeys read_trusted_keys(const std::filesystem::path& file);

}  // namespace skb::trust
