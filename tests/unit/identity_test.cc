// A kernel's name depends on what decides its bytes and on nothing else: the same for every copy
// of skb's templates wherever it is, different for a template's or header's byte, a flag, the
// compiler's version line or a record's attr. Checked over every shipped record.
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/fs.h"
#include "generator/key_factors.h"
#include "generator/plan.h"
#include "generator/toolchain.h"
#include "opmodel/op_record.h"
#include "test_util.h"
#include "tests/support/records.h"

namespace skb::generator {
namespace {
namespace fs = std::filesystem;
using common::Json;

// A copy of the build tree's templates at `where` (a new install prefix, as it were).
fs::path templates_at(const fs::path& where) {
  fs::create_directories(where.parent_path());
  fs::copy(SKB_TEST_TEMPLATES, where, fs::copy_options::recursive);
  return where;
}

void edit(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = common::read_file(file);
  std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << file;
  test::write_text(file, text.replace(at, from.size(), to));
}

struct Named {
  fs::path file;
  opmodel::OpRecord record;
};

// Every shipped record the host toolchain compiles.
std::vector<Named> supported(const Toolchain& tc) {
  std::vector<Named> out;
  for (auto& [path, r] : test::valid_records({SKB_EXAMPLES, SKB_FUZZ_CORPUS "/op_record"}))
    if (unsupported_reason(r, tc).empty()) out.push_back({path, r});
  return out;
}

std::string name_of(const opmodel::OpRecord& r, const Toolchain& tc) {
  return kernel_name(r.op_type, opmodel::canonical_signature(r), tc, *tc.find(r.op_type));
}

TEST(Identity, NamesDoNotDependOnWhereSkbIsInstalled) {
  fs::path dir = test::scratch_dir();
  Toolchain a = load_toolchain("host", templates_at(dir / "opt/skb/share/skb/templates"), "", {});
  Toolchain b = load_toolchain("host", templates_at(dir / "home/dev/skb/build/share/skb/templates"), "", {});
  Toolchain launched = load_toolchain("host", SKB_TEST_TEMPLATES, "", {"ccache"});
  EXPECT_NE(a.command, b.command);  // the commands name their own folders...
  EXPECT_EQ(a.identity, b.identity);  // ...the identity does not
  EXPECT_EQ(a.identity, launched.identity);
  std::string key = key_factors_json(a.factors).dump();
  EXPECT_EQ(key.find(dir.string()), std::string::npos) << "a path in key.json: " << key;
  EXPECT_EQ(key.find(SKB_TEST_TEMPLATES), std::string::npos) << "a path in key.json: " << key;
  std::vector<Named> records = supported(a);
  ASSERT_GE(records.size(), 20u);
  for (const auto& n : records) EXPECT_EQ(name_of(n.record, a), name_of(n.record, b)) << n.file;
}

TEST(Identity, WhatDecidesTheBytesChangesEveryNameItShould) {
  fs::path dir = test::scratch_dir();
  fs::path base = templates_at(dir / "base");
  Toolchain tc = load_toolchain("host", base, "", {});
  std::vector<Named> records = supported(tc);

  // One changed factor per copy of the templates.
  fs::path tmpl = templates_at(dir / "template"), header = templates_at(dir / "header"),
           flag = templates_at(dir / "flag"), compiler = templates_at(dir / "compiler");
  std::string matmul = tc.factors.templates.at("MatMulV2").first;
  test::write_text(tmpl / "kernels/host" / matmul, common::read_file(tmpl / "kernels/host" / matmul) + " ");
  test::write_text(header / "kernels/host/skb_kernel.h", common::read_file(header / "kernels/host/skb_kernel.h") + "\n");
  edit(flag / "toolchains/host.json", "\"-O3\"", "\"-O2\"");
  edit(compiler / "toolchains/host.json", "\"identify\": [\"{compiler}\", \"--version\"]",
       "\"identify\": [\"sh\", \"-c\", \"{compiler} --version | sed 1s/$/.1/\"]");
  struct Case {
    const char* what;
    Toolchain tc;
  };
  std::vector<Case> cases = {{"a template's byte", load_toolchain("host", tmpl, "", {})},
                             {"a header's byte", load_toolchain("host", header, "", {})},
                             {"a flag", load_toolchain("host", flag, "", {})},
                             {"the compiler's version line", load_toolchain("host", compiler, "", {})}};
  EXPECT_EQ(cases[0].tc.identity, tc.identity);  // a template is a factor of its own op only
  for (std::size_t i = 1; i < cases.size(); ++i) EXPECT_NE(cases[i].tc.identity, tc.identity) << cases[i].what;
  for (const auto& n : records) {
    std::string name = name_of(n.record, tc);
    for (const Case& c : cases) {
      bool should_change = std::string(c.what) != "a template's byte" ||
                           tc.factors.templates.at(n.record.op_type).first == matmul;
      EXPECT_EQ(name_of(n.record, c.tc) != name, should_change) << c.what << ": " << n.file;
    }
  }
}

// A value of the same kind that is not v.
Json other_value(const Json& v) {
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>() + 1;
  if (v.is_number()) return v.get<double>() * 2 + 1;
  if (v.is_string()) return v.get<std::string>() + "x";
  Json list = v;
  list.push_back(list.empty() ? Json(1) : list.back());
  return list;
}

TEST(Identity, EveryAttrOfEveryShippedRecordIsPartOfItsName) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  std::size_t attrs = 0;
  for (const auto& n : supported(tc)) {
    std::string name = name_of(n.record, tc);
    for (std::size_t i = 0; i < n.record.attrs.size(); ++i) {
      opmodel::OpRecord changed = n.record;
      changed.attrs[i].value = other_value(changed.attrs[i].value);
      EXPECT_NE(name_of(changed, tc), name) << n.file << ": attr " << changed.attrs[i].name;
      ++attrs;
    }
  }
  EXPECT_GE(attrs, 10u);
}

TEST(Identity, KeyFactorsRoundTripAndATamperedFileIsRefused) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  Json doc = key_factors_json(tc.factors);
  EXPECT_EQ(doc["identity"], tc.identity);
  KeyFactors back = parse_key_factors(doc);
  EXPECT_EQ(back.identity(), tc.identity);
  EXPECT_EQ(back.templates, tc.factors.templates);
  EXPECT_EQ(back.factor_hashes(), tc.factors.factor_hashes());
  doc["factors"]["flags"]["value"][0] = "-O0";
  try {
    parse_key_factors(doc);
    FAIL() << "a key.json whose factors are not its identity's was read";
  } catch (const common::FieldError& e) {
    EXPECT_EQ(e.pointer(), "/identity");
  }
  doc.erase("headers");
  EXPECT_THROW(parse_key_factors(doc), common::FieldError);
}

}  // namespace
}  // namespace skb::generator
