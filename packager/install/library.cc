#include "packager/install/library.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>

#include "common/fs.h"
#include "common/sha256.h"
#include "common/version.h"
#include "packager/install/durable_tree.h"
#include "packager/install/index.h"
#include "packager/install/lock.h"

namespace skb::installer {
namespace fs = std::filesystem;
using common::Error;
using common::Json;

namespace {

using common::remove_tree;

// Cleans up after a step that failed, which is what the user is told of: a folder that cannot
// be removed too stays for the next run under the lock to remove (remove_leftovers).
void remove_tree_after_failure(const fs::path& p) noexcept {
  std::error_code ec;
  fs::remove_all(p, ec);
}

// What write_atomic names its temporary file: <name>.tmp.<pid>. A name of the library's shared
// files with that suffix is what a killed run of ours left.
bool is_temp_of(const std::string& name, std::string_view file) {
  std::string_view n = name;
  if (n.size() <= file.size() + 5 || n.substr(0, file.size()) != file || n.substr(file.size(), 5) != ".tmp.")
    return false;
  n.remove_prefix(file.size() + 5);
  return std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The stub runs the library's copy of the installer in place when it is the package's: that file
// then needs neither reading nor comparing with the running program (1.8 MB each).
bool is_running_program(const fs::path& p) { return common::same_file("/proc/self/exe", p); }

void chmod_or_throw(const fs::path& p, mode_t mode) {
  if (::chmod(p.c_str(), mode) != 0)
    throw common::IoError(fmt::format("{}: cannot chmod: {}", p.string(), std::strerror(errno)));
}

// internal: options for the installer itself; args: the user's options, after `--`.
std::string uninstall_script(const std::string& what, const std::string& internal, const std::string& args,
                             int levels_up) {
  std::string up;
  for (int i = 0; i < levels_up; ++i) up += "/..";
  return fmt::format(
      "#!/bin/sh\n"
      "# Removes {} from this operator library, under its lock. Made by skb {}.\n"
      "here=$(cd \"$(dirname \"$0\")\" && pwd) || exit 1\n"
      "lib=$(cd \"$here{}\" && pwd) || exit 1\n"
      "exec \"$lib/bin/skb-install\" --library=\"$lib\" {} -- {} \"$@\"\n",
      what, common::kVersion, up, internal, args);
}

// The files of a delta package that its base holds (none for a whole package).
std::vector<const packager::PackageFile*> base_files(const packager::Manifest& m) {
  std::vector<const packager::PackageFile*> from_base;
  for (const auto& f : m.files)
    if (!f.carried) from_base.push_back(&f);
  return from_base;
}

// The deepest folder of `path` that exists (path itself when it does).
fs::path nearest_folder(fs::path path) {
  std::error_code ec;
  while (!fs::is_directory(path, ec) && path.has_relative_path()) path = path.parent_path();
  return path.empty() ? fs::path(".") : path;
}

}  // namespace

fs::path default_library_root() {
  auto env = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
  };
  if (const char* p = env("SKB_INSTALL_PATH")) return packager::library_root(p);
  if (const char* p = env("ASCEND_OPP_PATH")) return fs::path(p) / "static_kernel" / "ai_core";
  if (const char* p = env("ASCEND_HOME_PATH")) return packager::library_root(p);
  if (::geteuid() == 0) return packager::library_root("/usr/local/skb");
  const char* home = env("HOME");
  if (!home)
    throw Error(
        "no --install-path given, and none of SKB_INSTALL_PATH, ASCEND_OPP_PATH, ASCEND_HOME_PATH, HOME is set");
  return packager::library_root(fs::path(home) / ".local" / "skb");
}

Library::Library(const fs::path& root, const common::Diag& diag)
    : root_(fs::absolute(root).lexically_normal()), diag_(diag) {}

fs::path Library::index_file(const std::string& soc) const {
  return root_ / "config" / soc / "binary_info_config.json";
}

fs::path Library::lock_file() const { return root_.parent_path() / ("." + root_.filename().string() + ".lock"); }

void Library::ensure_parent() {
  std::error_code ec;
  fs::create_directories(root_.parent_path(), ec);
  if (ec) throw Error(fmt::format("{}: cannot create: {}", root_.parent_path().string(), ec.message()));
  common::ensure_real_dir(root_.parent_path());
}

void Library::ensure_layout() {
  for (const fs::path& d : {root_, root_ / "config", root_ / "bin"}) common::ensure_real_dir(d);
}

std::unique_ptr<LibraryLock> Library::lock_for_removal(const LibraryOptions& o) {
  for (const fs::path& d : {root_.parent_path(), root_}) common::refuse_unless_real_dir(d);  // nothing made
  if (std::unique_ptr<LibraryLock> lock = LibraryLock::if_exists(lock_file(), o.lock_timeout, diag_)) return lock;
  // No lock file: a library skb made (its version.info says so) that was copied without it gets
  // one; any other folder, no library of skb's, is left as it is.
  std::optional<std::string> version = common::read_file_if_exists(root_ / "version.info", 4096);
  if (!version || version->rfind("skb_version=", 0) != 0) return nullptr;
  return std::make_unique<LibraryLock>(lock_file(), o.lock_timeout, diag_);
}

std::vector<std::string> Library::soc_folders() const { return common::list_folders(root_ / "config"); }

std::vector<fs::path> Library::leftover_files() const {
  std::vector<fs::path> out;
  // What a removal of ai_core/ killed midway left (see remove_root_if_empty).
  std::string trash_prefix = "." + root_.filename().string() + ".trash.";
  for (const std::string& name : common::list_dir(root_.parent_path()))
    if (name.rfind(trash_prefix, 0) == 0) out.push_back(root_.parent_path() / name);
  // The temporary files of the shared files that publish and the journal replace.
  auto temps_in = [&](const fs::path& dir, std::initializer_list<std::string_view> files) {
    for (const std::string& name : common::list_dir(dir))
      if (std::any_of(files.begin(), files.end(), [&](std::string_view f) { return is_temp_of(name, f); }))
        out.push_back(dir / name);
  };
  temps_in(root_, {"config.ini", "version.info", "uninstall.sh", kIndexCacheName});
  temps_in(root_ / "config", {"transaction.json"});
  temps_in(root_ / "bin", {"skb-install"});
  for (const std::string& soc : soc_folders()) temps_in(root_ / "config" / soc, {"binary_info_config.json"});
  // skb bench's evidence, payoff/<machine class>.json, written under the lock too.
  for (const std::string& name : common::list_dir(root_ / "payoff"))
    if (std::size_t at = name.find(".json.tmp."); at != std::string::npos && is_temp_of(name, name.substr(0, at + 5)))
      out.push_back(root_ / "payoff" / name);
  return out;
}

void Library::remove_leftovers() {
  std::vector<fs::path> left = leftover_dirs();
  for (fs::path& p : leftover_files()) left.push_back(std::move(p));
  if (left.empty()) return;
  for (const fs::path& p : left) remove_tree(p);
  diag_.note(fmt::format("removed {} temporary file{} and folder{} that an interrupted run left ({}{})", left.size(),
                         left.size() > 1 ? "s" : "", left.size() > 1 ? "s" : "", left.front().string(),
                         left.size() > 1 ? ", ..." : ""));
}

void Library::remove_root_if_empty() {
  if (!common::path_exists(root_) || recovery_pending() || !read_order().empty()) return;
  fs::path trash = root_.parent_path() / fmt::format(".{}.trash.{}", root_.filename().string(), ::getpid());
  if (::rename(root_.c_str(), trash.c_str()) != 0)
    throw common::IoError(fmt::format("{}: cannot remove: {}", root_.string(), std::strerror(errno)));
  remove_tree(trash);
}

std::vector<std::string> Library::read_order() const {
  // Missing: no package is listed. Unreadable: an IoError, never "none".
  std::string text = common::read_file_if_exists(root_ / "config.ini", 1 << 20).value_or("");
  // An install reads the order three times, and lists ai_core/ once. The text is the key: this
  // run removes a package only after config.ini has stopped listing it.
  if (order_ && order_->first == text) return order_->second;
  std::vector<std::string> order = parse_config_ini(text);
  // A package's folder only ever appears whole, renamed from its staging folder with its manifest
  // in it: the folder says it is installed. One read of ai_core/, not a look per package.
  std::vector<std::string> listed =
      common::path_exists(root_) ? common::list_folders(root_) : std::vector<std::string>{};
  std::unordered_set<std::string_view> folders(listed.begin(), listed.end());
  order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string& p) { return !folders.count(p); }),
              order.end());
  // And a package folder config.ini does not list is installed all the same: an install lists its
  // package (under its journal) before the folder appears, and an uninstall removes the folder
  // under its journal, so only a damaged, emptied or deleted config.ini leaves one unlisted. It
  // is kept, with the lowest priority (newest first by name, which begins with its time), never
  // dropped from the indexes and then removed with ai_core/ as if nothing were installed.
  std::unordered_set<std::string_view> in_order(order.begin(), order.end());
  std::vector<std::string> unlisted;
  for (const std::string& f : listed)
    if (packager::is_package_name(f) && !in_order.count(f) && common::is_file(root_ / f / packager::kManifestName))
      unlisted.push_back(f);
  std::sort(unlisted.rbegin(), unlisted.rend());
  std::size_t unsaid = 0;  // those this run leaves out on purpose are not a damage to report
  for (const std::string& p : unlisted) unsaid += going_.count(p);
  if (unlisted.size() > unsaid) {
    diag_.note(fmt::format("{} does not list {} installed package{} ({}{}): kept, after those it lists",
                           (root_ / "config.ini").string(), unlisted.size(), unlisted.size() > 1 ? "s" : "",
                           unlisted.front(), unlisted.size() > 1 ? ", ..." : ""));
  }
  order.insert(order.end(), unlisted.begin(), unlisted.end());
  order_.emplace(std::move(text), order);
  return order;
}

