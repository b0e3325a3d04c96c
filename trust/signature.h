#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "trust/key.h"
#include "trust/trusted_keys.h"

namespace skb::trust {

/// A signature as it travels: `<key name>:<base64 of the 64-byte Ed25519 signature>` and a
/// newline. message must start with a label of what is signed (e.g. "skb-store-entry-v1\n"), so
/// that a signature of one kind of thing never stands for another.
std::string signature_line(const SigningKey& key, std::string_view message);

/// The length of signature_line for a key of that name.
std::size_t signature_line_size(std::string_view key_name);

enum class Verdict {
  kTrusted,       // a trusted key signed exactly this message
  kUnsigned,      // no signature
  kMalformed,     // not a signature line
  kUnknownKey,    // signed by a key that is not trusted
  kBadSignature,  // the key is trusted, the signature is not of this message
};

struct SignatureCheck {
  Verdict verdict = Verdict::kUnsigned;
  std::string key;  // the signer's name as the signature gives it (empty when unsigned/malformed)
  bool trusted() const { return verdict == Verdict::kTrusted; }
  /// For people, a clause: "signed by ci-2024 (trusted)", "it is unsigned", "it is signed by
  /// dev-x, a key that is not trusted", "its signature by ci-2024 does not match its contents"...
  std::string describe() const;
};

/// Checks a signature line against the trusted keys. Any bytes give an answer, never an exception.
SignatureCheck check_signature(const TrustedKeys& trusted, std::string_view message,
                               std::optional<std::string_view> signature);

/// The signer's name and signature bytes of a line; false when it is not a signature line.
bool parse_signature_line(std::string_view line, std::string& key_name, std::string& signature);

}  // namespace skb::trust
