#include "generator/toolchain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include "common/error.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "common/json_input.h"
#include "common/process.h"
#include "common/sha256.h"
#include "generator/soc_table.h"
#include "generator/template_includes.h"
#include "generator/toolchain_profile.h"
#include "opmodel/op_record.h"
#include "packager/format/manifest.h"

namespace skb::generator {
using opmodel::is_identifier;

namespace fs = std::filesystem;
using common::Error;
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

// Expands a command's fixed variables; the word {flags} becomes the expanded flags.
std::vector<std::string> expand_command(const std::vector<std::string>& words, const std::vector<std::string>& flags,
                                        const std::map<std::string, std::string>& vars) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    if (w == "{flags}")
      out.insert(out.end(), flags.begin(), flags.end());
    else
      out.push_back(expand(w, vars));
  }
  return out;
}

// A compiler that is a script (a wrapper such as `#!/bin/sh ... exec c++ "$@"`) counts by its
// bytes too: what --version prints is the compiler it runs, not what the wrapper adds, and a
// wrapper edited in place must rename its kernels. A binary counts by what it says it is.
std::string script_identity(const fs::path& compiler) {
  char magic[2] = {};
  std::ifstream(compiler, std::ios::binary).read(magic, 2);
  if (magic[0] != '#' || magic[1] != '!') return "";
  return fmt::format("\n[the compiler is a script of sha256 {}]", common::sha256_file(compiler));
}

// Every file of the templates' tree (the template folder's parent) that a template includes must be
// one of /headers, whose bytes are in every kernel's name: one it does not list would be compiled
// in unnoticed, and a rebuild, or a kernel store, would give the kernels of its old bytes under
// the same names.
void check_headers_listed(const Toolchain& tc, const ProfileSpec& p, const fs::path& template_dir) {
  std::set<fs::path> listed;
  for (const auto& h : p.headers) listed.insert((template_dir / h).lexically_normal());
  std::vector<fs::path> sources(listed.begin(), listed.end());
  for (const auto& [type, t] : tc.ops) sources.push_back(t.source);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  for (const Include& i : tree_includes(sources, include_dirs_of(tc.command), template_dir.parent_path()))
    if (!listed.count(i.file) && std::find(sources.begin(), sources.end(), i.file) == sources.end())
      throw FieldError("/headers",
                       fmt::format("expected every file the templates include to be listed: {} includes "
                                   "{}, which is not (a change to it would rebuild no kernel); add \"{}\"",
                                   i.by.string(), i.file.string(), i.file.lexically_relative(template_dir).string()));
}