void Library::check_base_files(const packager::Manifest& m, const std::vector<const packager::PackageFile*>& files,
                               const InstalledFiles& installed) const {
  std::vector<std::string> missing;
  for (const packager::PackageFile* f : files) {
    auto it = installed.find(f->sha256);
    if (it == installed.end() || !holds_bytes(it->second, *f)) missing.push_back(f->path);
  }
  if (missing.empty()) return;
  std::vector<std::string> order = read_order();
  bool base_installed = std::find(order.begin(), order.end(), m.base) != order.end();
  std::string what =
      base_installed
          ? fmt::format("which is installed, but {} of the {} files it takes from there are missing or damaged",
                        missing.size(), files.size())
          : fmt::format("and this library lacks {} of the {} files it takes from there", missing.size(), files.size());
  std::string advice = base_installed ? fmt::format("reinstall {} with --force (or install the whole package)", m.base)
                                      : fmt::format("install {} (or the whole package) first", m.base);
  throw BaseMissingError(fmt::format("{} is a delta on {}, {} ({}{}); {}. Nothing was changed", m.package, m.base, what,
                                     missing.front(), missing.size() > 1 ? ", ..." : "", advice));
}

void Library::link_base_files(const std::vector<const packager::PackageFile*>& files, const InstalledFiles& installed,
                              const fs::path& staging) {
  for (const packager::PackageFile* f : files) {
    fs::path out = staging / f->path;
    fs::path cur = staging;
    for (const auto& part : fs::path(f->path).parent_path()) common::ensure_real_dir(cur /= part);
    const fs::path& from = installed.at(f->sha256);
    if (::link(from.c_str(), out.c_str()) == 0) continue;
    // Another filesystem, too many links: a copy, checked as it is written.
    std::string data = common::read_file(from);
    if (common::sha256_hex(data) != f->sha256)
      throw BaseMissingError(fmt::format("{}: changed while it was copied", from.string()));
    common::write_atomic(out, data, 0644, common::Sync::kAtomic);
  }
}

