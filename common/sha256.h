#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace skb::common {

/// Incremental SHA-256 (OpenSSL EVP); hex() finishes it.
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
  evp_md_ctx_st* ctx_;
};

/// Lower-case hex SHA-256 of a byte string.
std::string sha256_hex(std::string_view data);

/// Lower-case hex SHA-256 of a file's contents; throws Error when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace skb::common
