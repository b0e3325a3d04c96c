#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/diag.h"
#include "packager/install/payload_reader.h"

namespace skb::installer {

/// How an install or uninstall behaves.
struct LibraryOptions {
  double lock_timeout = 300;
  bool force = false;    // reinstall even when the same package is installed
  bool upgrade = false;  // replace an installed package of the same name and other contents
};

/// An operator library in CANN's layout, below <install_path>/opp/static_kernel/ai_core:
///   config.ini, version.info, uninstall.sh, bin/skb-install,
///   config/static_kernel.lock, config/<soc>/binary_info_config.json,
///   <package>/{manifest.json, uninstall.sh, <soc>/<Op>/<kernel files>}.
/// Every change holds the lock for its whole read-modify-write; every shared file is replaced
/// by write-temp, fsync, rename; a journal lets the next run finish or roll back an
/// interrupted one. The indexes are always recomputed from the installed packages.
class Library {
 public:
  Library(const std::filesystem::path& install_path, const common::Diag& diag);

  const std::filesystem::path& root() const { return root_; }

  /// Verifies the payload, then installs it. Returns false when the very same package was
  /// already installed (nothing to do).
  bool install(const PayloadSource& payload, const LibraryOptions& options);

  /// Removes one package; what other packages provide stays listed. Returns false when it was
  /// not installed.
  bool uninstall(const std::string& package, const LibraryOptions& options);

  /// Removes every package.
  void uninstall_all(const LibraryOptions& options);

 private:
  /// The very same payload is installed: its package folder records this payload's sha256 and
  /// config.ini lists it. Reads two small files; needs no lock (a snapshot is enough).
  bool same_payload_installed(const PayloadSource& payload) const;
  /// Staging and trash folders of changes that were interrupted.
  std::vector<std::filesystem::path> leftover_dirs() const;
  /// An interrupted change waits to be finished: a journal, or leftover folders.
  bool recovery_pending() const;
  void ensure_layout();
  void recover();
  std::vector<std::string> read_order() const;
  /// Writes config.ini, every soc index, version.info and the uninstall scripts for `order`;
  /// the packages it drops must still be on disk (they are removed after). `fresh`, when given,
  /// is the manifest of a package just written, taken (moved from) instead of read back.
  void publish(const std::vector<std::string>& newest_first, packager::Manifest* fresh = nullptr);
  void remove_package_locked(const std::string& package);
  void write_journal(const std::string& op, const std::string& package);
  void clear_journal();

  std::filesystem::path install_path_, root_;
  const common::Diag& diag_;
};

/// The default install path: $SKB_INSTALL_PATH, else /usr/local/skb for root, else
/// $HOME/.local/skb.
std::filesystem::path default_install_path();

}  // namespace skb::installer
