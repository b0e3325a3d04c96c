#include "generator/compile_step.h"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/process.h"
#include "common/sha256.h"
#include "opmodel/defines.h"

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

std::string build_result_json(const CompileStep& s, const std::string& sha256, std::uintmax_t size) {
  Json j = {{"binFileName", s.name + s.suffix},
            {"binFileSuffix", s.suffix},
            {"kernelName", s.entry},
            {"name", s.name},
            {"op_type", s.op_type.empty() ? op_type_of(s.name) : s.op_type},
            {"sha256", sha256},
            {"size", size},
            {"toolchain", s.toolchain_id},
            {"variant", s.variant}};
  return j.dump(2) + "\n";
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

// Compiles (then links, when the command has a link step) into tmp; returns the exit code.
int compile_into(const CompileStep& s, const fs::path& tmp) {
  std::vector<std::string> compile = with_defines(s), link;
  if (auto at = std::find(compile.begin(), compile.end(), kLinkSeparator); at != compile.end()) {
    link.assign(at + 1, compile.end());
    compile.erase(at, compile.end());
  }
  fs::path obj = s.dir / fmt::format("{}.o.tmp.{}", s.name, ::getpid());
  for (auto* words : {&compile, &link}) {
    replace_all(*words, kOutPlaceholder, tmp.string());
    replace_all(*words, kObjPlaceholder, obj.string());
  }
  int rc = common::run_process(compile, false).exit_code;
  if (rc == 0 && !link.empty()) rc = common::run_process(link, false).exit_code;
  std::error_code ec;
  fs::remove(obj, ec);
  return rc;
}

}  // namespace

int run_compile_step(const CompileStep& s) {
  fs::path bin = s.dir / (s.name + s.suffix);
  fs::path json = s.dir / (s.name + ".json");
  fs::path tmp = s.dir / fmt::format("{}{}.tmp.{}", s.name, s.suffix, ::getpid());
  int exit_code = compile_into(s, tmp);
  std::error_code ec;
  if (exit_code != 0 || !fs::is_regular_file(tmp, ec) || fs::file_size(tmp, ec) == 0) {
    fs::remove(tmp, ec);
    if (exit_code != 0) return exit_code;
    throw common::Error(fmt::format("{}: the compiler exited 0 but wrote no output", s.name));
  }
  try {
    std::string sha = common::sha256_file(tmp);
    std::uintmax_t size = fs::file_size(tmp);
    fs::remove(json, ec);
    fs::rename(tmp, bin);
    // Atomic, not durable: a build output that can be made again (ninja's own logs are not fsynced).
    common::write_atomic(json, build_result_json(s, sha, size), 0644, common::Sync::kAtomic);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  return 0;
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
    if (!ec && result.value("size", std::uintmax_t{0}) == size && result.value("binFileName", "") == name + suffix) {
      complete = fs::last_write_time(bin, ec) <= fs::last_write_time(json, ec) ||
                 result.value("sha256", "") == common::sha256_file(bin);
    }
  } catch (const std::exception&) {
    complete = false;
  }
  if (!complete) {
    fs::remove(json, ec);
    fs::remove(bin, ec);
  }
  return complete;
}

}  // namespace skb::generator
