#pragma once
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/diag.h"
#include "common/fs.h"
#include "packager/install/index_cache.h"
#include "packager/install/index_pieces.h"
#include "packager/install/lock.h"
#include "packager/install/payload_reader.h"
#include "packager/install/rope.h"

namespace skb::installer {

/// An installed package whose index pieces and manifest are damaged, or cannot be read.
class DamagedPackageError : public common::Error {
 public:
  DamagedPackageError(std::string package, const std::string& what)
      : common::Error(what), package_(std::move(package)) {}
  const std::string& package() const { return package_; }

 private:
  std::string package_;
};

/// How an install or uninstall behaves.
struct LibraryOptions {
  double lock_timeout = 300;
  bool force = false;    // reinstall even when the same package is installed
  bool upgrade = false;  // replace an installed package of the same name and other contents
};

/// An operator library in CANN's layout, the folder opbase reads (<opp>/static_kernel/ai_core):
///   config.ini, version.info, uninstall.sh, index_cache.txt, bin/skb-install,
///   config/<soc>/binary_info_config.json,
///   <package>/{manifest.json, uninstall.sh, index_pieces.gz, <soc>/<Op>/<kernel files>}.
/// The lock is beside it, <opp>/static_kernel/.ai_core.lock, so that removing ai_core/ when its
/// last package goes never removes the lock other installers wait on.
/// Every change holds the lock for its whole read-modify-write; every shared file is replaced
/// by write-temp, fsync, rename; a journal lets the next run finish or roll back an
/// interrupted one, and removes what it left. The indexes are recomputed from the installed
/// packages, or, for an install, the new package's entries spliced into them when the index
/// cache (index_cache.h) says what they merge. A read of the library's state that fails is an error (common::IoError),
/// never "nothing installed": the command stops before it changes what depends on it.
class Library {
 public:
  /// root: the ai_core folder (see packager::library_root).
  Library(const std::filesystem::path& root, const common::Diag& diag);

  const std::filesystem::path& root() const { return root_; }

  /// Verifies the payload, then installs it. Returns false when the very same package was
  /// already installed (nothing to do).
  bool install(const PayloadSource& payload, const LibraryOptions& options);

  /// Removes one package; what other packages provide stays listed. Returns false when it was
  /// not installed.
  bool uninstall(const std::string& package, const LibraryOptions& options);

  /// Removes every package, and with them ai_core/.
  void uninstall_all(const LibraryOptions& options);

