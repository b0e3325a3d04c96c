#include "opmodel/discovery.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "common/error.h"

namespace skb::opmodel {
namespace fs = std::filesystem;

const char* const kDiscoveryHelp =
    "Each -p DIR is read as follows:\n"
    "  - a process folder (it holds <pid>_opcompile, <pid>_opcompile_selected,\n"
    "    <pid>_opcompile_gathered or <pid>_debug): the *.json files of its _opcompile*\n"
    "    folders, or of <pid>_debug when it has no _opcompile* folder, less those named\n"
    "    in <pid>_opcompile_blacklist (records the user said never to compile);\n"
    "  - a dump root (e.g. aclnn_static_shape_kernel_outputs/, holding process folders\n"
    "    named ts<time>_pid<pid>_outputs or <time>_<pid>_outputs): each process folder;\n"
    "  - any other folder: its own *.json files, not recursively.\n";

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One entry of a folder: its path and what it is (a symlink counts as what it points to).
struct Entry {
  std::string path;
  std::size_t name_at = 0;  // where its name starts in path
  bool is_dir = false, is_file = false;
  std::string_view name() const { return std::string_view(path).substr(name_at); }
};

// A folder's entries sorted by name, as plain strings: a folder of a dump holds 100,000 files,
// and a std::filesystem entry per file would cost ten times their names.
std::vector<Entry> list(const fs::path& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) throw common::Error(fmt::format("{}: cannot list: {}", dir.string(), std::strerror(errno)));
  std::vector<Entry> entries;
  const std::string prefix = dir.native() + (ends_with(dir.native(), "/") ? "" : "/");
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d.get());
    if (!e && errno != 0) throw common::Error(fmt::format("{}: cannot list: {}", dir.string(), std::strerror(errno)));
    if (!e) break;
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    Entry entry{prefix + std::string(name), prefix.size()};
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN || type == DT_LNK) {
      struct stat st;
      type = ::stat(entry.path.c_str(), &st) != 0 ? DT_UNKNOWN
             : S_ISDIR(st.st_mode)                ? DT_DIR
             : S_ISREG(st.st_mode)                ? DT_REG
                                                  : DT_UNKNOWN;
    }
    entry.is_dir = type == DT_DIR;
    entry.is_file = type == DT_REG;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  return entries;
}

// "<pid>_<suffix>" for a suffix of the record folders.
enum class RecordFolder { kNone, kOpcompile, kDebug, kBlacklist };
RecordFolder record_folder_kind(const std::string& name) {
  std::size_t us = name.find('_');
  if (us == std::string::npos || !all_digits(name.substr(0, us))) return RecordFolder::kNone;
  std::string suffix = name.substr(us + 1);
  if (suffix == "opcompile" || suffix == "opcompile_selected" || suffix == "opcompile_gathered")
    return RecordFolder::kOpcompile;
  if (suffix == "debug") return RecordFolder::kDebug;
  if (suffix == "opcompile_blacklist") return RecordFolder::kBlacklist;
  return RecordFolder::kNone;
}

bool looks_like_process_folder_name(const std::string& name) { return ends_with(name, "_outputs"); }

// The *.json entries of dir, less those whose names are in `left_out` (said in out.left_out).
void add_json_files(const fs::path& dir, Discovery& out, const std::set<std::string>& left_out = {}) {
  out.folders.push_back(dir);
  for (auto& e : list(dir)) {
    if (e.name().size() <= 5 || !ends_with(e.path, ".json") || e.is_dir) continue;
    if (left_out.count(std::string(e.name())))
      out.left_out.push_back(std::move(e.path));
    else
      (e.is_file ? out.files : out.not_files).push_back(std::move(e.path));
  }
}

// Returns false when dir is not a process folder.
bool scan_process_folder(const fs::path& dir, Discovery& out) {
  std::vector<fs::path> opcompile, debug, blacklist;
  for (const auto& e : list(dir)) {
    if (!e.is_dir) continue;
    switch (record_folder_kind(std::string(e.name()))) {
      case RecordFolder::kOpcompile:
        opcompile.push_back(e.path);
        break;
      case RecordFolder::kDebug:
        debug.push_back(e.path);
        break;
      case RecordFolder::kBlacklist:
        blacklist.push_back(e.path);
        break;
      case RecordFolder::kNone:
        break;
    }
  }
  if (opcompile.empty() && debug.empty()) return false;
  out.folders.push_back(dir);
  // torchair copies a blacklisted record into <pid>_opcompile_blacklist/ and leaves it in
  // <pid>_opcompile/ too: the same file name in both.
  std::set<std::string> left_out;
  for (const auto& b : blacklist) {
    out.folders.push_back(b);
    for (const auto& e : list(b))
      if (ends_with(e.path, ".json")) left_out.insert(std::string(e.name()));
  }
  for (const auto& d : opcompile.empty() ? debug : opcompile) add_json_files(d, out, left_out);
  return true;
}

}  // namespace

Discovery discover(const std::vector<fs::path>& dirs) {
  Discovery out;
  for (const fs::path& given : dirs) {
    std::error_code ec;
    fs::path dir = fs::absolute(given, ec).lexically_normal();
    if (!dir.empty() && dir.filename().empty()) dir = dir.parent_path();
    if (!fs::is_directory(dir, ec))  // the reason when it is not that it is something else, or nothing
      throw common::Error(
          fmt::format("{}: {} (-p expects a dump root, a process folder or a folder of JSON files)", given.string(),
                      ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "not a folder"));
    if (scan_process_folder(dir, out)) continue;
    bool any_process = false;
    for (const auto& e : list(dir)) {
      if (!e.is_dir || !looks_like_process_folder_name(std::string(e.name()))) continue;
      any_process |= scan_process_folder(e.path, out);
    }
    if (any_process) {
      out.folders.push_back(dir);
      continue;
    }
    add_json_files(dir, out);
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  std::sort(out.not_files.begin(), out.not_files.end());
  out.not_files.erase(std::unique(out.not_files.begin(), out.not_files.end()), out.not_files.end());
  std::sort(out.left_out.begin(), out.left_out.end());
  std::sort(out.folders.begin(), out.folders.end());
  out.folders.erase(std::unique(out.folders.begin(), out.folders.end()), out.folders.end());
  return out;
}

}  // namespace skb::opmodel
