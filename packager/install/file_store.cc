#include "packager/install/file_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"

namespace skb::installer {
namespace fs = std::filesystem;

namespace {

// What link() answers on a filesystem that cannot link this file: not a failure of the install.
bool cannot_link_here(int e) { return e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EXDEV || e == EMLINK; }

[[noreturn]] void fail(const char* what, const fs::path& p) {
  throw common::IoError(fmt::format("{}: cannot {}: {}", p.string(), what, std::strerror(errno)));
}

// The file at p, when it is a regular file; IoError when that cannot be told.
bool regular_file(const fs::path& p, struct stat& st) {
  if (::lstat(p.c_str(), &st) == 0) return S_ISREG(st.st_mode);
  if (errno == ENOENT) return false;
  fail("stat", p);
}

}  // namespace

bool FileStore::exists() const {
  struct stat st;
  return ::lstat(dir_.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<fs::path> FileStore::find(std::string_view sha256) const {
  if (!common::is_sha256_hex(sha256)) return std::nullopt;
  fs::path p = dir_ / std::string(sha256);
  struct stat st;
  if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return p;
}

void FileStore::make() const { common::ensure_real_dir(dir_); }

bool FileStore::add(const fs::path& file, std::string_view sha256) {
  if (!common::is_sha256_hex(sha256)) return false;
  fs::path name = dir_ / std::string(sha256);
  if (::link(file.c_str(), name.c_str()) == 0) return true;
  if (cannot_link_here(errno)) return false;
  if (errno != EEXIST) fail("link", name);
  struct stat have, want;
  if (!regular_file(file, want)) fail("link", file);
  if (regular_file(name, have) && have.st_ino == want.st_ino && have.st_dev == want.st_dev) return true;
  // Another file (a copy of the same bytes, or a damaged one): this one takes the name, at once.
  fs::path tmp = name;
  tmp += fmt::format(".tmp.{}", ::getpid());
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) fail("remove", tmp);
  if (::link(file.c_str(), tmp.c_str()) != 0) {
    if (cannot_link_here(errno)) return false;
    fail("link", tmp);
  }
  if (::rename(tmp.c_str(), name.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    fail("replace", name);
  }
  return true;
}

void FileStore::sweep() {
  if (!exists()) return;
  for (const std::string& name : common::list_dir(dir_)) {
    fs::path p = dir_ / name;
    struct stat st;
    if (common::is_sha256_hex(name) && regular_file(p, st) && st.st_nlink > 1) continue;
    common::remove_tree(p);
  }
}

}  // namespace skb::installer
