#include "generator/toolchain_profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.h"
#include "opmodel/op_record.h"

namespace skb::generator {
using opmodel::is_identifier;

using common::Field;
using common::FieldError;
using common::Json;

namespace {

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

std::vector<std::string> command_words(const Field& f, const std::set<std::string>& allowed) {
  std::vector<std::string> words = string_list(f);
  for (const auto& w : words) check_placeholders(f, w, allowed);
  return words;
}

bool uses(const std::vector<std::string>& words, const char* placeholder) {
  for (const auto& w : words)
    if (w.find(placeholder) != std::string::npos) return true;
  return false;
}

void check_commands(const ProfileSpec& p) {
  bool has_obj = uses(p.command, "{obj}");
  bool has_out = uses(p.command, "{out}");
  if (!p.link.empty()) {
    if (!uses(p.link, "{obj}") || !uses(p.link, "{out}"))
      throw FieldError("/link", "expected a link command that reads {obj} and writes {out}");
    if (!has_obj || has_out)
      throw FieldError("/command",
                       "expected a compile command that writes {obj} (not {out}) when there is a link step");
    has_out = true;
  } else if (has_obj) {
    throw FieldError("/command", "expected {out}, not {obj}, when there is no link step");
  }
  if (!has_out || !(uses(p.command, "{src}") || uses(p.command, "{info}")))
    throw FieldError("/command", "expected a command that uses {out} and {src} or {info}");
  bool writes_sidecar = uses(p.command, "{sidecar}") || uses(p.link, "{sidecar}");
  if (p.sidecar && !writes_sidecar)
    throw FieldError("/command", "expected {sidecar} in the compile or link command, since /sidecar is true");
  if (!p.sidecar && writes_sidecar) throw FieldError("/sidecar", "expected true, since a command writes {sidecar}");
}

}  // namespace

ProfileSpec parse_profile_spec(const Json& doc) {
  Field root(doc, "");
  root.expect_object();
  static const std::set<std::string> kKnown = {
      "name",    "description", "compiler",  "identify",      "command",
      "flags",   "suffix",      "entry",     "dynamic_entry", "template_dir",
      "headers", "default_soc", "launcher",  "ops",           "define_list_separator",
      "link",    "formats",     "core_type", "block_dim",     "sidecar",
      "launch",  "environment"};
  for (const auto& [key, value] : doc.items())
    if (!kKnown.count(key)) throw FieldError("/" + common::pointer_token(key), "expected no such field (unknown key)");

  ProfileSpec p;
  p.name = root.at("name").string(64);
  if (!is_identifier(p.name)) throw FieldError("/name", "expected a name of [A-Za-z0-9_]");
  if (root.has("description")) root.at("description").string(4096);
  p.compiler = root.at("compiler").string(4096);
  if (p.compiler.empty()) throw FieldError("/compiler", "expected a compiler name or path");
  if (root.has("default_soc")) {
    p.default_soc = root.at("default_soc").string(64);
    if (!is_identifier(p.default_soc)) throw FieldError("/default_soc", "expected a name of [A-Za-z0-9_]");
  }
  p.template_dir = root.at("template_dir").string(4096);
  p.suffix = root.at("suffix").string(16);
  if (!p.suffix.empty() && (p.suffix.size() < 2 || p.suffix[0] != '.' || !is_identifier(p.suffix.substr(1))))
    throw FieldError("/suffix", "expected a file suffix such as \".so\" or \".o\", or \"\" for none");
  if (p.suffix == ".json" || p.suffix == ".info")  // each kernel's record and signature in kernel_meta/
    throw FieldError("/suffix", fmt::format("expected a suffix other than \"{}\", which skb's own files of each "
                                            "kernel have",
                                            p.suffix));
  p.entry = root.at("entry").string(128);
  if (!is_identifier(p.entry)) throw FieldError("/entry", "expected a C symbol name");
  if (root.has("dynamic_entry")) {
    p.dynamic_entry = root.at("dynamic_entry").string(128);
    if (!is_identifier(p.dynamic_entry)) throw FieldError("/dynamic_entry", "expected a C symbol name");
  }
  if (root.has("define_list_separator")) {
    p.list_separator = root.at("define_list_separator").string(8);
    if (p.list_separator != "," && p.list_separator != "\\,")
      throw FieldError("/define_list_separator",
                       "expected \",\" or \"\\\\,\" (a comma the compiler must not split on)");
  }
  if (root.has("flags")) p.flags = command_words(root.at("flags"), {"template_dir", "soc"});
  p.command = command_words(root.at("command"), {"compiler", "flags", "defines", "src", "out", "obj", "info", "soc",
                                                 "template_dir", "sidecar"});
  if (root.has("link")) {
    p.link = command_words(root.at("link"), {"compiler", "flags", "obj", "out", "soc", "template_dir", "sidecar"});
    if (p.link.empty()) throw FieldError("/link", "expected a link command that reads {obj} and writes {out}");
  }
  if (root.has("sidecar")) p.sidecar = root.at("sidecar").boolean();
  check_commands(p);
  if (root.has("identify")) {
    p.identify = command_words(root.at("identify"), {"compiler", "soc", "template_dir"});
    if (p.identify.empty()) throw FieldError("/identify", "expected a command of at least one word");
  }
  if (root.has("launcher")) p.launcher = string_list(root.at("launcher"));
  if (root.has("environment")) {
    Field env = root.at("environment");
    p.environment = string_list(env);
    for (const auto& name : p.environment)
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || !is_identifier(name))
        throw FieldError(env.pointer(), fmt::format("expected names of environment variables, not \"{}\"", name));
  }
  if (root.has("headers")) {
    Field headers = root.at("headers");
    p.headers = string_list(headers);
    for (const auto& h : p.headers)
      if (h.empty()) throw FieldError(headers.pointer(), "expected header paths, not an empty string");
  }

