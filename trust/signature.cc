#include "trust/signature.h"

#include <fmt/format.h>

#include "trust/ed25519_verify.h"

namespace skb::trust {

std::size_t signature_line_size(std::string_view key_name) { return key_name.size() + 1 + 88 + 1; }

bool parse_signature_line(std::string_view line, std::string& key_name, std::string& signature) {
  if (line.empty() || line.back() != '\n') return false;
  line.remove_suffix(1);
  auto colon = line.rfind(':');
  if (colon == std::string_view::npos || !valid_key_name(line.substr(0, colon))) return false;
  std::string bytes;
  if (!base64_decode(line.substr(colon + 1), bytes) || bytes.size() != 64) return false;
  key_name = std::string(line.substr(0, colon));
  signature = std::move(bytes);
  return true;
}

std::string SignatureCheck::describe() const {
  switch (verdict) {
    case Verdict::kTrusted:
      return fmt::format("signed by {} (trusted)", key);
    case Verdict::kUnsigned:
      return "it is unsigned";
    case Verdict::kMalformed:
      return "its signature is malformed";
    case Verdict::kUnknownKey:
      return fmt::format("it is signed by {}, a key that is not trusted", key);
    case Verdict::kBadSignature:
      return fmt::format(
          "its signature by {} does not match its contents under the trusted key of that name (changed after "
          "signing, or signed by another key named {})",
          key, key);
  }
  return "it is unsigned";
}

SignatureCheck check_signature(const TrustedKeys& trusted, std::string_view message,
                               std::optional<std::string_view> signature) {
  SignatureCheck c;
  if (!signature) return c;
  std::string bytes;
  if (!parse_signature_line(*signature, c.key, bytes)) {
    c.verdict = Verdict::kMalformed;
    return c;
  }
  const PublicKey* key = trusted.find(c.key);
  if (!key)
    c.verdict = Verdict::kUnknownKey;
  else
    c.verdict = ed25519_verify(*key, message, bytes) ? Verdict::kTrusted : Verdict::kBadSignature;
  return c;
}

}  // namespace skb::trust
