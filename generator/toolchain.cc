#include "generator/toolchain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/process.h"
#include "common/sha256.h"
#include "generator/op_record.h"

namespace skb::generator {
namespace fs = std::filesystem;
using common::Error;
using common::Field;
using common::FieldError;
using common::Json;

namespace {

// Replaces every {key} of vars in s; an unknown {name} is left for a later stage.
std::string expand(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [key, value] : vars) {
    std::string pattern = "{" + key + "}";
    for (std::size_t pos = 0; (pos = s.find(pattern, pos)) != std::string::npos; pos += value.size())
      s.replace(pos, pattern.size(), value);
  }
  return s;
}

std::vector<std::string> string_list(const Field& f) {
  std::vector<std::string> out;
  std::size_t n = f.array_size(1024);
  for (std::size_t i = 0; i < n; ++i) out.push_back(f.at(i).string(4096));
  return out;
}

void check_placeholders(const Field& f, const std::string& word, const std::set<std::string>& allowed) {
  for (std::size_t pos = word.find('{'); pos != std::string::npos; pos = word.find('{', pos + 1)) {
    std::size_t end = word.find('}', pos);
    std::string var = end == std::string::npos ? "" : word.substr(pos + 1, end - pos - 1);
    if (!allowed.count(var))
      throw FieldError(f.pointer(),
                       fmt::format("expected only the variables {{{}}} in \"{}\"", fmt::join(allowed, "}, {"), word));
  }
}

Toolchain parse_profile(const Json& doc, const fs::path& profile, const std::string& soc_arg,
                        const std::vector<std::string>& launcher) {
  Field root(doc, "");
  root.expect_object();
  static const std::set<std::string> kKnown = {
      "name",    "description", "compiler", "identify",      "command",
      "flags",   "suffix",      "entry",    "dynamic_entry", "template_dir",
      "headers", "default_soc", "launcher", "ops",           "define_list_separator",
      "link"};
  for (const auto& [key, value] : doc.items())
    if (!kKnown.count(key)) throw FieldError("/" + common::pointer_token(key), "expected no such field (unknown key)");

  Toolchain tc;
  tc.profile = profile;
  tc.name = root.at("name").string(64);
  if (!is_identifier(tc.name)) throw FieldError("/name", "expected a name of [A-Za-z0-9_]");
  std::string compiler = root.at("compiler").string(4096);
  tc.compiler = common::find_program(compiler);
  if (tc.compiler.empty())
    throw FieldError("/compiler", fmt::format("expected a compiler on PATH, \"{}\" was not found", compiler));
  tc.soc = soc_arg.empty() ? root.at("default_soc").string(64) : soc_arg;
  if (!is_identifier(tc.soc)) throw Error(fmt::format("--soc {}: expected a name of [A-Za-z0-9_]", tc.soc));
  fs::path template_dir = (profile.parent_path() / root.at("template_dir").string(4096)).lexically_normal();
  if (!fs::is_directory(template_dir))
    throw FieldError("/template_dir", fmt::format("expected a folder, {} is not one", template_dir.string()));
  tc.suffix = root.at("suffix").string(16);
  if (tc.suffix.size() < 2 || tc.suffix[0] != '.' || !is_identifier(tc.suffix.substr(1)))
    throw FieldError("/suffix", "expected a file suffix such as \".so\"");
  tc.entry = root.at("entry").string(128);
  if (!is_identifier(tc.entry)) throw FieldError("/entry", "expected a C symbol name");
  tc.dynamic_entry = root.has("dynamic_entry") ? root.at("dynamic_entry").string(128) : "";
  if (!tc.dynamic_entry.empty() && !is_identifier(tc.dynamic_entry))
    throw FieldError("/dynamic_entry", "expected a C symbol name");

  if (root.has("define_list_separator")) {
    tc.list_separator = root.at("define_list_separator").string(8);
    if (tc.list_separator != "," && tc.list_separator != "\\,")
      throw FieldError("/define_list_separator",
                       "expected \",\" or \"\\\\,\" (a comma the compiler must not split on)");
  }
  const std::map<std::string, std::string> fixed = {
      {"template_dir", template_dir.string()}, {"soc", tc.soc}, {"compiler", tc.compiler}};
  std::vector<std::string> flags;
  if (root.has("flags")) {
    Field f = root.at("flags");
    for (const auto& flag : string_list(f)) {
      check_placeholders(f, flag, {"template_dir", "soc"});
      flags.push_back(expand(flag, fixed));
    }
  }
  Field cmd = root.at("command");
  std::vector<std::string> words = string_list(cmd);
  bool has_out = false, has_src = false, has_obj = false;
  for (const auto& w : words) {
    check_placeholders(cmd, w, {"compiler", "flags", "defines", "src", "out", "obj", "info", "soc", "template_dir"});
    has_obj |= w.find("{obj}") != std::string::npos;
    if (w == "{flags}")
      tc.command.insert(tc.command.end(), flags.begin(), flags.end());
    else
      tc.command.push_back(expand(w, fixed));
    has_out |= w.find("{out}") != std::string::npos;
    has_src |= w.find("{src}") != std::string::npos || w.find("{info}") != std::string::npos;
  }
  if (root.has("link")) {
    Field link = root.at("link");
    bool link_obj = false, link_out = false;
    for (const auto& w : string_list(link)) {
      check_placeholders(link, w, {"compiler", "flags", "obj", "out", "soc", "template_dir"});
      link_obj |= w.find("{obj}") != std::string::npos;
      link_out |= w.find("{out}") != std::string::npos;
      if (w == "{flags}")
        tc.link.insert(tc.link.end(), flags.begin(), flags.end());
      else
        tc.link.push_back(expand(w, fixed));
    }
    if (!link_obj || !link_out) throw FieldError("/link", "expected a link command that reads {obj} and writes {out}");
    if (!has_obj || has_out)
      throw FieldError("/command",
                       "expected a compile command that writes {obj} (not {out}) when there is a link step");
    has_out = true;
  } else if (has_obj) {
    throw FieldError("/command", "expected {out}, not {obj}, when there is no link step");
  }
  if (!has_out || !has_src) throw FieldError("/command", "expected a command that uses {out} and {src} or {info}");

  std::vector<std::string> identify = {tc.compiler, "--version"};
  if (root.has("identify")) {
    identify.clear();
    for (const auto& w : string_list(root.at("identify"))) identify.push_back(expand(w, fixed));
    if (identify.empty()) throw FieldError("/identify", "expected a command of at least one word");
  }
  common::ProcessResult id = common::run_process(identify, true);
  if (id.exit_code != 0)
    throw Error(
        fmt::format("{}: /identify: `{}` exited with {}", profile.string(), fmt::join(identify, " "), id.exit_code));

  tc.launcher = launcher;
  if (tc.launcher.empty() && root.has("launcher")) tc.launcher = string_list(root.at("launcher"));

  common::Sha256 identity;
  identity.update(Json({{"compiler", tc.compiler},
                        {"identify", id.output},
                        {"command", tc.command},
                        {"suffix", tc.suffix},
                        {"entry", tc.entry},
                        {"dynamic_entry", tc.dynamic_entry},
                        {"list_separator", tc.list_separator},
                        {"link", tc.link}})
                      .dump());
  tc.inputs = {profile, tc.compiler};
  if (root.has("headers")) {
    for (const auto& h : string_list(root.at("headers"))) {
      fs::path header = (template_dir / h).lexically_normal();
      identity.update(h + "\n" + common::sha256_file(header) + "\n");
      tc.inputs.push_back(header);
    }
  }
  tc.identity = identity.hex();

  Field ops = root.at("ops");
  ops.expect_object();
  for (const auto& [op, spec_json] : ops.json().items()) {
    Field spec = ops.at(op);
    if (!is_identifier(op)) throw FieldError(spec.pointer(), "expected an op type of [A-Za-z0-9_] as key");
    OpTemplate t;
    std::string rel = spec.at("template").string(4096);
    t.source = (template_dir / rel).lexically_normal();
    if (!fs::is_regular_file(t.source))
      throw FieldError(spec.at("template").pointer(),
                       fmt::format("expected a file, {} does not exist", t.source.string()));
    t.dtypes = string_list(spec.at("dtypes"));
    t.hash = common::sha256_file(t.source);
    tc.inputs.push_back(t.source);
    tc.ops.emplace(op, std::move(t));
  }
  std::sort(tc.inputs.begin(), tc.inputs.end());
  tc.inputs.erase(std::unique(tc.inputs.begin(), tc.inputs.end()), tc.inputs.end());
  return tc;
}

}  // namespace

