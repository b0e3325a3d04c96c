// The file store: a local or mounted folder of entries, <root>/<shard>/<key>, each written
// beside its final name and renamed into place, so a reader opens a whole old or a whole new
// entry. With a size cap, every shard (16, by the first hex digit of the key's sha256) keeps
// its byte count in <shard>/size under an flock of <shard>/lock; when the counts add up to more
// than the cap, the store's least recently used entries (the mtime, which a hit renews) go,
// every shard locked in one order (shards.h).
//
// A claim is <root>/claims/<key>, created with O_EXCL (atomic on a local disk and on NFS v3 and
// later), holding the claimant's token and its lease; its mtime is when it was taken or last
// renewed, so it lapses `lease` after that (the builders' clocks must agree to well within a
// lease). A lapsed claim is taken over by renaming it aside first: of several builders that
// find it lapsed, one rename succeeds.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <vector>

#include "common/error.h"
#include "common/file_lock.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "store/file_layout.h"
#include "store/shards.h"
#include "store/store.h"

namespace skb::store {
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxEntry = std::uint64_t(1) << 30;
constexpr unsigned kMode = 0644;  // a shard's lock and count files, which every builder of a shared store reads

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail(const std::string& what, const fs::path& path, int err) {
  throw StoreError(fmt::format("{} {}: {}", what, path.string(), std::strerror(err)));
}

class FileStore : public Store {
 public:
  FileStore(fs::path root, std::uint64_t max_size, bool read_only)
      : root_(std::move(root)), max_size_(max_size), read_only_(read_only) {}

  std::optional<std::string> get(const std::string& key) override {
    fs::path path = entry_path(key);
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
      fail("cannot open", path, errno);
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) fail("cannot stat", path, errno);
    if (static_cast<std::uint64_t>(st.st_size) > kMaxEntry) throw StoreError(path.string() + ": larger than 1 GiB");
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < data.size()) {
      ssize_t n = ::read(f.fd, data.data() + got, data.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("cannot read", path, errno);
      if (n == 0) break;  // shorter than it was: the entry's own checks reject it
      got += static_cast<std::size_t>(n);
    }
    data.resize(got);
    if (!read_only_) ::futimens(f.fd, nullptr);  // recently used (a read-only mount refuses: no harm)
    return data;
  }

  void put(const std::string& key, const std::string& value) override {
    fs::path path = entry_path(key);
    fs::path shard = path.parent_path();
    std::error_code ec;
    fs::create_directories(shard, ec);
    if (ec) fail("cannot create", shard, ec.value());
    if (max_size_ == 0) return write(path, value);
    {
      std::optional<ShardLock> lock;
      try {
        lock.emplace(shard, kMode);
        struct stat old {};
        std::uint64_t old_size = ::stat(path.c_str(), &old) == 0 ? static_cast<std::uint64_t>(old.st_size) : 0;
        write(path, value);
        std::uint64_t total = read_shard_size(shard) + value.size();
        write_shard_size(shard, total > old_size ? total - old_size : 0, kMode);
      } catch (const common::Error& e) {  // a StoreError (of write) is no common::Error: it goes as it is
        throw StoreError(e.what());
      }
    }
    // Past the cap, the whole store's least recently used entries go (this one last), to 90%
    // of the cap, so that a store somewhat over it is not swept at every entry.
    if (recorded_size(root_) <= max_size_) return;
    Eviction done;
    try {
      done = evict_lru(root_, std::nullopt, max_size_ / 10 * 9, kMode, DeadTemps::kKeep);  // writers of other machines
    } catch (const common::Error& e) {
      throw StoreError(e.what());
    }
    evictions_ += done.removed;
    if (!done.failed.empty()) throw StoreError(done.failed);
  }

 private:
  fs::path entry_path(const std::string& key) const { return shard_of(root_, key) / (key + kEntrySuffix); }
  fs::path claim_path(const std::string& key) const { return root_ / "claims" / key; }

  // A claim file without its whole text (its builder was killed between creating and writing
  // it: a write takes microseconds) lapses after this long, whatever the lease.
  static constexpr double kPartialClaimMs = 2000;

  struct ClaimFile {
    std::string token;  // "" when there is none (or it cannot be read, or is not whole)
    bool lapsed = false;
    struct timespec mtime {};
  };

