#include "generator/output_folder.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include "common/error.h"

namespace skb::generator {
namespace fs = std::filesystem;
using common::Error;

common::FileLock lock_output_folder(const fs::path& out, const common::Diag& diag) {
  return common::FileLock(out / ".generate.lock", 0644,
                          [&] { diag.note(fmt::format("waiting for another skb-generate writing {}", out.string())); });
}

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