const packager::Manifest& Library::installed_manifest(const std::string& package) {
  auto it = manifests_.find(package);
  if (it == manifests_.end())
    it = manifests_
             .emplace(package, packager::parse_manifest(common::parse_json(
                                   common::read_file(root_ / package / packager::kManifestName, 64 << 20))))
             .first;
  return it->second;
}

const PackagePieces& Library::installed_pieces(const std::string& package) {
  auto it = pieces_.find(package);
  if (it != pieces_.end()) return it->second;
  PackagePieces p;
  try {
    // Missing (an older skb's package) or damaged: rendered from the manifest. Unreadable: an error.
    std::optional<std::string> text = common::read_file_if_exists(root_ / package / kIndexPiecesName, 64 << 20);
    if (!text) throw Error("no index pieces");
    p = parse_pieces_file(*text, package);
  } catch (const common::IoError&) {
    throw;
  } catch (const Error&) {
    p = pieces_of(installed_manifest(package));
  }
  return pieces_.emplace(package, std::move(p)).first->second;
}

const IndexCache* Library::index_cache(const std::vector<std::string>& order) {
  if (!cache_read_) {
    cache_read_ = true;
    try {  // unreadable, damaged or missing: the indexes are merged from the pieces, as without it
      if (std::optional<std::string> text = common::read_file_if_exists(root_ / kIndexCacheName, 1 << 30))
        cache_ = parse_index_cache(*text);
    } catch (const std::exception&) {
    }
  }
  return cache_ && cache_->order == order ? &*cache_ : nullptr;
}

