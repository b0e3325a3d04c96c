#include "generator/compile_step.h"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <variant>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/process.h"
#include "common/sha256.h"
#include "common/text.h"
#include "generator/ninja_writer.h"
#include "generator/sidecar.h"
#include "generator/toolchain.h"
#include "opmodel/defines.h"
#include "store/kernel_cache.h"

namespace skb::generator {
using opmodel::kernel_defines;
using opmodel::record_from_signature;
using opmodel::separate_lists;
using opmodel::Variant;

namespace fs = std::filesystem;
using common::Json;

std::string op_type_of(const std::string& kernel_name) {
  constexpr std::size_t kHash = 33;  // "_" and 32 hex digits
  return kernel_name.size() > kHash ? kernel_name.substr(0, kernel_name.size() - kHash) : kernel_name;
}

Json build_result(const CompileStep& s, const std::string& sha256, std::uintmax_t size) {
  Json j = {{"binFileName", s.name + s.suffix},
            {"binFileSuffix", s.suffix},
            {"kernelName", s.entry},
            {"name", s.name},
            {"op_type", s.op_type.empty() ? op_type_of(s.name) : s.op_type},
            {"sha256", sha256},
            {"size", size},
            {"toolchain", s.toolchain_id},
            {"variant", s.variant}};
  return j;
}

namespace {

void replace_all(std::vector<std::string>& words, std::string_view placeholder, const std::string& value) {
  for (auto& word : words)
    for (std::size_t pos; (pos = word.find(placeholder)) != std::string::npos;)
      word.replace(pos, placeholder.size(), value);
}

// The command with the word @DEFINES@ replaced by the kernel's -D macros, made from its .info.
std::vector<std::string> with_defines(const CompileStep& s) {
  auto at = std::find(s.command.begin(), s.command.end(), kDefinesPlaceholder);
  if (at == s.command.end()) return s.command;
  fs::path info = s.dir / (s.name + ".info");
  std::vector<std::string> defines;
  try {
    defines = separate_lists(
        kernel_defines(record_from_signature(common::parse_json(common::read_file(info, 1 << 24))), Variant::kStatic),
        s.list_separator);
  } catch (const common::FieldError& e) {
    throw common::Error(fmt::format("{}: {}", info.string(), e.describe()));
  }
  std::vector<std::string> words(s.command.begin(), at);
  words.insert(words.end(), defines.begin(), defines.end());
  words.insert(words.end(), at + 1, s.command.end());
  return words;
}

// OUT/logs/<name>.log, or <name>.error.log with the compiler's message when it failed: one log
// per kernel compiled (skb-package's whole job turns them into CANN's *_compile_log/ files).
void write_log(const CompileStep& s, bool ok, const std::string& text) {
  fs::path dir = s.dir.parent_path() / kLogDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::remove(dir / (s.name + (ok ? kErrorLogSuffix : kLogSuffix)), ec);
  try {
    common::write_atomic(dir / (s.name + (ok ? kLogSuffix : kErrorLogSuffix)), text, 0644, common::Sync::kAtomic);
  } catch (const common::Error&) {  // a log that cannot be written costs nothing of the kernel
  }
}

// What the compiler (and the linker) did: the exit code and their words.
struct CompilerRun {
  int exit_code = 0;
  std::string output;
};

// Compiles (then links, when the command has a link step) into tmp, the sidecar into side_tmp.
// The object between the two is a temp file of its own, named apart from every kernel file and
// temp file whatever the toolchain's suffix (a `.o` kernel's own temp file is `<name>.o.tmp.<pid>`).
CompilerRun compile_into(const CompileStep& s, const fs::path& tmp, const fs::path& side_tmp) {
  std::vector<std::string> compile = with_defines(s), link;
  if (auto at = std::find(compile.begin(), compile.end(), kLinkSeparator); at != compile.end()) {
    link.assign(at + 1, compile.end());
    compile.erase(at, compile.end());
  }
  fs::path obj = s.dir / fmt::format("{}.tmp.{}.link-input.o", s.name, ::getpid());
  for (auto* words : {&compile, &link}) {
    replace_all(*words, kOutPlaceholder, tmp.string());
    replace_all(*words, kObjPlaceholder, obj.string());
    replace_all(*words, kSidecarPlaceholder, side_tmp.string());
  }
  // The compiler's words go to the build's output (ninja shows them) and to the kernel's log.
  common::ProcessResult r = common::run_process(compile, common::Output::kCapture);
  CompilerRun run{r.exit_code, std::move(r.output)};
  if (run.exit_code == 0 && !link.empty()) {
    r = common::run_process(link, common::Output::kCapture);
    run.exit_code = r.exit_code;
    run.output += r.output;
  }
  std::fwrite(run.output.data(), 1, run.output.size(), stderr);
  common::remove_file(obj);  // one that cannot be removed fails the step: a kernel is never done beside it
  return run;
}

// The compiler's sidecar, validated: the fields the index takes from it, recorded in the build
// result, and the file's hash. Throws Error naming the kernel and the JSON pointer.
void record_sidecar(const CompileStep& s, const std::string& text, Json& result) {
  Sidecar sc;
  try {
    sc = parse_sidecar(common::parse_json(text));
  } catch (const common::FieldError& e) {
    throw common::Error(
        fmt::format("{}: the compiler's sidecar ({}{}): {}", s.name, s.name, kSidecarSuffix, e.describe()));
  }
  result["kernelName"] = sc.kernel_name;
  result["binDesc"] = {{"blockDim", sc.block_dim}, {"kernelName", sc.kernel_name}, {"workspace", sc.workspace}};
  if (sc.core_type) result["coreType"] = *sc.core_type;
  result["sidecar"] = {{"file", s.name + kSidecarSuffix}, {"sha256", common::sha256_hex(text)}, {"size", text.size()}};
}

}  // namespace

std::string entry_mismatch(const CompileStep& s, const store::EntryFiles& f) {
  Json expected = build_result(s, common::sha256_hex(f.binary), f.binary.size());
  if (s.sidecar != f.sidecar.has_value())
    return s.sidecar ? "it holds no compiler sidecar" : "it holds a sidecar this toolchain does not write";
  try {
    if (s.sidecar) record_sidecar(s, *f.sidecar, expected);
  } catch (const common::Error& e) {
    return e.what();
  }
  Json record = Json::parse(f.record, nullptr, false);
  if (!record.is_object()) return "its build record is not a JSON object";
  if (record == expected) return "";
  // What differs, most telling first; a hostile record's values are only ever compared and dumped.
  auto differs = [&](const std::string& field) { return !record.contains(field) || record[field] != expected[field]; };
  auto recorded = [&](const char* field) {
    return record.contains(field) ? record[field].dump(-1, ' ', false, Json::error_handler_t::replace) : "nothing";
  };
  if (differs("toolchain"))
    return fmt::format("it was made by toolchain {}, this build's is \"{}\"", recorded("toolchain"), s.toolchain_id);
  if (differs("sha256"))
    return fmt::format("its kernel's sha256 is \"{}\", its record says {}", expected["sha256"].get<std::string>(),
                       recorded("sha256"));
  for (const auto& [field, value] : expected.items())
    if (differs(field)) return fmt::format("its build record differs at /{}", field);
  return "its build record has fields this build does not write";
}

namespace {

// The build result of what the compiler wrote into tmp and side_tmp. Throws Error when the kernel
// or its sidecar is missing or the sidecar is not one the index can take.
Json check_output(const CompileStep& s, const fs::path& tmp, const fs::path& side_tmp) {
  std::error_code ec;
  if (!fs::is_regular_file(tmp, ec) || fs::file_size(tmp, ec) == 0)
    throw common::Error(fmt::format("{}: the compiler exited 0 but wrote no output", s.name));
  Json result = build_result(s, common::sha256_file(tmp), fs::file_size(tmp));
  if (s.sidecar) {
    if (!fs::is_regular_file(side_tmp, ec))
      throw common::Error(fmt::format("{}: the compiler wrote no sidecar ({{sidecar}} of the profile)", s.name));
    record_sidecar(s, common::read_file(side_tmp, 16 << 20), result);
  }
  return result;
}

// Compiles the kernel into tmp (and its sidecar into side_tmp); its build result, or the
// compiler's exit code when it failed. The kernel's log says success only of a kernel that is
// kept: a compiler that exits 0 without a usable output gets the error log, with the reason.
std::variant<Json, int> compile(const CompileStep& s, const fs::path& tmp, const fs::path& side_tmp) {
  CompilerRun run = compile_into(s, tmp, side_tmp);
  if (run.exit_code != 0) {
    write_log(s, false, run.output);
    return run.exit_code;
  }
  try {
    Json result = check_output(s, tmp, side_tmp);
    write_log(s, true, run.output);
    return result;
  } catch (const common::Error& e) {
    write_log(s, false, run.output + "skb: " + e.what() + "\n");
    throw;
  }
}

// What named the kernel, for `skb explain` of a store entry: its signature and the factors of the
// build's key (key.json beside kernel_meta/), when the build has them.
std::optional<std::string> entry_key(const CompileStep& s) {
  try {
    auto factors = common::read_file_if_exists(s.dir.parent_path() / kKeyFile, 1 << 20);
    if (!factors) return std::nullopt;
    Json key = {{"signature", common::parse_json(common::read_file(s.dir / (s.name + ".info"), 1 << 24))},
                {"factors", common::parse_json(*factors)}};
    return key.dump();
  } catch (const std::runtime_error&) {  // common::Error, FieldError
    return std::nullopt;                 // explanations only: a build without them still shares its kernels
  }
}

// The temp files of one kernel's binary and sidecar, removed on scope exit.
struct TempFiles {
  fs::path bin, side;
  explicit TempFiles(const CompileStep& s)
      : bin(s.dir / fmt::format("{}{}.tmp.{}", s.name, s.suffix, ::getpid())),
        side(s.dir / fmt::format("{}{}.tmp.{}", s.name, kSidecarSuffix, ::getpid())) {}
  ~TempFiles() {
    std::error_code ec;
    fs::remove(bin, ec);
    fs::remove(side, ec);
  }
};

// Publishes a kernel from its temp files: the old `.json` is removed, the binary renamed into
// place, and the new `.json` (file name, size, sha256, entry, toolchain) written last by rename,
// so a `.json` always describes a complete binary.
void publish_kernel(const CompileStep& s, const TempFiles& t, const std::string& record) {
  std::error_code ec;
  fs::remove(s.dir / (s.name + ".json"), ec);
  fs::rename(t.bin, s.dir / (s.name + s.suffix));
  if (s.sidecar) fs::rename(t.side, s.dir / (s.name + kSidecarSuffix));
  // Atomic, not durable: a build output that can be made again (ninja's own logs are not fsynced).
  common::write_atomic(s.dir / (s.name + ".json"), record, 0644, common::Sync::kAtomic);
}

// Where the build's store lookup marks each kernel it looked up, for its compile step: kFetched
// (published from the store) or kMissed (to compile). A kernel without a marker was complete when
// the lookup ran, and its compile step looks it up itself.
fs::path fetched_marker(const CompileStep& s) { return s.cache_dir / "fetched" / s.name; }
constexpr std::string_view kFetched = "fetched";
constexpr std::string_view kMissed = "missed";

// True when the kernel is complete and its record is the one this step writes (same toolchain,
// variant, entry, file).
bool already_built(const CompileStep& s) {
  auto text = common::read_file_if_exists(s.dir / (s.name + ".json"), 1 << 20);
  if (!text) return false;
  Json record = Json::parse(*text, nullptr, false);
  if (!record.is_object() || !record.contains("sha256") || !record.contains("size")) return false;
  Json expected = build_result(s, "", 0);
  for (const char* field : {"binFileName", "name", "toolchain", "variant"})
    if (!record.contains(field) || record[field] != expected[field]) return false;
  if (!s.sidecar && record.value("kernelName", "") != s.entry) return false;
  return keep_if_complete(s.dir, s.name, s.suffix);
}

// Publishes a kernel from a store entry that was checked against this step.
void publish_entry(const CompileStep& s, const store::EntryFiles& files) {
  TempFiles t(s);
  common::write_atomic(t.bin, files.binary, files.binary_mode, common::Sync::kAtomic);
  if (files.sidecar) common::write_atomic(t.side, *files.sidecar, 0644, common::Sync::kAtomic);
  publish_kernel(s, t, files.record);
}

// What a step of this kernel that was killed left: its temp files (<name>.<...>.tmp.<pid>...),
// those of a process still running aside (a second ninja, or skb-package, in the same folder).
void remove_leftover_temps(const CompileStep& s) {
  const std::string prefix = s.name + ".";
  for (const std::string& file : common::list_dir(s.dir))
    if (file.rfind(prefix, 0) == 0 && file.find(".tmp.", prefix.size() - 1) != std::string::npos &&
        !common::is_live_temp(s.dir / file))
      common::remove_file(s.dir / file);
}

// The compiler skb-generate identified is the one that runs: one replaced since (update-
// alternatives, a package upgrade that keeps the files' mtimes, which ninja goes by) would make
// a kernel that this build's identity names as another compiler's. So are the variables of the
// profile's "environment" (compiler.stamp: the compiler, its stamp, then one "env" line each).
void refuse_another_compiler(const CompileStep& s) {
  std::optional<std::string> stamp = common::read_file_if_exists(s.dir.parent_path() / kCompilerStampFile, 1 << 16);
  if (!stamp) return;  // a build folder of an older skb
  const std::vector<std::string_view> lines = common::lines(*stamp);
  if (lines.size() < 2) return;
  const std::string compiler(lines[0]);
  std::string now = compiler_stamp(compiler);
  if (now != lines[1])
    throw common::Error(
        fmt::format("{} is not the compiler skb-generate identified for this build (then: {}; now: {}): "
                    "rerun skb-generate, which names the kernels by the compiler there is now",
                    compiler, lines[1], now.empty() ? "gone" : now));
  // "env NAME=value" or "env NAME": the value, quoted, or "unset"
  auto value_of = [](std::string_view line) {
    std::size_t eq = line.find('=');
    return eq == std::string::npos ? std::string("unset") : fmt::format("\"{}\"", line.substr(eq + 1));
  };
  for (std::size_t i = 2; i < lines.size(); ++i) {
    if (lines[i].rfind("env ", 0) != 0) continue;
    std::size_t eq = lines[i].find('=');
    std::string name(lines[i].substr(4, eq == std::string_view::npos ? std::string_view::npos : eq - 4));
    std::string here = environment_lines({name});
    here.pop_back();  // its newline
    if (here != lines[i])
      throw common::Error(
          fmt::format("{} is {} here, and was {} when skb-generate named this build's kernels: it "
                      "changes what the compiler makes; rerun skb-generate in this environment, or "
                      "build in that one",
                      name, value_of(here), value_of(lines[i])));
  }
}

// What the store checks an entry against before it gives it: this step's kernel.
auto entry_check(const CompileStep& s) {
  return [&s](const store::EntryFiles& f) { return entry_mismatch(s, f); };
}

}  // namespace

int run_compile_step(const CompileStep& s, const common::Diag& diag) {
  remove_leftover_temps(s);
  // What the build's store lookup found of it: when it published it, nothing to compile (the
  // marker goes, so that a later run of this step, as ninja asks for it, compiles).
  std::optional<std::string> looked_up;
  if (!s.cache_dir.empty()) {
    looked_up = common::read_file_if_exists(fetched_marker(s), 64);
    if (looked_up) common::remove_file(fetched_marker(s));
    if (looked_up == kFetched && already_built(s)) return 0;
  }
  auto store = s.cache_dir.empty() ? nullptr : store::KernelCache::open(s.cache_dir, diag);
  auto check = entry_check(s);
  // Not found missing by the lookup (complete then, or published by it) and removed or damaged
  // since: looked up now, as it would have been.
  if (store && looked_up != kMissed) {
    if (auto files = store->fetch(s.name, check)) {
      publish_entry(s, *files);
      return 0;
    }
  }
  // Claimed in the store builders share while this one compiles it (released when the step ends,
  // after the kernel is stored), or another builder's kernel, taken once it is stored.
  std::unique_ptr<store::Lease> lease;
  if (store) {
    auto theirs = store->claim(s.name, check, lease);
    if (theirs) {
      publish_entry(s, *theirs);
      return 0;
    }
  }
  refuse_another_compiler(s);
  TempFiles t(s);
  auto outcome = compile(s, t.bin, t.side);
  if (auto* rc = std::get_if<int>(&outcome)) return *rc;
  std::string record = std::get<Json>(outcome).dump(2) + "\n";
  store::EntryFiles files;
  if (store) {
    files.record = record;
    files.binary = common::read_file(t.bin);
    files.binary_mode = static_cast<unsigned>(fs::status(t.bin).permissions()) & 0755;
    if (s.sidecar) files.sidecar = common::read_file(t.side);
    files.key = entry_key(s);
  }
  publish_kernel(s, t, record);
  if (store) store->store(s.name, files);
  return 0;
}

std::set<std::string> prefetch_kernels(const std::vector<CompileStep>& steps, const fs::path& cache_dir,
                                       const fs::path& stamp, const common::Diag& diag) {
  std::set<std::string> fetched;
  auto store = store::KernelCache::open(cache_dir, diag);
  std::error_code ec;
  fs::remove_all(cache_dir / "fetched", ec);
  if (store) common::ensure_real_dir(cache_dir / "fetched");
  for (const CompileStep& s : steps) {
    if (!store) break;
    if (already_built(s)) continue;
    auto files = store->fetch(s.name, entry_check(s));
    if (files) {
      publish_entry(s, *files);
      fetched.insert(s.name);
    }
    common::write_atomic(fetched_marker(s), files ? kFetched : kMissed, 0644, common::Sync::kAtomic);
  }
  store.reset();  // its counts go to the log before the stamp says the lookup is done
  common::write_atomic(stamp, "", 0644, common::Sync::kAtomic);
  return fetched;
}

std::vector<CompileStep> planned_steps(const fs::path& build_dir) {
  fs::path plan_file = build_dir / "plan.json";
  return planned_steps(build_dir, common::read_file(plan_file, std::size_t(1) << 30));
}

std::vector<CompileStep> planned_steps(const fs::path& build_dir, std::string_view plan_text) {
  fs::path plan_file = build_dir / "plan.json";
  std::vector<CompileStep> steps;
  try {
    Json plan = common::parse_json(plan_text);
    for (const Json& k : plan.at("kernels")) {
      CompileStep s;
      s.dir = build_dir / kKernelDir;
      s.name = k.at("name").get<std::string>();
      s.op_type = k.at("op_type").get<std::string>();
      s.variant = k.at("variant").get<std::string>();
      s.suffix = plan.at("suffix").get<std::string>();
      s.entry = plan.at(s.variant == "dynamic" ? "dynamic_entry" : "entry").get<std::string>();
      s.toolchain_id = plan.at("toolchain_identity").get<std::string>();
      s.sidecar = plan.at("sidecar").get<bool>();
      s.cache_dir = build_dir / store::kCacheDir;
      steps.push_back(std::move(s));
    }
  } catch (const Json::exception& e) {
    throw common::Error(fmt::format("{}: {} (rerun skb-generate)", plan_file.string(), e.what()));
  } catch (const common::FieldError& e) {
    throw common::Error(fmt::format("{}: {}", plan_file.string(), e.describe()));
  }
  return steps;
}

bool keep_if_complete(const fs::path& dir, const std::string& name, const std::string& suffix) {
  fs::path bin = dir / (name + suffix);
  fs::path json = dir / (name + ".json");
  std::error_code ec;
  if (!fs::exists(json, ec)) return false;
  bool complete = false;
  try {
    Json result = common::parse_json(common::read_file(json, 1 << 20));
    auto size = fs::file_size(bin, ec);
    bool sidecar_ok = true;
    if (result.contains("sidecar")) {
      std::error_code side_ec;
      auto side_size = fs::file_size(dir / (name + kSidecarSuffix), side_ec);
      sidecar_ok = !side_ec && side_size == result["sidecar"].value("size", std::uintmax_t{0});
    }
    if (!ec && sidecar_ok && result.value("size", std::uintmax_t{0}) == size &&
        result.value("binFileName", "") == name + suffix) {
      complete = fs::last_write_time(bin, ec) <= fs::last_write_time(json, ec) ||
                 result.value("sha256", "") == common::sha256_file(bin);
    }
  } catch (const std::exception&) {
    complete = false;
  }
  if (!complete) {
    fs::remove(json, ec);
    fs::remove(bin, ec);
    fs::remove(dir / (name + kSidecarSuffix), ec);
  }
  return complete;
}

}  // namespace skb::generator
