#include "packager/install/durable_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/fs.h"
#include "common/text.h"

namespace skb::installer {
namespace fs = std::filesystem;
using common::Error;

namespace {

// fsyncs at once: each waits for a journal commit, and concurrent ones share commits.
constexpr unsigned kSyncThreads = 8;

// "Dirty:     1234 kB" -> bytes; nothing when the line is missing.
std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key) {
  for (std::string_view line : common::lines(text)) {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') continue;
    std::size_t digits = line.find_first_not_of(' ', key.size() + 1);
    if (digits == std::string_view::npos) return std::nullopt;
    std::uint64_t kib = 0;
    auto [ptr, ec] = std::from_chars(line.data() + digits, line.data() + line.size(), kib);
    if (ec != std::errc()) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

void fsync_path(const fs::path& p, bool dir) {
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  if (fd < 0) throw Error(fmt::format("{}: cannot open to sync: {}", p.string(), std::strerror(errno)));
  int rc = ::fsync(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0) throw Error(fmt::format("{}: cannot sync: {}", p.string(), std::strerror(e)));
}

// The unsynced bytes that are not ours (none when they are unknown).
std::uint64_t others_unsynced(std::optional<std::uint64_t> unsynced, std::uint64_t ours) {
  return unsynced && *unsynced > ours ? *unsynced - ours : 0;
}

}  // namespace

std::optional<std::uint64_t> unsynced_bytes() {
  std::optional<std::string> text;
  try {
    text = common::read_file_if_exists("/proc/meminfo", 1 << 20);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  return unsynced_bytes(*text);
}

std::optional<std::uint64_t> unsynced_bytes(std::string_view meminfo) {
  std::optional<std::uint64_t> dirty = meminfo_bytes(meminfo, "Dirty");
  std::optional<std::uint64_t> writeback = meminfo_bytes(meminfo, "Writeback");
  if (!dirty || !writeback) return std::nullopt;
  return *dirty + *writeback;
}

SyncWay choose_sync_way(std::optional<std::uint64_t> unsynced, std::uint64_t ours, std::size_t files) {
  std::uint64_t others = others_unsynced(unsynced, ours);
  return others > kOthersUnsyncedLimit && others / kOthersBytesPerFile > files ? SyncWay::kEachFile
                                                                               : SyncWay::kFilesystem;
}

std::size_t sync_each_file(const fs::path& root) {
  std::vector<std::pair<fs::path, bool>> paths{{root, true}};  // (path, is a folder)
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  if (ec) throw Error(fmt::format("{}: cannot list to sync: {}", root.string(), ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) throw Error(fmt::format("{}: cannot list to sync: {}", root.string(), ec.message()));
    fs::file_status st = it->symlink_status(ec);
    if (ec) throw Error(fmt::format("{}: cannot sync: {}", it->path().string(), ec.message()));
    if (fs::is_directory(st) || fs::is_regular_file(st)) paths.emplace_back(it->path(), fs::is_directory(st));
  }
  if (ec) throw Error(fmt::format("{}: cannot list to sync: {}", root.string(), ec.message()));

  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < paths.size();) {
      try {
        fsync_path(paths[i].first, paths[i].second);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = paths.size();
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < kSyncThreads && t < paths.size(); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return paths.size();
}

TreeSync sync_tree(const fs::path& root, std::uint64_t ours, std::size_t files) {
  std::optional<std::uint64_t> unsynced = unsynced_bytes();
  TreeSync done;
  done.way = choose_sync_way(unsynced, ours, files);
  done.others_unsynced = others_unsynced(unsynced, ours);
  if (done.way == SyncWay::kEachFile) {
    done.paths = sync_each_file(root);
    return done;
  }
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open to sync: {}", root.string(), std::strerror(errno)));
  struct stat st;
  int rc = ::fstat(fd, &st) != 0 ? -1 : ::syncfs(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0) throw Error(fmt::format("{}: cannot sync: {}", root.string(), std::strerror(e)));
  done.filesystem = st.st_dev;
  return done;
}

}  // namespace skb::installer