const OpTemplate* Toolchain::find(const std::string& op_type) const {
  auto it = ops.find(op_type);
  return it == ops.end() ? nullptr : &it->second;
}

bool is_profile_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
}

fs::path default_templates_dir() {
  fs::path exe_dir = common::self_exe().parent_path();
  return (exe_dir / SKB_DATA_RELDIR / "templates").lexically_normal();
}

Toolchain load_toolchain(const std::string& name_or_path, const fs::path& templates_dir, const std::string& soc,
                         const std::vector<std::string>& launcher) {
  bool is_path = is_profile_path(name_or_path);
  if (!is_path && !is_identifier(name_or_path))
    throw Error(fmt::format("--toolchain {}: expected a profile name or a path to a .json profile", name_or_path));
  fs::path profile =
      is_path ? fs::absolute(name_or_path).lexically_normal() : templates_dir / "toolchains" / (name_or_path + ".json");
  if (!fs::is_regular_file(profile)) throw Error(fmt::format("{}: no such toolchain profile", profile.string()));
  try {
    return parse_profile(common::parse_json(common::read_file(profile, 1 << 20)), profile, soc, launcher);
  } catch (const FieldError& e) {
    throw Error(fmt::format("{}: {}", profile.string(), e.describe()));
  }
}

}  // namespace skb::generator
