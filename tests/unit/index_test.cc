#include <gtest/gtest.h>

#include "common/error.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "packager/install/index.h"
#include "packager/install/index_cache.h"

#include <random>

namespace skb::installer {
namespace {
using common::Json;
using packager::Manifest;

Manifest package(const std::string& name, std::vector<std::string> keys) {
  Manifest m;
  m.package = name;
  m.soc = "host";
  m.toolchain = "host";
  for (const auto& key : keys) {
    std::string bin = "host/Add/Add_" + key + ".so";
    m.files.push_back({bin, std::string(64, key[0]), 1});
    packager::PackageKernel k;
    k.name = "Add_" + key;
    k.op_type = "Add";
    k.variant = "static";
    k.key = std::string(64, key[0]);
    k.entry = "skb_kernel";
    k.bin = bin;
    k.simplified_keys = {"Add/d=0,p=1/0,2,(" + key + ")"};
    k.core_type = 1;
    k.block_dim = 24;
    k.workspace = {32};
    m.kernels.push_back(k);
  }
  return m;
}

std::map<std::string, std::string> owners(const std::string& index_text) {
  std::map<std::string, std::string> out;
  const Json index = Json::parse(index_text);
  for (const auto& [op, e] : index.items())
    for (const auto& k : e["staticList"]) out[k["skbKey"].get<std::string>().substr(0, 1)] = k["package"];
  return out;
}

TEST(Index, PackageInstalledLastWinsForTheSameKey) {
  auto idx = merged_indexes({package("static_kernel_1", {"a", "b"}), package("static_kernel_2", {"b", "c"})}, {});
  EXPECT_EQ(owners(idx.at("host")), (std::map<std::string, std::string>{
                                        {"a", "static_kernel_1"}, {"b", "static_kernel_2"}, {"c", "static_kernel_2"}}));
  auto j = Json::parse(idx.at("host"));
  EXPECT_EQ(j["Add"]["staticList"].size(), 3u);
  EXPECT_EQ(j["Add"]["staticList"][1]["binPath"], "static_kernel_2/host/Add/Add_b.so");
  EXPECT_EQ(j["Add"]["staticList"][1]["sha256"], std::string(64, 'b'));
}

// Section 4 of opbase's index format: what opbase needs of every entry, or it skips it.
TEST(Index, EntriesHaveOpbasesSchema) {
  auto j = Json::parse(merged_indexes({package("static_kernel_1", {"a"})}, {}).at("host"));
  EXPECT_EQ(j["Add"]["dynamicRankSupport"], true);
  EXPECT_EQ(j["Add"]["simplifiedKeyMode"], 0);
  const Json& e = j["Add"]["staticList"][0];
  EXPECT_EQ(e["simplifiedKey"], "Add/d=0,p=1/0,2,(a)");
  EXPECT_TRUE(e["coreType"].is_number_integer());
  EXPECT_EQ(e["coreType"], 1);
  EXPECT_TRUE(e["binDesc"]["blockDim"].is_number_unsigned());
  EXPECT_EQ(e["binDesc"], Json({{"blockDim", 24}, {"kernelName", "skb_kernel"}, {"workspace", {32}}}));
  EXPECT_EQ(e["binPath"], "static_kernel_1/host/Add/Add_a.so");
  EXPECT_EQ(e["skbKey"], std::string(64, 'a'));
  EXPECT_EQ(e["kernelName"], "Add_a");
}

// A kernel without an opbase key, or whose opbase key a newer package took, is listed for skb
// only (skbList), so that opbase never reads two entries for one key.
TEST(Index, OpbaseReadsOneEntryPerKey) {
  Manifest older = package("static_kernel_1", {"a"});
  Manifest newer = package("static_kernel_2", {"b"});
  newer.kernels[0].simplified_keys = older.kernels[0].simplified_keys;  // another toolchain, same call
  Manifest dynamic = package("static_kernel_3", {"d"});
  dynamic.kernels[0].variant = "dynamic";
  dynamic.kernels[0].simplified_keys.clear();
  auto j = Json::parse(merged_indexes({older, newer, dynamic}, {}).at("host"));
  ASSERT_EQ(j["Add"]["staticList"].size(), 1u);
  EXPECT_EQ(j["Add"]["staticList"][0]["package"], "static_kernel_2");
  ASSERT_EQ(j["Add"]["skbList"].size(), 2u);
  EXPECT_EQ(j["Add"]["skbList"][0]["package"], "static_kernel_1");
  EXPECT_FALSE(j["Add"]["skbList"][0].contains("simplifiedKey"));
  EXPECT_EQ(j["Add"]["skbList"][1]["variant"], "dynamic");
}

// A call the two engines key differently: one staticList entry per key, each with the kernel's
// binPath (the composite engine reads simplifiedKey as a string, OpKernel::AppendStaticBin, and
// skips a binPath it has added, OpKernel::HashAndInsert). A newer kernel that owns one of the
// keys takes that entry only.
TEST(Index, AKernelWithSeveralKeysHasAnEntryPerKey) {
  Manifest older = package("static_kernel_1", {"a"});
  older.kernels[0].simplified_keys = {"Add/d=0,p=0/0,2,(a)", "Add/d=0,p=2/0,2,(a)", "Add/d=0,p=1/0,2,(a)"};
  auto j = Json::parse(merged_indexes({older}, {}).at("host"));
  ASSERT_EQ(j["Add"]["staticList"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j["Add"]["staticList"][i]["simplifiedKey"], older.kernels[0].simplified_keys[i]);
    EXPECT_EQ(j["Add"]["staticList"][i]["binPath"], "static_kernel_1/host/Add/Add_a.so");
  }
  Manifest newer = package("static_kernel_2", {"b"});
  newer.kernels[0].simplified_keys = {"Add/d=0,p=2/0,2,(a)"};  // made in high precision
  j = Json::parse(merged_indexes({older, newer}, {}).at("host"));
  ASSERT_EQ(j["Add"]["staticList"].size(), 3u);
  std::map<std::string, std::string> package_of;
  for (const auto& e : j["Add"]["staticList"]) package_of[e["simplifiedKey"]] = e["package"];
  EXPECT_EQ(package_of, (std::map<std::string, std::string>{{"Add/d=0,p=0/0,2,(a)", "static_kernel_1"},
                                                            {"Add/d=0,p=1/0,2,(a)", "static_kernel_1"},
                                                            {"Add/d=0,p=2/0,2,(a)", "static_kernel_2"}}));
  EXPECT_TRUE(j["Add"]["skbList"].empty());
}

// OpKernel::AppendStaticBin reads the op entry's valueDependIndex; the composite engine keys an
// input's data only at the positions it lists.
TEST(Index, OpEntriesListTheirKernelsValueDependInputs) {
  Manifest a = package("static_kernel_1", {"a", "b"});
  a.kernels[0].value_depend_index = {1};
  Manifest b = package("static_kernel_2", {"c"});
  b.kernels[0].value_depend_index = {1, 2};
  auto j = Json::parse(merged_indexes({a, b}, {}).at("host"));
  EXPECT_EQ(j["Add"]["valueDependIndex"], Json({1, 2}));
  EXPECT_FALSE(Json::parse(merged_indexes({package("static_kernel_3", {"d"})}, {}).at("host"))["Add"].contains(
      "valueDependIndex"));
}

TEST(Index, SocWithoutPackagesGetsAnEmptyIndex) {
  auto idx = merged_indexes(std::vector<packager::Manifest>{}, {"host"});
  EXPECT_EQ(Json::parse(idx.at("host")), Json::object());
}

// What the library keeps beside each package reads back as it was written, and merges into the
// same index as the manifests do; a line that is not as skb writes it is refused (the library
// then renders the pieces from the manifest again).
TEST(Index, PiecesRoundTripAndMergeAsTheirManifests) {
  Manifest a = package("static_kernel_1", {"a", "b"});
  a.kernels[0].value_depend_index = {1, 3};
  a.kernels[0].simplified_keys = {"Add/d=0,p=0/0,2,(a)", "Add/d=0,p=2/0,2,(a)"};
  a.kernels[1].launch = {"cuda", 2, 256, 4096};
  Manifest b = package("static_kernel_2", {"b", "c"});
  std::vector<PackagePieces> read;
  for (const auto& m : {a, b}) {
    std::string text = pieces_text(pieces_of(m));
    PackagePieces p = parse_pieces(text, m.package);
    EXPECT_EQ(pieces_text(p), text);
    EXPECT_EQ(p.files.size(), m.files.size());
    read.push_back(std::move(p));
  }
  auto from_pieces = merged_indexes(std::vector<const PackagePieces*>{&read[0], &read[1]}, {"other"});
  auto from_manifests = merged_indexes({a, b}, {"other"});
  ASSERT_EQ(from_pieces.size(), 2u);
  EXPECT_EQ(from_pieces, from_manifests);
  Json j = Json::parse(from_pieces.at("host"));
  ASSERT_EQ(j["Add"]["staticList"].size(), 4u);  // a under its two keys, b and c
  EXPECT_EQ(j["Add"]["staticList"][2]["kernelName"], "Add_b");
  EXPECT_EQ(j["Add"]["staticList"][2]["package"], "static_kernel_2");  // the newer b: no launch
  EXPECT_FALSE(j["Add"]["staticList"][2].contains("launch"));
  EXPECT_EQ(j["Add"]["valueDependIndex"], Json({1, 3}));
  auto only_a = Json::parse(merged_indexes({a}, {}).at("host"));
  EXPECT_EQ(only_a["Add"]["staticList"][2]["launch"],
            Json::parse(R"({"device":"cuda","grid":2,"block":256,"max_grid":4096})"));
  std::string text = pieces_text(pieces_of(a));
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{{"skb index pieces 1", "skb index pieces 2"},
                                                                          {"\tAdd\t", "\t"},
                                                                          {"\tAdd\t", "\tAdd\tmore\t"},
                                                                          {"F\t", "X\t"},
                                                                          {"F\t", "F\tmore\t"},
                                                                          {"\nK\t", "\n\nK\t"},
                                                                          {",3\t", ",x\t"}}) {
    std::string damaged = text;
    damaged.replace(damaged.find(from), from.size(), to);
    EXPECT_THROW(parse_pieces(damaged, "static_kernel_1"), common::Error) << from;
  }
  EXPECT_THROW(parse_pieces(text.substr(0, text.size() - 5), "static_kernel_1"), common::Error);  // cut short
  std::string file = pieces_file(pieces_of(a));
  EXPECT_LT(file.size(), text.size() / 2);
  EXPECT_EQ(pieces_text(parse_pieces_file(file, "static_kernel_1")), text);
  EXPECT_THROW(parse_pieces_file(file.substr(0, file.size() / 2), "static_kernel_1"), common::Error);
  EXPECT_THROW(parse_pieces_file(text, "static_kernel_1"), common::Error);  // not compressed
}

// Packages drawn at random from a few keys, opbase keys, ops and value-depend positions, so that
// newer ones replace older kernels, take their opbase keys (an older kernel left with none goes to
// skbList), and move a key to another op.
std::vector<PackagePieces> random_library(unsigned seed, int packages, bool value_depend = true) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<PackagePieces> out;
  for (int p = 0; p < packages; ++p) {
    std::vector<std::string> keys;
    for (int k = 0, n = 1 + pick(5); k < n; ++k) keys.push_back(std::string(1, "0123456789abcdef"[pick(16)]));
    Manifest m = package("static_kernel_" + std::to_string(p), keys);
    for (auto& k : m.kernels) {
      k.op_type = pick(6) ? "Add" : "Mul";
      k.simplified_keys.clear();
      for (int s = 0, n = pick(4); s < n; ++s)
        k.simplified_keys.push_back(k.op_type + "/sk" + std::to_string(pick(12)));
      if (pick(10) == 0) {
        k.variant = "dynamic";
        k.simplified_keys.clear();
      }
      if (value_depend && k.op_type == "Mul" && pick(3) == 0) k.value_depend_index = {1 + pick(2)};
    }
    out.push_back(pieces_of(m));
  }
  return out;
}