  if (root.has("formats")) {
    Field formats = root.at("formats");
    p.formats = string_list(formats);
    for (const auto& f : p.formats)
      if (f.empty() || !std::all_of(f.begin(), f.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
          }))
        throw FieldError(formats.pointer(), "expected format names such as \"ND\" ([A-Z0-9_]+)");
  }

  if (root.has("core_type")) p.core_type = static_cast<int>(root.at("core_type").integer(0, 255));
  if (root.has("block_dim")) p.block_dim = static_cast<std::uint32_t>(root.at("block_dim").integer(1, 1 << 20));

  if (root.has("launch")) {
    Field launch = root.at("launch");
    launch.expect_object();
    for (const auto& [key, value] : launch.json().items())
      if (key != "device" && key != "block" && key != "max_grid")
        throw FieldError(launch.pointer() + "/" + common::pointer_token(key), "expected device, block or max_grid");
    p.launch_device = launch.at("device").string(16);
    if (p.launch_device != "cuda") launch.at("device").fail("\"cuda\" (host kernels need no launch)");
    p.launch_block = static_cast<std::uint32_t>(launch.at("block").integer(32, 1024));
    if (p.launch_block % 32 != 0) launch.at("block").fail("a multiple of 32 (whole warps)");
    p.launch_max_grid = static_cast<std::uint32_t>(launch.at("max_grid").integer(1, 0x7fffffff));
  }

  Field ops = root.at("ops");
  ops.expect_object();
  for (const auto& [type, spec_json] : ops.json().items()) {
    Field spec = ops.at(type);
    if (!is_identifier(type)) throw FieldError(spec.pointer(), "expected an op type of [A-Za-z0-9_] as key");
    ProfileSpec::Op op;
    op.type = type;
    op.template_path = spec.at("template").string(4096);
    op.dtypes = string_list(spec.at("dtypes"));
    p.ops.push_back(std::move(op));
  }
  return p;
}

}  // namespace skb::generator