  static ClaimFile read_claim(const fs::path& path) {
    ClaimFile c;
    struct stat st {};
    std::optional<std::string> text;
    try {
      text = common::read_file_if_exists(path, 256);
    } catch (const std::exception&) {
      return c;
    }
    if (!text || ::stat(path.c_str(), &st) != 0) return c;
    struct timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const double age_ms = (now.tv_sec - st.st_mtim.tv_sec) * 1e3 + (now.tv_nsec - st.st_mtim.tv_nsec) / 1e6;
    c.mtime = st.st_mtim;
    std::size_t nl = text->find('\n');
    if (nl == std::string::npos || text->back() != '\n') {  // being written, or its writer was killed
      c.lapsed = age_ms > kPartialClaimMs;
      return c;
    }
    c.token = text->substr(0, nl);
    unsigned long lease_ms = 0;
    std::from_chars(text->data() + nl + 1, text->data() + text->size(), lease_ms);
    c.lapsed = lease_ms > 0 && age_ms > static_cast<double>(lease_ms);
    return c;
  }

  // Moves a lapsed claim aside and removes it; false when the claim is live. When another builder
  // renewed or replaced it between the look and the rename, the live claim is put back.
  static bool take_over_lapsed(const fs::path& path, const std::string& token) {
    ClaimFile c = read_claim(path);
    if (!c.lapsed) return false;
    fs::path aside = path.string() + ".lapsed." + token;
    if (::rename(path.c_str(), aside.c_str()) != 0) return errno == ENOENT;  // another took it over first
    ClaimFile moved = read_claim(aside);
    if (moved.token != c.token || moved.mtime.tv_sec != c.mtime.tv_sec || moved.mtime.tv_nsec != c.mtime.tv_nsec) {
      (void)::link(aside.c_str(), path.c_str());  // a live claim: back where it was (unless a newer one is there)
      ::unlink(aside.c_str());
      return false;
    }
    ::unlink(aside.c_str());
    return true;
  }

  static void write(const fs::path& path, const std::string& value) {
    try {
      common::write_atomic(path, value, 0644, common::Sync::kAtomic);
    } catch (const std::exception& e) {
      throw StoreError(e.what());
    }
  }

  std::uint64_t evictions() const override { return evictions_; }

  Claim claim(const std::string& key, const std::string& token, unsigned lease_ms) override {
    if (read_only_) return Claim::kNone;
    fs::path path = claim_path(key);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) fail("cannot create", path.parent_path(), ec.value());
    for (int attempt = 0; attempt < 2; ++attempt) {
      Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
      if (f.fd >= 0) {
        std::string text = fmt::format("{}\n{}\n", token, lease_ms);
        if (::write(f.fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
          int err = errno;
          ::unlink(path.c_str());
          fail("cannot write", path, err);
        }
        return Claim::kOurs;
      }
      if (errno != EEXIST) fail("cannot create", path, errno);
      if (!take_over_lapsed(path, token)) return Claim::kTheirs;
    }
    return Claim::kTheirs;
  }

  bool renew(const std::string& key, const std::string& token, unsigned) override {
    fs::path path = claim_path(key);
    if (read_claim(path).token != token) return false;
    return ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0;
  }

  void release(const std::string& key, const std::string& token) override {
    fs::path path = claim_path(key);
    if (read_claim(path).token == token) ::unlink(path.c_str());
  }

  std::optional<std::string> claimant(const std::string& key) override {
    ClaimFile c = read_claim(claim_path(key));
    if (c.token.empty() || c.lapsed) return std::nullopt;
    return c.token;
  }

  fs::path root_;
  std::uint64_t max_size_;
  std::uint64_t evictions_ = 0;
  bool read_only_;  // not even an entry's time is written
};

}  // namespace

std::unique_ptr<Store> open_file_store(const Location& where, std::uint64_t max_size) {
  fs::path root = where.path;
  std::error_code ec;
  if (!where.read_only) {
    fs::create_directories(root, ec);
    if (ec) fail("cannot create", root, ec.value());
  } else if (!fs::is_directory(root, ec)) {
    throw StoreError(fmt::format("{}: not a folder", root.string()));
  }
  return std::make_unique<FileStore>(root, max_size, where.read_only);
}

}  // namespace skb::store
