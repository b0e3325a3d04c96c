#include "packager/format/manifest.h"

#include <fmt/format.h>
#include <algorithm>

#include "common/error.h"
#include "common/sha256.h"
#include "packager/format/payoff_evidence.h"

namespace skb::packager {
using common::Field;
using common::FieldError;
using common::Json;

namespace {
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
std::string name_field(const Field& f) {
  std::string s = f.string(160);
  if (s.empty() || !std::all_of(s.begin(), s.end(), is_name_char))
    throw FieldError(f.pointer(), "expected a name of [A-Za-z0-9_]");
  return s;
}
std::string hex_field(const Field& f) {
  std::string s = f.string(64);
  if (!common::is_sha256_hex(s)) throw FieldError(f.pointer(), "expected 64 lower-case hex digits");
  return s;
}
std::string path_field(const Field& f) {
  std::string s = f.string(512);
  if (!is_safe_relative_path(s))
    throw FieldError(
        f.pointer(),
        "expected a relative path of [A-Za-z0-9_.-] components of at most 255 characters, without \".\" or "
        "\"..\"");
  return s;
}
}  // namespace

void refuse_moving_base(const std::filesystem::path& base) {
  if (base.filename() == kLatestPackageLink)
    throw common::Error(
        fmt::format("{}: the link to a build's newest package moves to each new one, the delta "
                    "included; give the base package's own file (static_kernel_<...>.run)",
                    base.string()));
}

std::filesystem::path library_root(const std::filesystem::path& install_path) {
  return install_path / "opp" / "static_kernel" / "ai_core";
}

const char* const kSocNameExpected =
    "expected a SoC name of [A-Za-z0-9_] other than bin, config and payoff (the operator library's own folders)";

bool is_soc_name(std::string_view soc) {
  return !soc.empty() && soc.size() <= 160 && std::all_of(soc.begin(), soc.end(), is_name_char) && soc != "bin" &&
         soc != "config" && soc != "payoff";
}

void check_soc_version(std::string_view version) {
  if (version.empty() || version.size() > 160 ||
      !std::all_of(version.begin(), version.end(), [](char c) { return is_name_char(c) || c == '-'; }))
    throw common::Error(
        fmt::format("{}: expected a SoC version such as Ascend910B3 or sm_90 (letters, digits, _ and -)",
                    version.empty() ? "''" : std::string(version)));
}

bool is_simplified_key(std::string_view key) {
  return key.size() <= (1 << 16) && std::all_of(key.begin(), key.end(), [](char c) {
           return is_name_char(c) || c == '/' || c == '=' || c == ',' || c == '(' || c == ')' || c == '[' || c == ']';
         });
}

bool is_package_name(std::string_view name) {
  constexpr std::string_view kPrefix = "static_kernel_";
  return name.size() > kPrefix.size() && name.size() <= 128 && name.substr(0, kPrefix.size()) == kPrefix &&
         std::all_of(name.begin(), name.end(), is_name_char);
}

// A file name no Linux file system takes longer (NAME_MAX): a longer one would pass the checks and
// fail the write midway through an install.
constexpr std::size_t kMaxNameBytes = 255;

bool is_safe_relative_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  int components = 0;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.size() > kMaxNameBytes || ++components > 8) return false;
    for (char c : part)
      if (!is_name_char(c) && c != '.' && c != '-') return false;
    start = end + 1;
  }
  return true;
}

std::string Manifest::payoff_summary() const {
  if (measured_on.empty()) return "";
  std::size_t faster = 0, same = 0;
  for (const auto& k : measured) ++(k.verdict == kFaster ? faster : same);
  return fmt::format(
      "measured on {}: {} kept faster than their dynamic twins, {} with no measurable difference, {} left out as "
      "slower",
      measured_on, faster, same, left_out.size());
}

std::string Manifest::payoff_of(const std::string& kernel) const {
  auto it = std::find_if(measured.begin(), measured.end(), [&](const MeasuredKernel& k) { return k.name == kernel; });
  if (it == measured.end() || it->name != kernel) return "";
  return fmt::format("{}, {:.2f}x ({:.2f}-{:.2f})", it->verdict, it->ratio, it->low, it->high);
}

