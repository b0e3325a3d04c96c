#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <string_view>

namespace skb::trust {

/// An Ed25519 public key with its name, as people paste it into a trust file:
/// `<name>:<base64 of the 32 raw bytes>` (the form Nix's trusted-public-keys use).
struct PublicKey {
  std::string name;
  std::array<unsigned char, 32> bytes{};
  /// The one-line form.
  std::string line() const;
  bool operator==(const PublicKey& o) const { return name == o.name && bytes == o.bytes; }
};

/// An Ed25519 private key with its name. Its bytes never leave this object but through
/// write_signing_key; nothing prints them.
class SigningKey {
 public:
  SigningKey() = default;
  SigningKey(const SigningKey&) = default;
  SigningKey& operator=(const SigningKey&) = default;
  ~SigningKey();
  const std::string& name() const { return name_; }
  PublicKey public_key() const;
  /// The 64-byte Ed25519 signature of a message.
  std::string sign(std::string_view message) const;

 private:
  friend SigningKey generate_signing_key(const std::string& name);
  friend SigningKey parse_signing_key(std::string_view text);
  friend void write_signing_key(const std::filesystem::path& file, const SigningKey& key);
  std::string name_;
  std::array<unsigned char, 32> seed_{};
};

/// A character a key name may hold: [A-Za-z0-9._@-].
bool valid_key_name_char(char c);

/// A key name: 1 to 64 characters of [A-Za-z0-9._@-] (it is shown, and written into trust files).
bool valid_key_name(std::string_view name);

/// `<name>:<base64>` split at its last colon, the name checked, the base64 decoded into exactly n
/// bytes; throws common::Error naming `what` (never quoting the bytes).
std::string named_bytes(std::string_view line, std::size_t n, const char* what, std::string& name);

/// A new key pair from the system's random source (OpenSSL). Throws common::Error.
SigningKey generate_signing_key(const std::string& name);

/// A public key line `<name>:<base64>`; throws common::Error saying what is wrong (never echoing
/// more than the name).
PublicKey parse_public_key(std::string_view line);

/// What begins a private key file's line, so that it is never taken for a public line (a trust
/// file refuses it) nor a public line for it.
inline constexpr std::string_view kPrivateKeyMark = "skb-private-key:";

/// A private key file's text (`skb-private-key:<name>:<base64 of the 32-byte seed>` and a
/// newline; without the mark, as skb 0.1 wrote them, too); throws common::Error without quoting
/// the text.
SigningKey parse_signing_key(std::string_view text);

/// Writes a private key file, created 0600 and never over an existing file. Throws common::Error.
void write_signing_key(const std::filesystem::path& file, const SigningKey& key);

/// Reads a private key file. It must be a regular file that only its owner may read or write
/// (as ssh requires of its keys). Throws common::Error naming the file.
SigningKey read_signing_key(const std::filesystem::path& file);

/// Defined in signing_key.cc, which the installer does not link: generate_signing_key,
/// parse_signing_key, write_signing_key, read_signing_key, SigningKey's members, init_crypto,
/// and signature.h's signature_line.
/// Initializes OpenSSL for skb's keys, once, before any other use of it in this process:
/// without reading the system's openssl.cnf (2 ms of every process that verifies a signature,
/// and nothing an Ed25519 check needs). A no-op when something else (libcurl) came first.
void init_crypto();

/// Standard base64 (OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock); decode returns false for
/// anything that is not canonical base64.
std::string base64_encode(std::string_view bytes);
bool base64_decode(std::string_view text, std::string& bytes);

}  // namespace skb::trust