// An install splices the new package's entries into the merged index: the very text merging every
// package's pieces makes, or nothing when it cannot tell (then the library merges them all).
TEST(Index, SplicingAPackageInMakesTheMergedIndex) {
  for (bool value_depend : {false, true}) {
    int spliced = 0, refused = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
      std::vector<PackagePieces> lib = random_library(seed, 12, value_depend);
      std::vector<const PackagePieces*> order;
      std::string before = merged_indexes(order, {"host"}).at("host");
      for (const auto& p : lib) {
        order.push_back(&p);
        std::string after = merged_indexes(order, {"host"}).at("host");
        std::optional<std::string> text = splice_index(before, p, "host");
        if (text) {
          ASSERT_EQ(*text, after) << "seed " << seed << ", " << p.package;
          ++spliced;
        } else {
          ++refused;
        }
        EXPECT_EQ(splice_index(before, p, "other"), before);  // no kernel of another soc
        before = after;
      }
    }
    // Refused only where a replaced kernel's value-depend positions may go with it.
    EXPECT_EQ(refused, value_depend ? refused : 0);
    EXPECT_GT(spliced, 4 * refused);
  }
}

// The spliced text keeps the old index's lines as runs of its bytes: a few kernels spliced into
// a long index make a few parts, not one a line.
TEST(Index, SplicingKeepsTheOldLinesAsRunsOfTheirBytes) {
  // 300 kernels; then a package of 8, two of which replace old ones.
  auto many = [](const std::string& name, int from, int to) {
    std::vector<std::string> names;
    for (int i = from; i < to; ++i) names.push_back(std::to_string(1000 + i));
    Manifest m = package(name, names);
    for (std::size_t i = 0; i < m.kernels.size(); ++i) m.kernels[i].key = common::sha256_hex(names[i]);
    return m;
  };
  Manifest old = many("static_kernel_1", 0, 300), fresh = many("static_kernel_2", 298, 306);
  std::string before = merged_indexes({old}, {"host"}).at("host");
  std::optional<Rope> text = splice_index_parts(before, pieces_of(fresh), "host");
  ASSERT_TRUE(text);
  EXPECT_TRUE(text->equals(merged_indexes({old, fresh}, {"host"}).at("host")));
  std::size_t lines = std::count(before.begin(), before.end(), '\n');
  EXPECT_LT(text->parts().size() * 4, lines) << text->parts().size() << " parts, " << lines << " lines";
}