InstalledFiles Library::installed_files(const packager::Manifest& m, bool from_pieces) {
  InstalledFiles files;
  if (!from_pieces) {
    // The kernels of m that the merged index lists already: each file of one is looked for under
    // its name beside the listed kernel's binary (its bytes are checked before it is linked to).
    std::unordered_set<std::string_view> keys;
    for (const auto& k : m.kernels) keys.insert(k.key);
    const std::string* text = merged_index(m.soc);
    if (!text) return files;
    std::unordered_map<std::string, std::string> bins = listed_bins(*text, keys);
    auto stem = [](std::string_view path) {  // the path up to its file name's first dot
      std::size_t slash = path.rfind('/');
      std::size_t dot = path.find('.', slash == std::string_view::npos ? 0 : slash);
      return path.substr(0, dot);
    };
    std::unordered_map<std::string_view, std::string_view> listed_stem;  // m's kernel: the listed one's
    for (const auto& k : m.kernels) {
      auto it = bins.find(k.key);
      if (it != bins.end() && packager::is_safe_relative_path(it->second))
        listed_stem.emplace(stem(k.bin), stem(it->second));
    }
    for (const auto& f : m.files) {
      std::string_view own = stem(f.path);
      auto it = listed_stem.find(own);
      if (it != listed_stem.end() && !files.count(f.sha256))
        files.emplace(f.sha256, root_ / (std::string(it->second) + f.path.substr(own.size())));
    }
    return files;
  }
  std::unordered_set<std::string_view> wanted;
  for (const auto& f : m.files) wanted.insert(f.sha256);
  for (const auto& p : read_order()) {
    try {
      for (const auto& [sha, path] : installed_pieces(p).files)
        if (wanted.count(sha) && !files.count(sha)) files.emplace(sha, root_ / p / path);
    } catch (const common::IoError&) {
      throw;
    } catch (const std::exception&) {  // a damaged package lends nothing; its files are written anew
    }
  }
  return files;
}

const std::string* Library::merged_index(const std::string& soc) {
  auto it = merged_index_.find(soc);
  if (it == merged_index_.end()) {
    std::optional<std::string> text;
    try {  // unreadable: no file is found there (and the index is merged from the pieces)
      text = common::read_file_if_exists(index_file(soc), 1 << 30);
    } catch (const std::exception&) {
    }
    it = merged_index_.emplace(soc, std::move(text)).first;
  }
  return it->second ? &*it->second : nullptr;
}

fs::path Library::journal_file() const { return root_ / "config" / "transaction.json"; }

std::string Library::journal_text(const std::string& op, const std::string& package) {
  return Json({{"op", op}, {"package", package}}).dump() + "\n";
}

void Library::write_journal(const std::string& op, const std::string& package) {
  common::write_atomic(journal_file(), journal_text(op, package));
}

void Library::clear_journal() { common::remove_file(journal_file()); }

