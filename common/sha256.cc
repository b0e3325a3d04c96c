#include "common/sha256.h"

#include <array>

#define OPENSSL_SUPPRESS_DEPRECATED  // SHA256_*: deprecated in 3.0, not removed; see sha256.h
#include <openssl/sha.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/error.h"

namespace skb::common {

Sha256::Sha256() : ctx_(new SHA256_CTX) {
  if (SHA256_Init(ctx_.get()) != 1) throw Error("OpenSSL: cannot initialise SHA-256");
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) { SHA256_Update(ctx_.get(), data, size); }

std::string Sha256::hex() {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  const unsigned int len = SHA256_DIGEST_LENGTH;
  SHA256_Final(digest, ctx_.get());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex();
}

bool is_sha256_hex(std::string_view s) {  // a table, no branch a digit: called per line of a library
  static constexpr auto kHex = [] {
    std::array<bool, 256> t{};
    for (char c : std::string_view("0123456789abcdef")) t[static_cast<unsigned char>(c)] = true;
    return t;
  }();
  if (s.size() != 64) return false;
  bool all = true;
  for (char c : s) all &= kHex[static_cast<unsigned char>(c)];
  return all;
}

std::string sha256_file(const std::filesystem::path& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    int e = errno;
    throw IoError(fmt::format("{}: cannot open for reading: {}", path.string(), std::strerror(e)));
  }
  Sha256 h;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) h.update(buf, n);
  if (std::ferror(f.get())) {
    int e = errno;
    throw IoError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(e)));
  }
  return h.hex();
}

}  // namespace skb::common
