#include "generator/key_factors.h"

#include "common/error.h"
#include "common/sha256.h"

namespace skb::generator {
using common::Field;
using common::Json;

namespace {

constexpr int kFormat = 1;

Json words(const std::vector<std::string>& v) { return Json(v); }

// The factors every kernel depends on, as one document: its dump is what the identity hashes.
Json shared_factors(const KeyFactors& f) {
  return Json{{"compiler", f.identify},         {"flags", words(f.flags)},
              {"command", words(f.command)},    {"link", words(f.link)},
              {"suffix", f.suffix},             {"entry", f.entry},
              {"dynamic_entry", f.dynamic_entry}, {"list_separator", f.list_separator},
              {"headers", f.headers}};
}

std::vector<std::string> read_words(const Field& f) {
  std::vector<std::string> out;
  std::size_t n = f.array_size(4096);
  for (std::size_t i = 0; i < n; ++i) out.push_back(f.at(i).string(4096));
  return out;
}

std::string read_hash(const Field& f) {
  std::string s = f.string(64);
  if (!common::is_sha256_hex(s)) f.fail("a SHA-256 of 64 lower-case hex digits");
  return s;
}

}  // namespace

std::string KeyFactors::identity() const { return common::sha256_hex(shared_factors(*this).dump()); }

std::map<std::string, std::string> KeyFactors::factor_hashes() const {
  std::map<std::string, std::string> out;
  Json shared = shared_factors(*this);
  for (const auto& [name, value] : shared.items()) {
    if (name == "headers") continue;
    out[name] = common::sha256_hex(value.dump());
  }
  for (const auto& [name, hash] : headers) out["header " + name] = hash;
  return out;
}

Json key_factors_json(const KeyFactors& f) {
  Json factors = Json::object();
  Json shared = shared_factors(f);
  for (const auto& [name, value] : shared.items())
    if (name != "headers") factors[name] = {{"value", value}, {"sha256", common::sha256_hex(value.dump())}};
  Json templates = Json::object();
  for (const auto& [op, t] : f.templates) templates[op] = {{"file", t.first}, {"sha256", t.second}};
  return Json{{"format", kFormat},         {"identity", f.identity()}, {"factors", std::move(factors)},
              {"headers", f.headers},      {"templates", std::move(templates)}};
}

KeyFactors parse_key_factors(const Json& doc) {
  Field root(doc, "");
  root.expect_object();
  if (root.at("format").integer(kFormat, kFormat) != kFormat) root.at("format").fail("1");
  Field factors = root.at("factors");
  factors.expect_object();
  KeyFactors f;
  f.identify = factors.at("compiler").at("value").string(1 << 16);
  f.flags = read_words(factors.at("flags").at("value"));
  f.command = read_words(factors.at("command").at("value"));
  f.link = read_words(factors.at("link").at("value"));
  f.suffix = factors.at("suffix").at("value").string();
  f.entry = factors.at("entry").at("value").string();
  f.dynamic_entry = factors.at("dynamic_entry").at("value").string();
  f.list_separator = factors.at("list_separator").at("value").string();
  Field headers = root.at("headers");
  headers.expect_object();
  for (const auto& [name, v] : headers.json().items())
    f.headers[name] = read_hash(headers.at(name));
  Field templates = root.at("templates");
  templates.expect_object();
  for (const auto& [op, v] : templates.json().items()) {
    Field t = templates.at(op);
    f.templates[op] = {t.at("file").string(4096), read_hash(t.at("sha256"))};
  }
  if (read_hash(root.at("identity")) != f.identity())
    root.at("identity").fail("the SHA-256 of the factors it lists (" + f.identity() + ")");
  return f;
}

}  // namespace skb::generator