std::optional<std::map<std::string, Rope>> Library::spliced_indexes(const std::vector<std::string>& newest_first,
                                                                    const PackagePieces& fresh,
                                                                    const std::vector<std::string>& socs,
                                                                    IndexCache& next) {
  // The cache must be of the packages before fresh, in the same order.
  if (newest_first.empty() || newest_first.front() != fresh.package) return std::nullopt;
  const IndexCache* cache = index_cache(std::vector<std::string>(newest_first.begin() + 1, newest_first.end()));
  if (!cache) return std::nullopt;
  std::map<std::string, Rope> out;
  for (const auto& [soc, check] : cache->indexes)
    if (std::find(socs.begin(), socs.end(), soc) == socs.end()) return std::nullopt;  // a soc folder went
  for (const std::string& soc : socs) {
    std::optional<std::string> old;
    if (auto read = merged_index_.find(soc); read != merged_index_.end() && read->second) {
      old = std::move(read->second);  // read by installed_files under this lock, and unchanged since
      merged_index_.erase(read);
    } else {
      try {  // unreadable: merged from the pieces
        old = common::read_file_if_exists(index_file(soc), 1 << 30);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    auto known = cache->indexes.find(soc);
    if (known == cache->indexes.end() ? old.has_value() : !old || index_check(*old) != known->second)
      return std::nullopt;  // not the index the cache was written with
    const bool had = old.has_value();
    std::optional<Rope> text = splice_index_parts(had ? std::move(*old) : std::string("{}\n"), fresh, soc);
    if (!text) return std::nullopt;
    next.indexes[soc] = index_check(text->parts());
    if (!had || !text->equals(text->base())) out.emplace(soc, std::move(*text));  // only what changes is written
  }
  next.order = newest_first;
  return out;
}

void Library::publish(const std::vector<std::string>& newest_first, const PackagePieces* fresh,
                      std::optional<Prepared> prepared) {
  // Order of writes, so that at every moment every package an index lists is in config.ini and
  // on disk: config.ini as the union of old and new, then the indexes, then config.ini as new.
  if (!prepared) {
    common::write_if_changed(root_ / "config.ini", config_ini(order_union(newest_first)));
  } else if (prepared->order_union) {
    prepared->order_union->commit();
    common::sync_folder(root_);
  }
  std::vector<std::string> socs = soc_folders();
  // An install: fresh's entries spliced into the indexes as they are, when the cache says which
  // packages they merge. Else merged from every package's pieces.
  IndexCache next;
  std::optional<std::map<std::string, Rope>> spliced;
  if (fresh && !prepared) spliced = spliced_indexes(newest_first, *fresh, socs, next);
  cache_.reset();  // what publish writes from here on is what it will know
  merged_index_.clear();
  if (prepared && prepared->indexes) {
    for (common::PreparedWrite& w : prepared->indexes->files) w.commit();
    for (const common::PreparedWrite& w : prepared->indexes->files)
      common::sync_folder(w.path().parent_path());  // one a soc
    next = std::move(prepared->indexes->cache);
  } else if (spliced) {
    for (const auto& [soc, text] : *spliced) {
      common::ensure_real_dir(root_ / "config" / soc);
      common::write_atomic(index_file(soc), text.parts());
    }
  } else {
    merge_and_write(newest_first, fresh, socs, next);
  }
  // After the indexes it describes: a cache that is not written names indexes that are gone.
  common::write_atomic(root_ / kIndexCacheName, index_cache_text(next), 0644, common::Sync::kAtomic);
  cache_ = std::move(next);
  finish_publish(newest_first,
                 prepared ? std::optional<std::vector<common::PreparedWrite>>(std::move(prepared->own)) : std::nullopt);
}

std::vector<std::string> Library::order_union(const std::vector<std::string>& newest_first) const {
  std::vector<std::string> both = newest_first;
  std::unordered_set<std::string_view> listed(newest_first.begin(), newest_first.end());  // not a search a package
  for (const auto& p : read_order())
    if (!listed.count(p)) both.push_back(p);
  return both;
}

Library::Prepared Library::prepare_publish(const std::vector<std::string>& newest_first, const PackagePieces& fresh,
                                           const std::shared_future<std::map<std::string, std::string>>& fresh_index,
                                           const std::vector<std::string>& socs, const FutureInstalledFiles& found) {
  Prepared p;
  Prepared::Indexes made;
  found.wait();  // it reads the merged index that the splice takes
  if (std::optional<std::map<std::string, Rope>> spliced = spliced_indexes(newest_first, fresh, socs, made.cache)) {
    for (const auto& [soc, text] : *spliced) made.files.emplace_back(index_file(soc), text.parts());
    p.indexes = std::move(made);
  } else if (newest_first.size() == 1 && newest_first.front() == fresh.package) {
    // Fresh alone (a first install): its merged index is its own (with no other soc's folder
    // to list), which merge_and_write would render again.
    const std::map<std::string, std::string>& own = fresh_index.get();
    if (std::all_of(socs.begin(), socs.end(), [&](const std::string& soc) { return own.count(soc) > 0; })) {
      made.cache = IndexCache{newest_first, {}};
      for (const auto& [soc, text] : own) {
        made.cache.indexes[soc] = index_check(text);
        if (std::optional<common::PreparedWrite> w = common::prepare_if_changed(index_file(soc), text))
          made.files.push_back(std::move(*w));
      }
      p.indexes = std::move(made);
    }
  }
  p.own = prepare_own_files();
  return p;
}

std::vector<const PackagePieces*> Library::pieces_to_merge(const std::vector<std::string>& newest_first,
                                                           const PackagePieces* fresh) {
  std::vector<const PackagePieces*> pieces;
  for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it) {
    if (fresh && *it == fresh->package) {
      pieces.push_back(fresh);
      continue;
    }
    try {
      pieces.push_back(&installed_pieces(*it));
    } catch (const common::IoError& e) {  // not damaged: uninstalling it is not the answer
      throw DamagedPackageError(*it, fmt::format("an installed package cannot be read: {}", e.what()));
    } catch (const std::exception& e) {
      throw DamagedPackageError(
          *it, fmt::format("{}: installed package is damaged ({}); uninstall it", (root_ / *it).string(), e.what()));
    }
  }
  return pieces;
}

void Library::merge_and_write(const std::vector<std::string>& newest_first, const PackagePieces* fresh,
                              const std::vector<std::string>& socs, IndexCache& next) {
  std::vector<const PackagePieces*> pieces = pieces_to_merge(newest_first, fresh);
  for (const auto& [soc, text] : merged_indexes(pieces, socs)) {
    common::ensure_real_dir(root_ / "config" / soc);
    common::write_if_changed(index_file(soc), text);
    next.indexes[soc] = index_check(text);
  }
  next.order = newest_first;
}

std::vector<common::PreparedWrite> Library::prepare_own_files() const {
  std::vector<common::PreparedWrite> out;
  auto prepare = [&out](const fs::path& file, std::string_view text) {
    if (std::optional<common::PreparedWrite> w = common::prepare_if_changed(file, text)) out.push_back(std::move(*w));
  };
  prepare(root_ / "version.info", fmt::format("skb_version={}\n", common::kVersion));
  prepare(root_ / "uninstall.sh", uninstall_script("every static kernel package", "", "--uninstall-all", 0));
  fs::path copy = root_ / "bin" / "skb-install";
  if (!is_running_program(copy))
    prepare(copy, common::read_file("/proc/self/exe"));  // the running program, even once unlinked
  return out;
}

void Library::finish_publish(const std::vector<std::string>& newest_first,
                             std::optional<std::vector<common::PreparedWrite>> own) {
  common::write_if_changed(root_ / "config.ini", config_ini(newest_first));
  if (!own) own = prepare_own_files();
  std::set<fs::path> folders;  // each synced once, after its renames
  for (common::PreparedWrite& w : *own) {
    w.commit();
    folders.insert(w.path().parent_path());
  }
  for (const fs::path& folder : folders) common::sync_folder(folder);
  chmod_or_throw(root_ / "uninstall.sh", 0755);
  chmod_or_throw(root_ / "bin" / "skb-install", 0755);
}

void Library::recover(const std::set<std::string>& going) {
  try {
    finish_interrupted({});
  } catch (const DamagedPackageError& e) {
    if (!going.count(e.package())) throw;
    going_ = going;
    finish_interrupted(going);
  }
  remove_leftovers();
}

void Library::finish_interrupted(const std::set<std::string>& leave_out) {
  order_.reset();  // what was read before the lock: another run may have removed a package since
  fs::path journal = journal_file();
  if (std::optional<std::string> text = common::read_file_if_exists(journal, 4096)) {
    std::string op, package;
    try {  // a journal cut short by a crash names no change: the indexes are rebuilt all the same
      Json j = common::parse_json(*text);
      op = j.at("op").get<std::string>();
      package = j.at("package").get<std::string>();
    } catch (const std::exception&) {
    }
    std::vector<std::string> order = read_order();
    if (packager::is_package_name(package)) {
      order.erase(std::remove(order.begin(), order.end(), package), order.end());
      bool present = common::is_file(root_ / package / packager::kManifestName);
      if (op == "install" && present) order.insert(order.begin(), package);  // finish it
    }
    for (const std::string& p : leave_out) order.erase(std::remove(order.begin(), order.end(), p), order.end());
    publish(order);
    if (op == "uninstall" && packager::is_package_name(package)) {
      remove_tree(root_ / package);  // no index lists it now
      order_.reset();
    }
    clear_journal();
    diag_.note(fmt::format("finished an interrupted {} of {}", op.empty() ? "change" : op, package));
  }
}

void Library::remove_package_locked(const std::string& package) {
  manifests_.erase(package);
  pieces_.erase(package);
  going_.insert(package);
  std::vector<std::string> order = read_order();  // before the journal: a read error changes nothing
  order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string& p) { return going_.count(p); }),
              order.end());
  pieces_to_merge(order, nullptr);  // as publish merges them: one that cannot be read changes nothing either
  write_journal("uninstall", package);
  publish(order);  // from here on, nothing lists the package's files
  // A failure from here on leaves the journal, and the next run under the lock finishes the removal.
  fs::path trash = root_ / fmt::format(".trash.{}.{}", package, ::getpid());
  if (::rename((root_ / package).c_str(), trash.c_str()) != 0 && errno != ENOENT)
    throw common::IoError(fmt::format("{}: cannot remove: {}", (root_ / package).string(), std::strerror(errno)));
  remove_tree(trash);
  order_.reset();  // its folder is gone: an answer that counted it unlisted is out of date
  clear_journal();
}

