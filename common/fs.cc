#include "common/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <system_error>
#include <utility>

#include "common/error.h"

namespace skb::common {
namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Writes the parts in order: a writev of up to IOV_MAX of them at a time, resumed after a short
// write.
void write_all(int fd, std::vector<std::string_view> parts, const fs::path& path) {
  std::vector<struct iovec> iov;
  for (std::size_t first = 0; first < parts.size();) {
    iov.clear();
    for (std::size_t i = first; i < parts.size() && iov.size() < IOV_MAX; ++i)
      iov.push_back({const_cast<char*>(parts[i].data()), parts[i].size()});
    ssize_t n = ::writev(fd, iov.data(), static_cast<int>(iov.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: write failed: {}", path.string(), errno_text()));
    auto done = static_cast<std::size_t>(n);
    for (; first < parts.size() && done >= parts[first].size(); ++first) done -= parts[first].size();
    if (first < parts.size()) parts[first].remove_prefix(done);
  }
}

void fsync_dir(const fs::path& dir) {
  Fd d(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  // EINVAL, ENOTSUP: a filesystem with nothing to sync in a folder.
  if (d.get() < 0 || (::fsync(d.get()) != 0 && errno != EINVAL && errno != ENOTSUP))
    throw IoError(fmt::format("{}: cannot sync the folder: {}", dir.string(), errno_text()));
}

// lstat's answer: false when nothing is there, IoError when it cannot be told.
bool lstat_of(const fs::path& path, struct stat& st) {
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  throw IoError(fmt::format("{}: cannot stat: {}", path.string(), errno_text()));
}

}  // namespace

std::string read_file(const fs::path& path, std::size_t max_size, Accept accept) {
  std::optional<std::string> text = read_file_if_exists(path, max_size, accept);
  if (!text) throw Error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(ENOENT)));
  return *std::move(text);
}

std::optional<std::string> read_file_if_exists(const fs::path& path, std::size_t max_size, Accept accept) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer (a regular file's reads ignore it).
  const bool regular_only = accept == Accept::kRegularFile;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0)));
  if (fd.get() < 0 && errno == ENOENT) return std::nullopt;
  if (fd.get() < 0) throw IoError(fmt::format("{}: cannot open: {}", path.string(), errno_text()));
  // Read straight into a buffer of the file's size (and one byte more, to see it end): an index
  // of megabytes is then one allocation, not a dozen that each copy it and fault in new pages.
  // A file that grows meanwhile, or one that stat cannot size (a pipe, /proc), grows it.
  struct stat st {};
  const bool regular = ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode);
  if (regular_only && !regular) throw IoError(fmt::format("{}: not a regular file", path.string()));
  std::size_t expect = regular ? static_cast<std::size_t>(st.st_size) : 0;
  const std::size_t cap = max_size < std::size_t(-1) ? max_size + 1 : max_size;  // one more: the end is seen
  std::string out(std::min(expect, cap - 1) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_size) throw Error(fmt::format("{}: larger than {} bytes", path.string(), max_size));
      out.resize(std::min(std::max<std::size_t>(got * 2, 1 << 16), cap));
    }
    ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError(fmt::format("{}: read failed: {}", path.string(), errno_text()));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_size) throw Error(fmt::format("{}: larger than {} bytes", path.string(), max_size));
  out.resize(got);
  return out;
}

namespace {

// Writes content into a new file beside path, <path>.tmp.<pid>, fsynced for kDurable, and returns
// its name; leaves nothing behind when it throws.
fs::path write_temp(const fs::path& path, const std::vector<std::string_view>& content, unsigned mode, Sync sync) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  ::unlink(tmp.c_str());  // a leftover of a killed writer, or a planted symlink: never followed
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd.get() < 0) throw Error(fmt::format("{}: cannot write: {}", path.string(), errno_text()));
  try {
    write_all(fd.get(), content, path);
    if (sync == Sync::kDurable && ::fsync(fd.get()) != 0)
      throw Error(fmt::format("{}: fsync failed: {}", path.string(), errno_text()));
    if (::close(fd.release()) != 0) throw Error(fmt::format("{}: close failed: {}", path.string(), errno_text()));
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  return tmp;
}

// Renames tmp over path; removes tmp when it cannot.
void rename_into_place(const fs::path& tmp, const fs::path& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: cannot replace: {}", path.string(), why));
  }
}