 private:
  /// The very same payload is installed: its package folder records this payload's sha256 and
  /// config.ini lists it. Reads two small files; needs no lock (a snapshot is enough).
  bool same_payload_installed(const PayloadSource& payload) const;
  /// Staging and trash folders of changes that were interrupted.
  std::vector<std::filesystem::path> leftover_dirs() const;
  /// What else a killed run leaves: the temporary files of the shared files it replaces
  /// (<file>.tmp.<pid>), and the trash of a removed ai_core/ beside it.
  std::vector<std::filesystem::path> leftover_files() const;
  /// The folders of config/, one a soc (symlinks are not folders).
  std::vector<std::string> soc_folders() const;
  /// Under the lock: removes both, and says so once.
  void remove_leftovers();
  /// An interrupted change waits to be finished: a journal, or leftover folders.
  bool recovery_pending() const;
  /// Creates the lock's folder; then, under the lock, ai_core/ and its folders.
  void ensure_parent();
  void ensure_layout();
  /// The lock of a removal, none when no library is here. A library whose lock file is gone (its
  /// folder copied without it) gets one; a symlink where the install would refuse one is refused.
  std::unique_ptr<LibraryLock> lock_for_removal(const LibraryOptions& options);
  /// With no package left, ai_core/ goes (CANN's full uninstall leaves no ai_core/ behind).
  void remove_root_if_empty();
  std::filesystem::path lock_file() const;
  /// config/<soc>/binary_info_config.json: the merged index of a soc, the one opbase reads.
  std::filesystem::path index_file(const std::string& soc) const;
  /// Finishes what an interrupted run left (its journal), and removes its temporary files. The
  /// packages in `going` (those this run removes or replaces) are left out of what it publishes
  /// only when one of them is damaged and would stop it: the run that removes a damaged package
  /// is never refused for that package's damage.
  void recover(const std::set<std::string>& going = {});
  void finish_interrupted(const std::set<std::string>& leave_out);
  /// The packages config.ini lists whose folder is there, newest first, then those whose folder
  /// is there that it does not list (a damaged config.ini: said once). config.ini is read each
  /// time (a read error is an IoError, never "none"); ai_core/ is listed once per text of it.
  std::vector<std::string> read_order() const;
  /// Writes config.ini, every soc index, version.info and the uninstall scripts for `order`;
  /// the packages it drops must still be on disk (they are removed after). `fresh`, when given,
  /// is the pieces of a package just written, taken instead of read back.
  /// What an install publishes, made while its files are written: the files that change, written
  /// beside the ones they replace and synced; publish renames them.
  struct Prepared {
    std::optional<common::PreparedWrite> order_union;  // config.ini with the old order and the new; none: as it is
    std::vector<common::PreparedWrite> own;            // prepare_own_files
    // The indexes publish writes (fresh's entries spliced in, or fresh's alone); none: publish
    // merges every package's pieces.
    struct Indexes {
      std::vector<common::PreparedWrite> files;  // the soc indexes that change
      IndexCache cache;                          // of the indexes then
    };
    std::optional<Indexes> indexes;
  };
  /// `prepared`, when given, is prepare_publish's for the same order and fresh.
  void publish(const std::vector<std::string>& newest_first, const PackagePieces* fresh = nullptr,
               std::optional<Prepared> prepared = std::nullopt);
  /// The slow part of publishing an install of `fresh` as the newest of `newest_first`: fresh's
  /// entries spliced into the merged indexes when the index cache allows, or, fresh alone, its
  /// own index (`fresh_index`); else publish merges every package's pieces. Every index and own
  /// file (prepare_own_files) that changes is written and synced beside the one it replaces (the
  /// journal and config.ini are the install's). Done on another thread while the package's files
  /// are written: until it returns, the install touches none of the library's state it reads (the
  /// merged indexes read under the lock, the index cache). `found`: the files the package links
  /// to, being found from the merged index on a third thread; the splice waits for it. Needs the
  /// lock.
  Prepared prepare_publish(const std::vector<std::string>& newest_first, const PackagePieces& fresh,
                           const std::shared_future<std::map<std::string, std::string>>& fresh_index,
                           const std::vector<std::string>& socs, const FutureInstalledFiles& found);
  /// The packages of newest_first, then those config.ini lists that it does not (a package that
  /// goes stays listed until the indexes no longer name it): what config.ini says while publish
  /// writes the indexes.
  std::vector<std::string> order_union(const std::vector<std::string>& newest_first) const;
  // publish's parts: the indexes merged from every package's pieces and written (`next` gets
  // their cache), and what follows the indexes.
  void merge_and_write(const std::vector<std::string>& newest_first, const PackagePieces* fresh,
                       const std::vector<std::string>& socs, IndexCache& next);
  void finish_publish(const std::vector<std::string>& newest_first,
                      std::optional<std::vector<common::PreparedWrite>> own);
  /// The library's files that no package changes (version.info, uninstall.sh, and bin/skb-install,
  /// the installer that packages which carry none run), each written beside it and synced when it
  /// is not what it should be: the slow part of publishing them, which an install does on another
  /// thread while it writes the package's files. Needs the lock.
  std::vector<common::PreparedWrite> prepare_own_files() const;
  /// `read`: the payload's manifest, when it was read already.
  bool install_locked(const PayloadSource& payload, std::optional<PayloadManifest> read, const LibraryOptions& options);
  /// Removes `package`; what it publishes lists none of going_, the packages this run removes.
  void remove_package_locked(const std::string& package);
  void write_journal(const std::string& op, const std::string& package);
  std::filesystem::path journal_file() const;  // config/transaction.json
  static std::string journal_text(const std::string& op, const std::string& package);
  // An installed package's manifest, parsed once per run (a package's files never change while
  // it is installed; removing it forgets it). Throws when it is damaged.
  const packager::Manifest& installed_manifest(const std::string& package);
  // An installed package's index pieces (index_pieces.h), read once per run from the file beside
  // it, or rendered from its manifest when that file is missing or damaged (a package installed by
  // an older skb). Throws when the manifest is damaged too.
  const PackagePieces& installed_pieces(const std::string& package);
  // installed_pieces of every package of newest_first but fresh, for a merge: throws
  // DamagedPackageError naming the package that is damaged, or that cannot be read. Called before
  // a change is journalled, so that a read that fails changes nothing.
  std::vector<const PackagePieces*> pieces_to_merge(const std::vector<std::string>& newest_first,
                                                    const PackagePieces* fresh);
  // The installed files that may hold one of m's files' bytes, by sha256: what m's files link to
  // once their bytes are checked. From the merged index (`from_pieces` false): the files of m's
  // kernels that it lists, beside the listed binary under the same names; else from every
  // package's pieces (every installed file, by its bytes).
  InstalledFiles installed_files(const packager::Manifest& m, bool from_pieces = false);
  // The text of a soc's merged index, read once under the lock (installed_files reads it, and
  // spliced_indexes takes it); null when there is none or it cannot be read.
  const std::string* merged_index(const std::string& soc);
  // The library's index cache (index_cache.h), read once per run and kept as publish writes it;
  // null when it is missing, damaged, or not of `order` (newest first).
  const IndexCache* index_cache(const std::vector<std::string>& order);
  // The merged indexes of `newest_first`, fresh's entries spliced into the indexes the cache
  // names (every soc's, those without a change as they are); nullopt when the cache or an index
  // is not what that needs. `next` gets the cache of the result.
  std::optional<std::map<std::string, Rope>> spliced_indexes(const std::vector<std::string>& newest_first,
                                                             const PackagePieces& fresh,
                                                             const std::vector<std::string>& socs, IndexCache& next);
  // A delta package's files from its base: each held by the library and hashing to its sha256,
  // or BaseMissingError naming what is missing (before anything is written).
  void check_base_files(const packager::Manifest& m, const std::vector<const packager::PackageFile*>& files,
                        const InstalledFiles& installed) const;
  // Links them into the staging folder (copies across filesystems).
  static void link_base_files(const std::vector<const packager::PackageFile*>& files, const InstalledFiles& installed,
                              const std::filesystem::path& staging);
  void clear_journal();

  std::filesystem::path root_;
  std::map<std::string, std::optional<std::string>> merged_index_;  // merged_index's
  std::map<std::string, packager::Manifest> manifests_;             // installed_manifest's
  std::map<std::string, PackagePieces> pieces_;                     // installed_pieces'
  std::optional<IndexCache> cache_;                                 // index_cache's
  bool cache_read_ = false;
  // read_order's: the text of config.ini it read last, and its answer.
  mutable std::optional<std::pair<std::string, std::vector<std::string>>> order_;
  // Packages this run removes, which it may publish without before their folders go.
  std::set<std::string> going_;

  const common::Diag& diag_;
};

/// The operator library to use when no --install-path is given: that of $SKB_INSTALL_PATH; else
/// the one opbase reads, $ASCEND_OPP_PATH/static_kernel/ai_core, else
/// $ASCEND_HOME_PATH/opp/static_kernel/ai_core; else that of /usr/local/skb for root, of
/// $HOME/.local/skb for others.
std::filesystem::path default_library_root();

}  // namespace skb::installer