std::size_t Manifest::files_from_base() const {
  return static_cast<std::size_t>(
      std::count_if(files.begin(), files.end(), [](const PackageFile& f) { return !f.carried; }));
}

std::string manifest_json(const Manifest& m) {
  Json kernels = Json::array();
  for (const auto& k : m.kernels) {
    kernels.push_back({{"name", k.name},
                       {"op_type", k.op_type},
                       {"variant", k.variant},
                       {"key", k.key},
                       {"entry", k.entry},
                       {"bin", k.bin},
                       {"simplified_keys", k.simplified_keys},
                       {"core_type", k.core_type},
                       {"block_dim", k.block_dim},
                       {"workspace", k.workspace},
                       {"value_depend_index", k.value_depend_index}});
    if (k.launch.on_device()) kernels.back()["launch"] = launch_json(k.launch);
  }
  Json files = Json::array();
  for (const auto& f : m.files) {
    files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"size", f.size}});
    if (!f.carried) files.back()["carried"] = false;
  }
  Json j = {{"format", m.format},
            {"package", m.package},
            {"soc", m.soc},
            {"created", m.created},
            {"skb_version", m.skb_version},
            {"toolchain", m.toolchain},
            {"toolchain_identity", m.toolchain_identity},
            {"installed_size", m.installed_size},
            {"kernels", std::move(kernels)},
            {"files", std::move(files)}};
  if (!m.base.empty()) j["base"] = m.base;
  if (!m.left_out.empty()) {
    j["left_out"] = Json::array();
    for (const auto& k : m.left_out) j["left_out"].push_back({{"kernel", k.name}, {"reason", k.reason}});
  }
  if (!m.measured_on.empty()) {
    j["payoff"] = {{"measured_on", m.measured_on}, {"kernels", Json::array()}};
    for (const auto& k : m.measured)
      j["payoff"]["kernels"].push_back(
          {{"kernel", k.name}, {"verdict", k.verdict}, {"ratio", k.ratio}, {"low", k.low}, {"high", k.high}});
  }
  return j.dump(1) + "\n";
}