// Whether path is a regular file of exactly these bytes (an unreadable one is not).
bool holds_exactly(const fs::path& path, std::string_view content) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) != content.size())
    return false;
  try {
    auto old = read_file_if_exists(path, content.size());
    return old && *old == content;
  } catch (const Error&) {
    return false;  // unreadable, or grown meanwhile: it is replaced
  }
}

}  // namespace

void write_atomic(const fs::path& path, const std::vector<std::string_view>& content, unsigned mode, Sync sync) {
  rename_into_place(write_temp(path, content, mode, sync), path);
  if (sync == Sync::kDurable) fsync_dir(path.parent_path());
}

void write_atomic(const fs::path& path, std::string_view content, unsigned mode, Sync sync) {
  write_atomic(path, std::vector<std::string_view>{content}, mode, sync);
}

void write_output(const fs::path& path, std::string_view content) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {  // not there (or a dangling symlink: replaced)
    write_atomic(path, content);
    return;
  }
  if (S_ISREG(st.st_mode)) {
    write_atomic(fs::is_symlink(path) ? fs::canonical(path) : path, content);
    return;
  }
  Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) throw IoError(fmt::format("{}: cannot open: {}", path.string(), errno_text()));
  write_all(fd.get(), {content}, path);
}

bool write_if_changed(const fs::path& path, std::string_view content, Sync sync) {
  if (holds_exactly(path, content)) return false;
  write_atomic(path, content, 0644, sync);
  return true;
}

PreparedWrite::PreparedWrite(fs::path path, std::string_view content, unsigned mode, Sync sync)
    : PreparedWrite(std::move(path), std::vector<std::string_view>{content}, mode, sync) {}

PreparedWrite::PreparedWrite(fs::path path, const std::vector<std::string_view>& parts, unsigned mode, Sync sync)
    : path_(std::move(path)), tmp_(write_temp(path_, parts, mode, sync)) {}

PreparedWrite::PreparedWrite(PreparedWrite&& other) noexcept
    : path_(std::move(other.path_)), tmp_(std::exchange(other.tmp_, fs::path())) {}

PreparedWrite& PreparedWrite::operator=(PreparedWrite&& other) noexcept {
  if (this != &other) {
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    path_ = std::move(other.path_);
    tmp_ = std::exchange(other.tmp_, fs::path());
  }
  return *this;
}

PreparedWrite::~PreparedWrite() {
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void PreparedWrite::sync(std::optional<dev_t> synced) {
  if (tmp_.empty()) throw Error(fmt::format("{}: synced after its commit", path_.string()));
  Fd fd(::open(tmp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0)
    throw IoError(fmt::format("{}: cannot open to sync: {}", tmp_.string(), errno_text()));
  if (synced && st.st_dev == *synced) return;
  if (::fsync(fd.get()) != 0) throw IoError(fmt::format("{}: fsync failed: {}", tmp_.string(), errno_text()));
}

void PreparedWrite::commit() {
  if (tmp_.empty()) throw Error(fmt::format("{}: committed twice", path_.string()));
  rename_into_place(std::exchange(tmp_, fs::path()), path_);
}

std::optional<PreparedWrite> prepare_if_changed(const fs::path& path, std::string_view content, unsigned mode,
                                                Sync sync) {
  if (holds_exactly(path, content)) return std::nullopt;
  return PreparedWrite(path, content, mode, sync);
}

void sync_folder(const fs::path& dir) { fsync_dir(dir); }

void ensure_real_dir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error(fmt::format("{}: cannot create: {}", dir.string(), errno_text()));
  refuse_unless_real_dir(dir);
}

void refuse_unless_real_dir(const fs::path& dir) {
  struct stat st;
  if (lstat_of(dir, st) && !S_ISDIR(st.st_mode))
    throw Error(fmt::format("{}: not a folder (a symlink?): refused", dir.string()));
}

bool path_exists(const fs::path& path) {
  struct stat st;
  return lstat_of(path, st);
}

bool is_file(const fs::path& path) {
  struct stat st;
  return lstat_of(path, st) && S_ISREG(st.st_mode);
}

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

// Calls f(entry) for each entry of dir but "." and ".."; false when dir does not exist, IoError
// when it cannot be read, whole.
template <typename F>
bool for_each_entry(const fs::path& dir, F&& f) {
  DIR* d = ::opendir(dir.c_str());
  if (!d && errno == ENOENT) return false;
  if (!d) throw IoError(fmt::format("{}: cannot list: {}", dir.string(), errno_text()));
  int e = 0;
  try {
    for (;;) {
      errno = 0;
      const struct dirent* entry = ::readdir(d);
      if (!entry) break;
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") f(d, *entry);
    }
    e = errno;
  } catch (...) {
    ::closedir(d);
    throw;
  }
  ::closedir(d);
  if (e != 0) throw IoError(fmt::format("{}: cannot list: {}", dir.string(), std::strerror(e)));
  return true;
}

}  // namespace