// The binaries an index lists for the keys asked about: a kernel's with one entry or several (a
// staticList line per opbase key), one listed for skb only (skbList), none for a key not listed.
TEST(Index, ListedBinsAreTheBinPathsOfTheKeysAskedAbout) {
  Manifest a = package("static_kernel_1", {"a", "b", "c"});
  a.kernels[0].simplified_keys.push_back("Add/other");
  a.kernels[2].variant = "dynamic";
  a.kernels[2].simplified_keys.clear();
  std::string index = merged_indexes({a}, {"host"}).at("host");
  std::string ka(64, 'a'), kb(64, 'b'), kc(64, 'c'), kd(64, 'd');
  std::unordered_map<std::string, std::string> bins = listed_bins(index, {ka, kc, kd});
  EXPECT_EQ(bins, (std::unordered_map<std::string, std::string>{{ka, "static_kernel_1/host/Add/Add_a.so"},
                                                                {kc, "static_kernel_1/host/Add/Add_c.so"}}));
  EXPECT_TRUE(listed_bins(index, {}).empty());
  EXPECT_TRUE(listed_bins("{}\n", {ka}).empty());
  EXPECT_TRUE(listed_bins("  {\"skbKey\":\"" + ka + "\"}\n", {ka}).empty());  // no binPath: passed over
}