Manifest parse_manifest(const Json& doc) {
  Field root(doc, "");
  root.expect_object();
  Manifest m;
  m.format = static_cast<int>(root.at("format").integer(1, 1));
  m.package = root.at("package").string(128);
  if (!is_package_name(m.package)) throw FieldError("/package", "expected static_kernel_<[A-Za-z0-9_]>");
  m.soc = root.at("soc").string(160);
  if (!is_soc_name(m.soc)) throw FieldError("/soc", kSocNameExpected);
  m.created = root.at("created").string(64);
  m.skb_version = root.at("skb_version").string(64);
  m.toolchain = name_field(root.at("toolchain"));
  m.toolchain_identity = hex_field(root.at("toolchain_identity"));
  if (root.has("base")) {
    m.base = root.at("base").string(128);
    if (!is_package_name(m.base) || m.base == m.package)
      throw FieldError("/base", "expected the name of another package, static_kernel_<[A-Za-z0-9_]>");
  }
  if (root.has("left_out")) {
    Field left = root.at("left_out");
    for (std::size_t i = 0, n = left.array_size(1 << 22); i < n; ++i) {
      m.left_out.push_back({name_field(left.at(i).at("kernel")), left.at(i).at("reason").string(1024)});
    }
  }
  if (root.has("payoff")) {
    Field payoff = root.at("payoff");
    m.measured_on = payoff.at("measured_on").string(512);
    Field kernels = payoff.at("kernels");
    for (std::size_t i = 0, n = kernels.array_size(1 << 22); i < n; ++i) {
      Field k = kernels.at(i);
      MeasuredKernel mk{name_field(k.at("kernel")), k.at("verdict").string(16), k.at("ratio").number(),
                        k.at("low").number(), k.at("high").number()};
      if (mk.verdict != kFaster && mk.verdict != kSlower && mk.verdict != kNoDifference)
        k.at("verdict").reject("expected faster, slower or same");
      m.measured.push_back(std::move(mk));
    }
  }
  m.installed_size = static_cast<std::uint64_t>(root.at("installed_size").integer(0, std::int64_t{1} << 50));
  Field files = root.at("files");
  std::size_t nf = files.array_size(1 << 22);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < nf; ++i) {
    Field f = files.at(i);
    PackageFile pf{path_field(f.at("path")), hex_field(f.at("sha256")),
                   static_cast<std::uint64_t>(f.at("size").integer(0, std::int64_t{1} << 40))};
    if (f.has("carried")) pf.carried = f.at("carried").boolean();
    if (pf.path.rfind(m.soc + "/", 0) != 0)
      throw FieldError(f.at("path").pointer(), "expected a path under the package's soc");
    if (!m.files.empty() && m.files.back().path >= pf.path)
      throw FieldError(f.at("path").pointer(), "expected unique paths in sorted order");
    total += pf.size;
    m.files.push_back(std::move(pf));
  }
  if (total != m.installed_size) throw FieldError("/installed_size", "expected the sum of the files' sizes");
  if (m.base.empty())
    for (std::size_t i = 0; i < m.files.size(); ++i)
      if (!m.files[i].carried)
        throw FieldError(fmt::format("/files/{}/carried", i), "expected true in a package without a base");
  Field kernels = root.at("kernels");
  std::size_t nk = kernels.array_size(1 << 20);
  for (std::size_t i = 0; i < nk; ++i) {
    Field k = kernels.at(i);
    PackageKernel pk;
    pk.name = name_field(k.at("name"));
    pk.op_type = name_field(k.at("op_type"));
    pk.variant = k.at("variant").string(16);
    pk.key = hex_field(k.at("key"));
    pk.entry = name_field(k.at("entry"));
    pk.bin = path_field(k.at("bin"));
    // Fields opbase reads; packages made before they existed have none.
    auto key_field = [&](const Field& f) {
      std::string key = f.string(1 << 16);
      if (!is_simplified_key(key)) throw FieldError(f.pointer(), "expected a key of [A-Za-z0-9_/=,()[]]");
      if (std::find(pk.simplified_keys.begin(), pk.simplified_keys.end(), key) != pk.simplified_keys.end())
        throw FieldError(f.pointer(), "expected each key once");
      pk.simplified_keys.push_back(std::move(key));
    };
    if (k.has("simplified_keys")) {
      Field keys = k.at("simplified_keys");
      for (std::size_t n = keys.array_size(kMaxSimplifiedKeys), j = 0; j < n; ++j) key_field(keys.at(j));
    } else if (k.has("simplified_key") && !k.at("simplified_key").string(1 << 16).empty()) {
      key_field(k.at("simplified_key"));  // one key, as packages of skb 0.1 say it
    }
    if (k.has("core_type")) pk.core_type = static_cast<int>(k.at("core_type").integer(0, 255));
    if (k.has("block_dim")) pk.block_dim = static_cast<std::uint32_t>(k.at("block_dim").integer(1, 1 << 20));
    if (k.has("workspace")) {
      Field ws = k.at("workspace");
      for (std::size_t w = 0, n = ws.array_size(64); w < n; ++w)
        pk.workspace.push_back(ws.at(w).integer(-1, std::int64_t{1} << 40));
    }
    if (k.has("value_depend_index")) {
      Field vd = k.at("value_depend_index");
      for (std::size_t v = 0, n = vd.array_size(64); v < n; ++v) {
        pk.value_depend_index.push_back(vd.at(v).integer(0, 1023));
        if (v > 0 && pk.value_depend_index[v] <= pk.value_depend_index[v - 1])
          throw FieldError(vd.at(v).pointer(), "expected input positions in increasing order");
      }
    }
    if (pk.variant != "static" && pk.variant != "dynamic")
      throw FieldError(k.at("variant").pointer(), "expected \"static\" or \"dynamic\"");
    if (k.has("launch")) {
      pk.launch = parse_launch(k.at("launch"));
      if ((pk.launch.grid == 0) != (pk.variant == "dynamic"))
        throw FieldError(k.at("launch").at("grid").pointer(),
                         "expected a grid for a static kernel, 0 (from the call) for a dynamic one");
    }
    bool listed = std::binary_search(m.files.begin(), m.files.end(), PackageFile{pk.bin, "", 0},
                                     [](const PackageFile& a, const PackageFile& b) { return a.path < b.path; });
    if (!listed) throw FieldError(k.at("bin").pointer(), "expected the path of a file listed in /files");
    m.kernels.push_back(std::move(pk));
  }
  return m;
}

}  // namespace skb::packager
