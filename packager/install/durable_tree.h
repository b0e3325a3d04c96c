#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace skb::installer {

/// How an install makes the files it wrote durable before anything points at them: one syncfs
/// (one journal commit for every file; it also writes every other process's unsynced bytes on
/// that filesystem), or an fsync of each file and folder (many commits, none of others' bytes).
enum class SyncWay { kFilesystem, kEachFile };

/// The bytes the system has not yet written to disk (Dirty + Writeback in /proc/meminfo);
/// nothing when that cannot be read.
std::optional<std::uint64_t> unsynced_bytes();
/// The same from the text of /proc/meminfo; nothing when a field is missing.
std::optional<std::uint64_t> unsynced_bytes(std::string_view meminfo);

/// syncfs, unless others' unsynced bytes (beyond `ours`) would cost it more than a file-by-file
/// sync of `files` would: more than kOthersUnsyncedLimit and more than kOthersBytesPerFile a file.
SyncWay choose_sync_way(std::optional<std::uint64_t> unsynced, std::uint64_t ours, std::size_t files);

/// Others' unsynced bytes below which syncfs is always the way.
inline constexpr std::uint64_t kOthersUnsyncedLimit = std::uint64_t{64} << 20;
/// What a file synced on its own costs, in others' bytes that syncfs would write in that time.
/// Measured with 1 GiB of another process pending: a 300-kernel install (about 900 files and
/// folders) took 0.57 s with syncfs and 0.14 s file by file, 8 at a time; a 3,000-kernel one
/// (9,000) 0.84 s with syncfs and 1.25 s file by file (0.62 to 0.72 s with nothing pending).
inline constexpr std::uint64_t kOthersBytesPerFile = std::uint64_t{256} << 10;

/// What sync_tree did: the way, others' unsynced bytes it saw, what it synced file by file.
struct TreeSync {
  SyncWay way = SyncWay::kFilesystem;
  std::optional<dev_t> filesystem;  // kFilesystem: the st_dev of the filesystem synced whole
  std::uint64_t others_unsynced = 0;
  std::size_t paths = 0;  // files and folders fsynced (kEachFile)
};

/// Makes every file and folder below root durable, the way choose_sync_way picks for `ours`
/// bytes in about `files` files written there. Throws Error naming what could not be synced.
TreeSync sync_tree(const std::filesystem::path& root, std::uint64_t ours, std::size_t files);

/// The file-by-file way: fsync of every regular file and folder below root (root included),
/// several at a time; returns how many. Throws Error naming the first that fails.
std::size_t sync_each_file(const std::filesystem::path& root);

}  // namespace skb::installer