TEST(Index, SplicingRefusesWhatItCannotTell) {
  Manifest a = package("static_kernel_1", {"a", "b"});
  a.kernels[0].simplified_keys = {"Add/1", "Add/2"};
  Manifest b = package("static_kernel_2", {"b", "c"});
  b.kernels[0].simplified_keys = {"Add/2"};  // a's: a keeps Add/1
  PackagePieces pa = pieces_of(a), pb = pieces_of(b);
  std::string old = merged_indexes({a}, {}).at("host");
  ASSERT_EQ(splice_index(old, pb, "host"), merged_indexes({a, b}, {}).at("host"));
  // Not as merged_indexes writes it: another layout, lines cut or swapped, an entry without its key.
  std::string swapped = old;
  std::size_t first = swapped.find("\n  {"), second = swapped.find("\n  {", first + 1);
  std::string one = swapped.substr(first + 1, second - first - 2), two = swapped.substr(second + 1);
  two = two.substr(0, two.find('\n'));
  swapped = swapped.substr(0, first + 1) + two + ",\n" + one + swapped.substr(second + 1 + two.size());
  for (const std::string& bad :
       {Json::parse(old).dump(1), old.substr(0, old.size() - 3), old.substr(0, old.find("\n  {")) + "\n}\n", swapped,
        std::string("{\n}\n"), std::string("[]\n")}) {
    EXPECT_EQ(splice_index(bad, pb, "host"), std::nullopt) << bad;
  }
  std::string keyless = old;
  keyless.replace(keyless.find("\"skbKey\":\""), 10, "\"skbKex\":\"");
  EXPECT_EQ(splice_index(keyless, pb, "host"), std::nullopt);
  // An op whose valueDependIndex may lose a replaced kernel's positions: the pieces must say.
  a.kernels[1].value_depend_index = {2};
  old = merged_indexes({a}, {}).at("host");
  EXPECT_EQ(splice_index(old, pb, "host"), std::nullopt);
  b.kernels[0].key = std::string(64, 'd');  // replaces none: the positions add up
  b.kernels[1].value_depend_index = {1};
  EXPECT_EQ(splice_index(old, pieces_of(b), "host"), merged_indexes({a, b}, {}).at("host"));
  EXPECT_EQ(Json::parse(*splice_index(old, pieces_of(b), "host"))["Add"]["valueDependIndex"], Json({1, 2}));
}

