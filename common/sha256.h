#pragma once
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

struct SHA256state_st;

namespace skb::common {

/// Incremental SHA-256 (OpenSSL's SHA256_* functions: the same assembly as EVP, without the
/// provider machinery that would triple the size of the static installer); hex() finishes it.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  std::string hex();

 private:
  std::unique_ptr<SHA256state_st> ctx_;
};

/// Lower-case hex SHA-256 of a byte string.
std::string sha256_hex(std::string_view data);

/// Whether s is written as sha256_hex writes a hash: 64 lower-case hex digits.
bool is_sha256_hex(std::string_view s);

/// Lower-case hex SHA-256 of a file's contents; throws Error when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace skb::common
