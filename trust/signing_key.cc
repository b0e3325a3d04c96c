#include "trust/key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "trust/openssl_ptr.h"
#include "trust/signature.h"

// What a key's owner does with it (OpenSSL's EVP): make, sign, write and read the private key.
// Apart from key.cc, which parses keys and base64 and goes into the installer too: these would
// bring OpenSSL's initialisation, its engines and the resolver into every .run.
namespace skb::trust {
using common::Error;

namespace {

constexpr std::size_t kMaxKeyFile = 4096;

Pkey private_pkey(const std::array<unsigned char, 32>& seed) {
  init_crypto();
  Pkey k(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()));
  if (!k) throw Error("OpenSSL: cannot make an Ed25519 key");
  return k;
}

}  // namespace

void init_crypto() { OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr); }

SigningKey::~SigningKey() { OPENSSL_cleanse(seed_.data(), seed_.size()); }

PublicKey SigningKey::public_key() const {
  Pkey k = private_pkey(seed_);
  PublicKey p;
  p.name = name_;
  std::size_t n = p.bytes.size();
  if (EVP_PKEY_get_raw_public_key(k.get(), p.bytes.data(), &n) != 1 || n != p.bytes.size())
    throw Error("OpenSSL: cannot derive an Ed25519 public key");
  return p;
}

std::string SigningKey::sign(std::string_view message) const {
  Pkey k = private_pkey(seed_);
  MdCtx ctx(EVP_MD_CTX_new());
  std::string sig(64, '\0');
  std::size_t n = sig.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &n,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      n != 64)
    throw Error("OpenSSL: Ed25519 signing failed");
  return sig;
}

SigningKey generate_signing_key(const std::string& name) {
  if (!valid_key_name(name))
    throw Error(fmt::format("key name '{}': expected 1 to 64 characters of [A-Za-z0-9._@-]", name));
  init_crypto();
  SigningKey key;
  key.name_ = name;
  if (RAND_bytes(key.seed_.data(), static_cast<int>(key.seed_.size())) != 1)
    throw Error("OpenSSL: the system's random source failed");
  return key;
}

SigningKey parse_signing_key(std::string_view text) {
  if (text.substr(0, kPrivateKeyMark.size()) == kPrivateKeyMark) text.remove_prefix(kPrivateKeyMark.size());
  SigningKey key;
  std::string bytes = named_bytes(text, key.seed_.size(), "private key", key.name_);
  std::memcpy(key.seed_.data(), bytes.data(), key.seed_.size());
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return key;
}

void write_signing_key(const std::filesystem::path& file, const SigningKey& key) {
  std::string text = std::string(kPrivateKeyMark) + key.name() + ":" +
                     base64_encode(std::string_view(reinterpret_cast<const char*>(key.seed_.data()), 32)) + "\n";
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", file.string(), std::strerror(errno)));
  bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  OPENSSL_cleanse(text.data(), text.size());
  if (!ok) {
    ::unlink(file.c_str());
    throw Error(fmt::format("{}: cannot write: {}", file.string(), std::strerror(err)));
  }
}

SigningKey read_signing_key(const std::filesystem::path& file) {
  // O_NONBLOCK: a FIFO in its place is refused as not a file, not waited on for ever.
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(fmt::format("{}: cannot open the signing key: {}", file.string(), std::strerror(errno)));
  struct stat st {};
  std::string text(kMaxKeyFile, '\0');
  ssize_t n = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? ::read(fd, text.data(), text.size()) : -1;
  ::close(fd);
  if (n < 0) throw Error(fmt::format("{}: not a readable file", file.string()));
  text.resize(static_cast<std::size_t>(n));
  if ((st.st_mode & 077) != 0) {
    // Without the mark it may be a public line, which chmod would only turn into a wrong key.
    const bool marked = std::string_view(text).substr(0, kPrivateKeyMark.size()) == kPrivateKeyMark;
    OPENSSL_cleanse(text.data(), text.size());
    throw Error(fmt::format("{}: permissions {:04o} are too open for a private key; expected 0600 (chmod 600 {}){}",
                            file.string(), st.st_mode & 07777, file.string(),
                            marked ? ""
                                   : "; or, if it holds a public key line, give the private key's file (its line "
                                     "begins with skb-private-key:)"));
  }
  try {
    SigningKey key = parse_signing_key(text);
    OPENSSL_cleanse(text.data(), text.size());
    return key;
  } catch (const Error& e) {
    OPENSSL_cleanse(text.data(), text.size());
    throw Error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

std::string signature_line(const SigningKey& key, std::string_view message) {
  return key.name() + ":" + base64_encode(key.sign(message)) + "\n";
}

}  // namespace skb::trust