std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> names;
  for_each_entry(dir, [&](DIR*, const struct dirent& e) { names.emplace_back(e.d_name); });
  return names;
}

std::vector<std::string> list_folders(const fs::path& dir) {
  std::vector<std::string> names;
  for_each_entry(dir, [&](DIR* d, const struct dirent& e) {
    bool folder = e.d_type == DT_DIR;
    if (e.d_type == DT_UNKNOWN) {  // the filesystem does not say: a stat of that one
      struct stat st;
      if (::fstatat(::dirfd(d), e.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        folder = S_ISDIR(st.st_mode);
      else if (errno != ENOENT)
        throw IoError(fmt::format("{}: cannot stat: {}", (dir / e.d_name).string(), errno_text()));
    }
    if (folder) names.emplace_back(e.d_name);
  });
  return names;
}

void remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);  // does not follow symlinks
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw IoError(fmt::format("{}: cannot remove: {}", path.string(), ec.message()));
}

bool remove_file(const fs::path& path) {
  if (::unlink(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  throw IoError(fmt::format("{}: cannot remove: {}", path.string(), errno_text()));
}

namespace {

// When process pid started, in nanoseconds of the realtime clock; nothing when it cannot be told
// (/proc/<pid>/stat's 22nd field, clock ticks after boot, placed by the boot time).
std::optional<std::int64_t> process_start_ns(pid_t pid) {
  std::optional<std::string> stat;
  try {
    stat = read_file_if_exists(fmt::format("/proc/{}/stat", pid), 4096);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!stat) return std::nullopt;
  std::size_t close = stat->rfind(')');  // the name in parentheses may hold blanks
  if (close == std::string::npos || close + 2 > stat->size()) return std::nullopt;
  std::string_view rest = std::string_view(*stat).substr(close + 2);  // field 3 (state) on
  for (int i = 3; i < 22; ++i) {                                      // to field 22 (starttime)
    std::size_t blank = rest.find(' ');
    if (blank == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(blank + 1);
  }
  std::string_view field = rest.substr(0, rest.find(' '));
  unsigned long long ticks = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), ticks);
  long hz = ::sysconf(_SC_CLK_TCK);
  if (ec != std::errc() || hz <= 0) return std::nullopt;
  timespec real{}, boot{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  ::clock_gettime(CLOCK_BOOTTIME, &boot);
  std::int64_t booted = (real.tv_sec - boot.tv_sec) * 1'000'000'000LL + (real.tv_nsec - boot.tv_nsec);
  return booted + static_cast<std::int64_t>(ticks) * (1'000'000'000LL / hz);
}

}  // namespace

bool is_live_temp(const fs::path& path) {
  const std::string file = path.filename().string();
  std::size_t at = file.find(".tmp.");
  if (at == std::string::npos) return false;
  const char* first = file.data() + at + 5;
  const char* last = file.data() + file.size();
  long pid = 0;
  auto [end, ec] = std::from_chars(first, last, pid);
  if (ec != std::errc() || end == first || pid <= 0 || pid > INT_MAX) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  // A process of that number runs: it made the file only if it started before the file was last
  // written (process numbers are reused, within seconds where many processes come and go).
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;  // gone: nothing to keep
  std::optional<std::int64_t> started = process_start_ns(static_cast<pid_t>(pid));
  if (!started) return true;  // cannot be told: kept
  std::int64_t written = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  constexpr std::int64_t kSlack = 20'000'000;  // the start time's tick (10 ms) and the clocks' reading
  return *started <= written + kSlack;
}

fs::path self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the path of the running executable (/proc/self/exe)");
  return p;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace skb::common
