#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skb::installer {

/// `bytes` gzip-compressed in memory (libarchive's raw format), with no name or time in the
/// header: the same bytes give the same file. Throws common::Error when libarchive fails.
std::string gzip_bytes(std::string_view bytes);

/// The bytes a gzip file holds, unpacked in memory; nothing when `gz` is not gzip, is damaged,
/// unpacks to more than `max` bytes, or to none (libarchive's raw reader sees no entry then).
std::optional<std::string> gunzip_bytes(std::string_view gz, std::size_t max);

}  // namespace skb::installer