// Resolves a validated profile on this machine: finds the compiler and the templates, runs the
// identify command and hashes what every kernel depends on.
Toolchain resolve_profile(const ProfileSpec& p, const fs::path& profile, const common::Json& soc_table,
                          const std::string& soc_arg, const std::vector<std::string>& launcher) {
  Toolchain tc;
  tc.profile = profile;
  tc.name = p.name;
  tc.compiler = common::find_program(p.compiler);
  if (tc.compiler.empty())
    throw FieldError("/compiler", fmt::format("expected a compiler on PATH, \"{}\" was not found", p.compiler));
  tc.soc_version = soc_arg.empty() ? p.default_soc : soc_arg;
  if (tc.soc_version.empty()) throw FieldError("/default_soc", "expected a default SoC, since no --soc was given");
  // The profile's default_soc maps as --soc does (Ascend910B3's index is config/ascend910b/); one
  // the table lacks ("host") is the profile author's choice, said without a warning.
  SocFamily f = soc_family(soc_table, tc.soc_version);
  tc.soc = f.family;
  tc.soc_known = f.known || soc_arg.empty();
  if (!packager::is_soc_name(tc.soc)) {
    if (soc_arg.empty()) throw FieldError("/default_soc", packager::kSocNameExpected);
    throw Error(fmt::format("--soc {}: {}, or one of the SoC table", soc_arg, packager::kSocNameExpected));
  }
  tc.sidecar = p.sidecar;
  tc.core_type = p.core_type;
  tc.block_dim = p.block_dim;
  tc.launch_device = p.launch_device;
  tc.launch_block = p.launch_block;
  tc.launch_max_grid = p.launch_max_grid;
  fs::path template_dir = (profile.parent_path() / p.template_dir).lexically_normal();
  if (!fs::is_directory(template_dir))
    throw FieldError("/template_dir", fmt::format("expected a folder, {} is not one", template_dir.string()));
  tc.suffix = p.suffix;
  tc.entry = p.entry;
  tc.dynamic_entry = p.dynamic_entry;
  tc.list_separator = p.list_separator;
  tc.formats = p.formats;

  const std::map<std::string, std::string> fixed = {
      {"template_dir", template_dir.string()}, {"soc", tc.soc_version}, {"compiler", tc.compiler}};
  std::vector<std::string> flags = expand_command(p.flags, {}, fixed);
  tc.command = expand_command(p.command, flags, fixed);
  tc.link = expand_command(p.link, flags, fixed);

  std::vector<std::string> identify =
      p.identify.empty() ? std::vector<std::string>{tc.compiler, "--version"} : expand_command(p.identify, {}, fixed);
  common::ProcessResult id;
  try {
    id = common::run_process(identify, true);
  } catch (const common::Interrupted&) {
    throw;
  } catch (const Error& e) {
    throw FieldError(p.identify.empty() ? "/compiler" : "/identify",
                     fmt::format("expected a command that runs: {}", e.what()));
  }
  if (id.exit_code != 0)
    throw Error(
        fmt::format("{}: /identify: `{}` exited with {}", profile.string(), fmt::join(identify, " "), id.exit_code));

  tc.launcher = launcher.empty() ? p.launcher : launcher;
  // A launcher that is not there would fail every compile step in ninja's words, one by one.
  if (!tc.launcher.empty() && common::find_program(tc.launcher.front()).empty()) {
    std::string why = fmt::format("expected a program on PATH, \"{}\" was not found", tc.launcher.front());
    if (launcher.empty()) throw FieldError("/launcher/0", why);
    throw Error(fmt::format("--launcher {} (or SKB_LAUNCHER, one word): {}", tc.launcher.front(), why));
  }

  // The identity is made of what decides a kernel's bytes, never of where skb or its templates
  // are: {compiler} and {template_dir} stay as written, the compiler counts by what it says it is.
  KeyFactors& key = tc.factors;
  const std::map<std::string, std::string> soc_only = {{"soc", tc.soc_version}};
  tc.environment = p.environment;
  key.identify = id.output + script_identity(tc.compiler);
  for (const auto& name : tc.environment)  // only those set: a profile that lists one renames nothing
    if (const char* value = std::getenv(name.c_str())) key.identify += fmt::format("\n{}={}", name, value);
  key.flags = expand_command(p.flags, {}, soc_only);
  key.command = expand_command(p.command, {"{flags}"}, soc_only);
  key.link = expand_command(p.link, {"{flags}"}, soc_only);
  key.suffix = tc.suffix;
  key.entry = tc.entry;
  key.dynamic_entry = tc.dynamic_entry;
  key.list_separator = tc.list_separator;
  tc.inputs = {profile, tc.compiler};
  for (std::size_t i = 0; i < p.headers.size(); ++i) {
    const std::string& h = p.headers[i];
    fs::path header = (template_dir / h).lexically_normal();
    if (!fs::is_regular_file(header))
      throw FieldError(fmt::format("/headers/{}", i),
                       fmt::format("expected a file, {} does not exist", header.string()));
    key.headers[h] = common::sha256_file(header);
    tc.inputs.push_back(header);
  }

  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const ProfileSpec::Op& op = p.ops[i];
    OpTemplate t;
    t.source = (template_dir / op.template_path).lexically_normal();
    if (!fs::is_regular_file(t.source))
      throw FieldError("/ops/" + common::pointer_token(op.type) + "/template",
                       fmt::format("expected a file, {} does not exist", t.source.string()));
    t.dtypes = op.dtypes;
    t.hash = common::sha256_file(t.source);
    key.templates[op.type] = {op.template_path, t.hash};
    tc.inputs.push_back(t.source);
    tc.ops.emplace(op.type, std::move(t));
  }
  check_headers_listed(tc, p, template_dir);
  tc.identity = key.identity();
  std::sort(tc.inputs.begin(), tc.inputs.end());
  tc.inputs.erase(std::unique(tc.inputs.begin(), tc.inputs.end()), tc.inputs.end());
  return tc;
}

}  // namespace

std::string environment_lines(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    const char* value = std::getenv(name.c_str());
    out += value ? fmt::format("env {}={}\n", name, value) : fmt::format("env {}\n", name);
  }
  return out;
}

std::string compiler_stamp(const fs::path& compiler) {
  std::error_code ec;
  fs::path file = fs::canonical(compiler, ec);
  struct stat st;
  if (ec || ::stat(file.c_str(), &st) != 0) return "";
  return fmt::format("{} inode {}:{} size {} changed {}.{:09}", file.string(), st.st_dev, st.st_ino, st.st_size,
                     st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

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
    ProfileSpec spec = parse_profile_spec(common::parse_json(common::read_file(profile, 1 << 20)));
    Toolchain tc = resolve_profile(spec, profile, load_soc_table(templates_dir), soc, launcher);
    tc.inputs.push_back((templates_dir / "socs.json").lexically_normal());
    return tc;
  } catch (const FieldError& e) {
    throw Error(fmt::format("{}: {}", profile.string(), e.describe()));
  }
}

}  // namespace skb::generator
