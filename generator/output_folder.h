#pragma once
// How a generation writes its output folder: its files all together, and one generation at a time.
#include <filesystem>
#include <string_view>
#include <vector>

#include "common/diag.h"
#include "common/file_lock.h"
#include "common/fs.h"

namespace skb::generator {

/// Locks OUT/.generate.lock, to be held while a generation writes OUT: two skb-generate runs into
/// one folder (a user's and ninja's own rerun) write one after the other, never their files
/// interleaved, so that the folder is always one generation's. The second waits, saying so
/// through diag.
common::FileLock lock_output_folder(const std::filesystem::path& out, const common::Diag& diag);

/// Files written together: each is written beside its place when added (so that a failure, a
/// missing folder or a full disk, comes before any replaces its old version) and all are renamed
/// into place by commit(), in the order added. Unchanged files are left alone (their mtimes are
/// what ninja's restat reads); what is not committed leaves no temp file.
class Staged {
 public:
  /// Whether path will change. Throws common::Error when it cannot be written, or a folder is there.
  bool add(const std::filesystem::path& path, std::string_view content);
  void commit();

 private:
  std::vector<common::PreparedWrite> writes_;
};

}  // namespace skb::generator
