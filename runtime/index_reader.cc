#include "runtime/index_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <vector>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "packager/format/manifest.h"

namespace skb::runtime {
namespace fs = std::filesystem;
using common::Error;
using common::Field;

namespace {

constexpr std::size_t kMaxIndexSize = std::size_t{1} << 30;
constexpr std::size_t kMaxKernelsPerOp = std::size_t{1} << 24;

// The SoCs a library has kernels for: the folders of config/, sorted.
std::vector<std::string> installed_socs(const fs::path& root) {
  std::vector<std::string> socs = common::list_folders(root / "config");  // unreadable: an IoError, not "none"
  std::sort(socs.begin(), socs.end());
  return socs;
}

std::string only_soc(const fs::path& root) {
  std::vector<std::string> socs = installed_socs(root);
  if (socs.empty()) throw Error(fmt::format("{}: no installed kernels (no config/<soc>/)", root.string()));
  if (socs.size() > 1)
    throw Error(fmt::format("{}: several SoCs are installed ({}); name the one to use by its folder's name",
                            (root / "config").string(), fmt::join(socs, ", ")));
  return socs.front();
}

IndexEntry read_entry(const Field& e, const std::string& op, const fs::path& root) {
  IndexEntry k;
  k.op_type = op;
  k.key = e.at("skbKey").string(64);
  k.kernel_name = e.at("kernelName").string(256);
  k.package = e.at("package").string(128);
  std::string bin = e.at("binPath").string(1024);
  if (!packager::is_safe_relative_path(bin) || !packager::is_package_name(bin.substr(0, bin.find('/'))))
    e.at("binPath").reject("expected a path inside a package folder");
  k.bin = root / bin;
  k.entry = e.at("binDesc").at("kernelName").string(128);
  k.sha256 = e.at("sha256").string(64);
  if (k.sha256.size() != 64) e.at("sha256").reject("expected 64 hex digits");
  k.variant = e.at("variant").string(16);
  if (k.variant != "static" && k.variant != "dynamic") e.at("variant").reject("expected \"static\" or \"dynamic\"");
  if (e.has("launch")) k.launch = packager::parse_launch(e.at("launch"));
  return k;
}

}  // namespace

std::unordered_map<std::string, IndexEntry> parse_index(std::string_view text, const fs::path& root) {
  std::unordered_map<std::string, IndexEntry> by_key;
  common::Json doc = common::parse_json(text);
  Field top(doc, "");
  top.expect_object();
  for (const auto& [op, value] : doc.items()) {
    // staticList: the kernels opbase also reads; skbList: skb's other kernels (dynamic ones, ...).
    for (const char* name : {"staticList", "skbList"}) {
      if (!top.at(op).has(name)) continue;
      Field list = top.at(op).at(name);
      std::size_t n = list.array_size(kMaxKernelsPerOp);
      for (std::size_t i = 0; i < n; ++i) {
        IndexEntry k = read_entry(list.at(i), op, root);
        std::string key = k.key;
        by_key.insert_or_assign(std::move(key), std::move(k));
      }
    }
  }
  return by_key;
}

const std::string* Index::withheld_reason(const std::string& key) const {
  auto it = withheld.find(key);
  return it == withheld.end() ? nullptr : &it->second;
}

Index read_index(const fs::path& root, const std::string& soc_name) {
  Index index;
  index.soc = soc_name.empty() ? only_soc(root) : soc_name;
  if (!packager::is_safe_relative_path(index.soc) || index.soc.find('/') != std::string::npos)
    throw Error(fmt::format("SoC name \"{}\": expected [A-Za-z0-9_.-]", index.soc));
  fs::path file = root / "config" / index.soc / "binary_info_config.json";
  auto not_installed = [&](const std::string& why) {
    std::vector<std::string> socs = installed_socs(root);
    return Error(
        fmt::format("no kernels installed for SoC {}: {} (installed: {}; a SoC is named by its folder "
                    "in config/, such as ascend910b for Ascend910B3)",
                    index.soc, why, socs.empty() ? "none" : fmt::format("{}", fmt::join(socs, ", "))));
  };
  std::optional<std::string> text;
  try {
    text = common::read_file_if_exists(file, kMaxIndexSize, common::Accept::kRegularFile);
  } catch (const common::IoError&) {  // there, but unreadable: said as it is
    throw;
  } catch (const Error& e) {
    throw not_installed(e.what());
  }
  if (!text) throw not_installed(fmt::format("{} does not exist", file.string()));
  try {
    index.by_key = parse_index(*text, root);
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: {}", file.string(), e.describe()));
  }
  return index;
}

}  // namespace skb::runtime