std::vector<fs::path> Library::leftover_dirs() const {
  std::vector<fs::path> out;
  for (const std::string& name : common::list_dir(root_))
    if (name.rfind(".staging.", 0) == 0 || name.rfind(".trash.", 0) == 0) out.push_back(root_ / name);
  return out;
}

bool Library::recovery_pending() const { return common::path_exists(journal_file()) || !leftover_dirs().empty(); }

bool Library::same_payload_installed(const PayloadSource& payload) const {
  if (!packager::is_package_name(payload.package)) return false;
  // Missing while the package is not installed: no exception on the way to the lock.
  std::optional<std::string> recorded = common::read_file_if_exists(root_ / payload.package / "payload.sha256", 128);
  if (recorded != payload.sha256 + "\n") return false;
  std::vector<std::string> order = read_order();
  return std::find(order.begin(), order.end(), payload.package) != order.end();
}

bool Library::install(const PayloadSource& payload, const LibraryOptions& o) {
  // Installed already: nothing of its payload would be used.
  auto installed_already = [&] { return !o.force && !recovery_pending() && same_payload_installed(payload); };
  if (installed_already()) return false;
  // The lock comes before the manifest is read, and, in a library that has its lock file, before
  // the payload's hash: the ranks of a node that run one package at once wait for the one that
  // installs it, then find it installed, without each reading and hashing the payload. In a new
  // library the hash comes first, so that a damaged package creates nothing, not even the lock.
  std::unique_ptr<LibraryLock> lock = LibraryLock::if_exists(lock_file(), o.lock_timeout, diag_);
  if (lock && installed_already()) return false;
  // In a new library, the copies that start at once take turns on the folder it goes into (a
  // folder's flock creates nothing) until the first has made the lock file: the others then wait
  // on that, and find the package installed without hashing the payload.
  std::unique_ptr<LibraryLock> first;
  if (!lock) {
    first = LibraryLock::on_folder(nearest_folder(root_), o.lock_timeout, diag_);
    if (first && common::path_exists(lock_file())) {
      first.reset();
      lock = LibraryLock::if_exists(lock_file(), o.lock_timeout, diag_);
      if (lock && installed_already()) return false;
    }
  }
  // Hashed before anything is written: a damaged package changes nothing. Under either lock, the
  // manifest is parsed meanwhile (extraction and the index reuse it); without one (a folder
  // that cannot be locked) it is parsed once the lock is taken, by the copy that installs.
  std::optional<PayloadManifest> pm;
  if (lock || first)
    pm = read_checked_manifest(payload);
  else
    verify_payload_hash(payload);
  // A delta's base cannot be in a library that is not there: refused before anything is made,
  // not even the lock file (whose absence means that no library was ever made here).
  if (pm && !lock && !common::path_exists(root_)) check_base_files(pm->manifest, base_files(pm->manifest), {});
  ensure_parent();
  if (!lock) lock = std::make_unique<LibraryLock>(lock_file(), o.lock_timeout, diag_);
  first.reset();
  const bool created = !common::path_exists(root_);
  ensure_layout();
  // --force and --upgrade replace the package: its own damage does not stop them.
  recover(o.force || o.upgrade ? std::set<std::string>{payload.package} : std::set<std::string>{});
  try {
    return install_locked(payload, std::move(pm), o);
  } catch (...) {
    if (created) remove_root_if_empty();  // a refused first install leaves no ai_core/ behind
    throw;
  }
}

