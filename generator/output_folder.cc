#include "generator/output_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace skb::generator {
namespace fs = std::filesystem;
using common::Error;

FolderLock::FolderLock(const fs::path& out, const common::Diag& diag) {
  fs::path file = out / ".generate.lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  diag.note(fmt::format("waiting for another skb-generate writing {}", out.string()));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    ::close(fd_);
    throw Error(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(e)));
  }
}

FolderLock::~FolderLock() { ::close(fd_); }

bool Staged::add(const fs::path& path, std::string_view content) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(
        fmt::format("{}: is a folder, where a file goes: move it away or choose another output folder", path.string()));
  auto w = common::prepare_if_changed(path, content, 0644, common::Sync::kAtomic);
  if (w) writes_.push_back(std::move(*w));
  return w.has_value();
}

void Staged::commit() {
  for (auto& w : writes_) w.commit();
  writes_.clear();
}

}  // namespace skb::generator
