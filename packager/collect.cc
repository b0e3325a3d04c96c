#include "packager/collect.h"

#include <fmt/format.h>
#include <algorithm>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "common/version.h"
#include "opmodel/op_record.h"
#include "opmodel/opbase_key.h"

namespace skb::packager {
namespace fs = std::filesystem;
using common::Error;
using common::Json;

namespace {

Json parse_file(const fs::path& p, const std::string& text) {
  try {
    return common::parse_json(text);
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: {}", p.string(), e.describe()));
  }
}

[[noreturn]] void cannot_pack(const std::vector<std::string>& problems, std::size_t planned, const std::string& hint) {
  std::string text = fmt::format("{} of {} kernels cannot be packed:", problems.size(), planned);
  for (const auto& p : problems) text += "\n  " + p;
  throw Error(text + "\n(" + hint + ")");
}

// A kernel whose files do not match its build record is forgotten: its record goes, so that the
// next `ninja` sees the compile step's output missing and compiles it again (a damaged binary with
// a recent mtime, or one edited in place, is otherwise up to date to ninja, and no package could
// ever be made). Its name is the part of a problem before ": ".
void forget_kernels(const fs::path& kdir, const std::vector<std::string>& problems) {
  for (const auto& p : problems) {
    std::string name = p.substr(0, p.find(": "));
    if (opmodel::is_identifier(name)) common::remove_file(kdir / (name + ".json"));
  }
}

// The compiler's sidecar of a kernel in kernel_meta, as the compile step names it.
constexpr const char* kSidecarSuffix = ".sidecar.json";

Json read_json(const fs::path& p) { return parse_file(p, common::read_file(p, 64 << 20)); }

// What opbase's index says of a static kernel's call: the keys its two engines build for it
// (none when opbase's form cannot say it: opbase then does not list the kernel) and the flat
// positions of its value-depend inputs, both from the signature in its .info; nothing for a
// dynamic kernel.
struct OpbaseFacts {
  std::vector<std::string> simplified_keys;
  std::vector<std::int64_t> value_depend_index;
};

OpbaseFacts opbase_facts(const fs::path& info, const std::string& signature, const std::string& variant) {
  if (variant != "static") return {};
  try {
    opmodel::OpRecord r = opmodel::record_from_signature(common::parse_json(signature));
    OpbaseFacts f{opmodel::opbase_simplified_keys(r), {}};
    std::int64_t position = 0;  // one per tensor, an absent input counting one
    for (const opmodel::Slot& slot : r.inputs) {
      if (slot.kind == opmodel::Slot::Kind::kAbsent) ++position;
      for (const opmodel::Tensor& t : slot.tensors) {
        if (t.value_depend) f.value_depend_index.push_back(position);
        ++position;
      }
    }
    return f;
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: {}", info.string(), e.describe()));
  }
}

}  // namespace

Collected collect_kernels(const fs::path& build_dir) {
  fs::path plan_path = build_dir / "plan.json";
  std::error_code not_there;
  if (!fs::is_directory(build_dir, not_there)) throw Error(fmt::format("{}: no such folder", build_dir.string()));
  if (!fs::exists(plan_path))
    throw Error(fmt::format("{}: no plan.json: is this an output folder of skb-generate?", build_dir.string()));
  Json plan = read_json(plan_path);
  Collected c;
  Manifest& m = c.manifest;
  try {
    m.soc = plan.at("soc").get<std::string>();
    m.toolchain = plan.at("toolchain").get<std::string>();
    m.toolchain_identity = plan.at("toolchain_identity").get<std::string>();
  } catch (const Json::exception&) {
    throw Error(fmt::format("{}: expected soc, toolchain and toolchain_identity", plan_path.string()));
  }
  m.skb_version = common::kVersion;
  const int core_type = plan.value("core_type", 0);
  const std::uint32_t block_dim = plan.value("block_dim", 1u);
  std::string suffix = plan.value("suffix", ".so");
  std::vector<std::string> problems, damaged;  // not built; built, but not as their records say
  fs::path kdir = build_dir / "kernel_meta";
  for (const auto& k : plan.at("kernels")) {
    std::string name = k.at("name").get<std::string>();
    std::string op = k.at("op_type").get<std::string>();
    fs::path record_path = kdir / (name + ".json");
    fs::path bin_path = kdir / (name + suffix);
    fs::path info_path = kdir / (name + ".info");
    if (!fs::exists(record_path)) {
      problems.push_back(fmt::format("{}: not built (no {})", name, record_path.filename().string()));
      continue;
    }
    std::string record_text = common::read_file(record_path, 1 << 20);
    Json record;
    try {
      record = common::parse_json(record_text);
    } catch (const common::FieldError& e) {
      damaged.push_back(fmt::format("{}: {}: {}", name, record_path.filename().string(), e.describe()));
      continue;
    }
    std::string want = record.value("sha256", "");
    std::uintmax_t want_size = record.value("size", std::uintmax_t{0});
    std::error_code ec;
    std::uintmax_t size = fs::file_size(bin_path, ec);
    if (ec) {
      problems.push_back(fmt::format("{}: binary {} is missing", name, bin_path.filename().string()));
      continue;
    }
    if (size != want_size) {
      damaged.push_back(
          fmt::format("{}: binary does not match its record (size {}, recorded {})", name, size, want_size));
      continue;
    }
    std::string info_text = common::read_file(info_path, 16 << 20);
    std::string signature = info_text;
    if (!signature.empty() && signature.back() == '\n') signature.pop_back();
    std::string dir = fmt::format("{}/{}/", m.soc, op);
    PackageKernel pk;
    pk.name = name;
    pk.op_type = op;
    pk.variant = k.value("variant", "static");
    pk.key = common::sha256_hex(signature);
    pk.entry = record.value("kernelName", "skb_kernel");
    pk.bin = dir + name + suffix;
    OpbaseFacts facts = opbase_facts(info_path, signature, pk.variant);
    pk.simplified_keys = std::move(facts.simplified_keys);
    pk.value_depend_index = std::move(facts.value_depend_index);
    pk.core_type = core_type;
    pk.block_dim = block_dim;
    if (k.contains("launch")) {
      try {
        pk.launch = parse_launch(common::Field(k.at("launch"), "/launch"));
      } catch (const common::FieldError& e) {
        problems.push_back(fmt::format("{}: {}: {}", name, plan_path.filename().string(), e.describe()));
        continue;
      }
    }
    // In the package, <name>.json beside the kernel is what opbase reads: the compiler's sidecar
    // when the toolchain makes one (then skb's build record is <name>.build.json), else the record.
    struct Packed {
      fs::path source;
      std::string name;  // in the package, beside the kernel
      std::string text;
    };
    std::vector<Packed> texts = {{info_path, info_path.filename().string(), std::move(info_text)}};
    std::string record_name = name + ".json";
    if (record.contains("sidecar")) {
      try {
        const Json& desc = record.at("binDesc");
        pk.block_dim = desc.at("blockDim").get<std::uint32_t>();
        pk.workspace = desc.at("workspace").get<std::vector<std::int64_t>>();
        if (record.contains("coreType")) pk.core_type = record.at("coreType").get<int>();  // the kernel's own kind
      } catch (const Json::exception&) {
        problems.push_back(
            fmt::format("{}: {} has a sidecar but no valid binDesc", name, record_path.filename().string()));
        continue;
      }
      fs::path side = kdir / (name + kSidecarSuffix);
      std::string side_text = common::read_file(side, 16 << 20);
      if (common::sha256_hex(side_text) != record.at("sidecar").value("sha256", "")) {
        damaged.push_back(fmt::format("{}: sidecar {} does not match its record", name, side.filename().string()));
        continue;
      }
      texts.push_back({side, name + ".json", std::move(side_text)});
      record_name = name + ".build.json";
    }
    texts.push_back({record_path, record_name, std::move(record_text)});
    m.kernels.push_back(pk);
    m.files.push_back({dir + bin_path.filename().string(), want, size});
    c.files.push_back({bin_path, dir + bin_path.filename().string(), std::nullopt, name, want});
    for (auto& t : texts) {
      m.files.push_back({dir + t.name, common::sha256_hex(t.text), t.text.size()});
      c.files.push_back({t.source, dir + t.name, std::move(t.text), "", ""});
    }
  }
  forget_kernels(kdir, damaged);
  problems.insert(problems.end(), damaged.begin(), damaged.end());
  if (!problems.empty())
    cannot_pack(problems, plan.at("kernels").size(), "run `ninja -C " + build_dir.string() + "` to build them");
  auto by_path = [](const auto& a, const auto& b) { return a.path < b.path; };
  std::sort(m.files.begin(), m.files.end(), by_path);
  std::sort(c.files.begin(), c.files.end(), by_path);
  std::sort(m.kernels.begin(), m.kernels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& f : m.files) m.installed_size += f.size;
  return c;
}

void refuse_mismatches(const fs::path& build_dir, const std::vector<std::string>& mismatches, std::size_t planned) {
  if (mismatches.empty()) return;
  forget_kernels(build_dir / "kernel_meta", mismatches);
  cannot_pack(mismatches, planned,
              "they changed after they were built: run `ninja -C " + build_dir.string() + "` to build them again");
}

}  // namespace skb::packager