bool Library::install_locked(const PayloadSource& payload, std::optional<PayloadManifest> read,
                             const LibraryOptions& o) {
  if (!o.force && same_payload_installed(payload)) return false;
  PayloadManifest pm = read ? std::move(*read) : read_manifest(payload);
  packager::Manifest& m = pm.manifest;
  if (!payload.package.empty() && payload.package != m.package)
    throw VerifyError(fmt::format("the header names {}, the payload {}", payload.package, m.package));
  struct statvfs vfs;
  if (::statvfs(root_.c_str(), &vfs) == 0) {
    std::uint64_t avail = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    std::uint64_t need = m.installed_size + m.installed_size / 10 + (1 << 20);
    if (avail < need)
      throw Error(fmt::format("{}: {} bytes free, {} needed to install {}; nothing was changed", root_.string(), avail,
                              need, m.package));
  }
  common::ensure_real_dir(root_ / "config" / m.soc);  // refused now, before anything changes, if it is a symlink

  fs::path target = root_ / m.package;
  const std::string& wanted = pm.text;
  if (common::path_exists(target / packager::kManifestName)) {
    bool same = common::read_file(target / packager::kManifestName, 64 << 20) == wanted;
    if (same && !o.force) {
      std::vector<std::string> order = read_order();
      if (std::find(order.begin(), order.end(), m.package) != order.end()) return false;
    }
    if (!same && !o.force && !o.upgrade)
      throw Error(fmt::format("{} is installed with other contents; use --upgrade to replace it", m.package));
    remove_package_locked(m.package);
  }

  std::vector<const packager::PackageFile*> from_base = base_files(m);
  FutureInstalledFiles installed;
  if (from_base.empty()) {
    // The files the package may link to, found while its payload is read (reading and searching
    // the merged index: megabytes, in a library of hundreds of packages).
    installed = std::async(std::launch::async, [&m, this] { return installed_files(m); }).share();
  } else {
    // A delta package's other files must be in the library, byte for byte, before anything is
    // written (a package with all its files, whichever holds them).
    InstalledFiles found = installed_files(m);
    try {
      check_base_files(m, from_base, found);
    } catch (const BaseMissingError&) {  // a cache that missed a file: every package's pieces say
      found = installed_files(m, true);
      check_base_files(m, from_base, found);
    }
    installed = ready_installed_files(std::move(found));
  }

  const PackagePieces pieces = pieces_of(m);
  // The order and the socs the install publishes: the lock keeps them as they are until then.
  std::vector<std::string> order = read_order();
  order.erase(std::remove(order.begin(), order.end(), m.package), order.end());
  order.insert(order.begin(), m.package);
  const std::vector<std::string> socs = soc_folders();
  fs::path staging = root_ / fmt::format(".staging.{}.{}", m.package, ::getpid());
  // Files below staging are made durable all at once (sync_tree) before anything points at them.
  constexpr common::Sync kStaged = common::Sync::kAtomic;
  // The package's index pieces and own index, rendered on another thread while its files are
  // written (its own index: as CANN's installer leaves it beside its kernels, for tools that
  // count a package's kernels; opbase reads the merged one in ai_core/config/).
  std::future<std::string> pieces_gz = std::async(std::launch::async, [&pieces] { return pieces_file(pieces); });
  std::shared_future<std::map<std::string, std::string>> own_index =  // soc: its binary_info_config.json
      std::async(std::launch::async, [&pieces] { return merged_indexes({&pieces}, {}); }).share();
  // What publishing writes, written and synced meanwhile too: the merged indexes with the
  // package's entries spliced in (megabytes, in a library of hundreds of packages) and the
  // library's own files (on a first install, 1.8 MB of installer); the install then only renames
  // them. The journal and config.ini with the old order and the new are small: written now, they
  // are made durable by the sync of the package's files (one journal commit with them, where an
  // fsync of each on the other thread would wait for a commit of the files being written).
  constexpr common::Sync kByTreeSync = common::Sync::kAtomic;
  common::PreparedWrite journal(journal_file(), journal_text("install", m.package), 0644, kByTreeSync);
  std::optional<common::PreparedWrite> union_order =
      common::prepare_if_changed(root_ / "config.ini", config_ini(order_union(order)), 0644, kByTreeSync);
  std::future<Prepared> preparing = std::async(std::launch::async, [&, this, found = installed] {
    return prepare_publish(order, pieces, own_index, socs, found);
  });
  Prepared prepared;
  try {
    read_payload(payload, staging, pm, installed);
    if (!from_base.empty()) link_base_files(from_base, installed.get(), staging);
    common::write_atomic(staging / "uninstall.sh",
                         uninstall_script(m.package, "--package=" + m.package, "--uninstall", 1), 0755, kStaged);
    common::write_atomic(staging / packager::kManifestName, wanted, 0644, kStaged);
    common::write_atomic(staging / "payload.sha256", payload.sha256 + "\n", 0644, kStaged);
    common::write_atomic(staging / kIndexPiecesName, pieces_gz.get(), 0644, kStaged);
    for (const auto& [soc, text] : own_index.get()) {
      common::ensure_real_dir(staging / "config");
      common::ensure_real_dir(staging / "config" / soc);
      common::write_atomic(staging / "config" / soc / "binary_info_config.json", text, 0644, kStaged);
    }
  } catch (...) {
    remove_tree_after_failure(staging);
    throw;
  }
  try {
    TreeSync synced =
        sync_tree(staging, m.installed_size, m.files.size());  // the kernels are on disk before anything points at them
    if (synced.way == SyncWay::kEachFile)
      diag_.note(
          fmt::format("synced the {} files and folders of {} one by one: other processes had {} MiB not yet on "
                      "disk, which a sync of the whole filesystem would have waited for",
                      synced.paths, m.package, synced.others_unsynced >> 20));
    prepared = preparing.get();                              // fails (a full disk) before anything changes
    if (!prepared.indexes) pieces_to_merge(order, &pieces);  // what publish merges, read now: a failure changes nothing
    journal.sync(synced.filesystem);                         // when the sync above did not cover it (file by file)
    if (union_order) union_order->sync(synced.filesystem);
    prepared.order_union = std::move(union_order);
    journal.commit();  // the install, as the next run under the lock finds it
    common::sync_folder(journal_file().parent_path());
    remove_tree(target);  // a half package left by something else than us
  } catch (...) {
    remove_tree_after_failure(staging);
    throw;
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    int e = errno;
    remove_tree_after_failure(staging);
    throw common::IoError(fmt::format("{}: cannot publish: {}", target.string(), std::strerror(e)));
  }
  publish(order, &pieces, std::move(prepared));
  clear_journal();
  return true;
}

bool Library::uninstall(const std::string& package, const LibraryOptions& o) {
  if (!packager::is_package_name(package)) throw Error(fmt::format("{}: not a package name", package));
  std::unique_ptr<LibraryLock> lock = lock_for_removal(o);
  if (!lock) return false;
  recover({package});
  bool removed = common::path_exists(root_ / package);
  if (removed) remove_package_locked(package);
  remove_root_if_empty();
  return removed;
}

void Library::uninstall_all(const LibraryOptions& o) {
  std::unique_ptr<LibraryLock> lock = lock_for_removal(o);
  if (!lock) return;
  // Every package goes: what is published meanwhile lists none of those still to go, so that a
  // damaged one stops nothing.
  std::vector<std::string> listed = read_order();
  std::set<std::string> all(listed.begin(), listed.end());
  recover(all);
  going_.insert(all.begin(), all.end());
  for (const auto& p : read_order()) remove_package_locked(p);
  remove_root_if_empty();
}

}  // namespace skb::installer
