#include "trust/key.h"

#include <openssl/evp.h>

#include <fmt/format.h>
#include <cctype>
#include <cstring>

#include "common/error.h"

namespace skb::trust {
using common::Error;

std::string named_bytes(std::string_view line, std::size_t n, const char* what, std::string& name) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  auto colon = line.rfind(':');
  if (colon == std::string_view::npos) throw Error(fmt::format("{}: expected <name>:<base64>", what));
  name = std::string(line.substr(0, colon));
  if (!valid_key_name(name))
    throw Error(fmt::format("{}: the name before ':' must be 1 to 64 characters of [A-Za-z0-9._@-]", what));
  std::string bytes;
  if (!base64_decode(line.substr(colon + 1), bytes) || bytes.size() != n)
    throw Error(fmt::format("{} '{}': expected {} bytes in base64 after the name", what, name, n));
  return bytes;
}

bool valid_key_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '@' || c == '-';
}

bool valid_key_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!valid_key_name_char(c)) return false;
  return true;
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

bool base64_decode(std::string_view text, std::string& bytes) {
  if (text.empty() || text.size() % 4 != 0 || text.size() > (1u << 20)) return false;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return false;
  std::size_t pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : text.back() == '=' ? 1 : 0;
  out.resize(static_cast<std::size_t>(n) - pad);
  if (base64_encode(out) != text) return false;  // canonical only: one text per byte string
  bytes = std::move(out);
  return true;
}

std::string PublicKey::line() const {
  return name + ":" + base64_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

PublicKey parse_public_key(std::string_view line) {
  if (line.substr(0, kPrivateKeyMark.size()) == kPrivateKeyMark)
    throw Error(
        "a private key, not a public line: never hand it out; its public line is what "
        "`skb key public FILE` prints");
  PublicKey p;
  std::string bytes = named_bytes(line, p.bytes.size(), "public key", p.name);
  std::memcpy(p.bytes.data(), bytes.data(), p.bytes.size());
  return p;
}

}  // namespace skb::trust