// The cache reads back as written; any byte changed or cut is refused, never misread.
TEST(Index, CacheRoundTrips) {
  IndexCache cache{{"static_kernel_5", "static_kernel_4"}, {{"host", index_check("{}\n")}, {"other", "1:2:3"}}};
  std::string text = index_cache_text(cache);
  std::optional<IndexCache> read = parse_index_cache(text);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->order, cache.order);
  EXPECT_EQ(read->indexes, cache.indexes);
  EXPECT_EQ(index_cache_text(*read), text);
  EXPECT_TRUE(parse_index_cache(index_cache_text(IndexCache{})));
  for (std::size_t at = 0; at < text.size(); at += 7) {
    std::string damaged = text;
    damaged[at] ^= 0x20;
    EXPECT_FALSE(parse_index_cache(damaged)) << at;
  }
  EXPECT_FALSE(parse_index_cache(text.substr(0, text.size() / 2)));
  EXPECT_FALSE(parse_index_cache(""));
  EXPECT_NE(index_check("{}\n"), index_check("{} "));
}

TEST(Index, ConfigIniRoundTripsAndIgnoresJunk) {
  EXPECT_EQ(config_ini({"static_kernel_2", "static_kernel_1"}),
            "[static_kernel]\nload_priority=static_kernel_2,static_kernel_1\n");
  EXPECT_EQ(parse_config_ini(config_ini({"static_kernel_2", "static_kernel_1"})),
            (std::vector<std::string>{"static_kernel_2", "static_kernel_1"}));
  EXPECT_EQ(parse_config_ini("load_priority=static_kernel_1,../x,,static_kernel_1,other\n"),
            (std::vector<std::string>{"static_kernel_1"}));
  EXPECT_TRUE(parse_config_ini("").empty());
}

}  // namespace
}  // namespace skb::installer
