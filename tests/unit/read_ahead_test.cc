#include <gtest/gtest.h>

#include "common/error.h"
#include "common/sha256.h"
#include "packager/read_ahead.h"
#include "test_util.h"

namespace skb::packager {
namespace {

// n files of 1 KiB each, distinct bytes; binaries (kernel and sha256 set) when `binary`.
std::vector<SourceFile> files(const std::filesystem::path& dir, int n, bool binary) {
  std::vector<SourceFile> out;
  for (int i = 0; i < n; ++i) {
    std::string text(1024, static_cast<char>('a' + i % 26));
    text += std::to_string(i);
    auto p = dir / ("k" + std::to_string(i) + ".so");
    test::write_text(p, text);
    out.push_back({p, p.filename().string(), std::nullopt, binary ? "K" + std::to_string(i) : "",
                   binary ? common::sha256_hex(text) : ""});
  }
  return out;
}

TEST(ReadAhead, GivesEveryFileInOrderThroughASmallWindow) {
  auto dir = test::scratch_dir();
  auto fs = files(dir, 200, true);
  fs.push_back({dir / "none", "small.json", std::string("already read"), "", ""});
  ReadAhead r(fs, 4096);  // about 4 files at a time: the reader waits for the writer
  for (int i = 0; i < 200; ++i) {
    std::string text(1024, static_cast<char>('a' + i % 26));
    ASSERT_EQ(r.next(), text + std::to_string(i)) << i;
  }
  EXPECT_EQ(r.next(), "already read");
  EXPECT_TRUE(r.mismatches().empty());
}

TEST(ReadAhead, NamesEachBinaryWhoseBytesDoNotMatchItsRecord) {
  auto dir = test::scratch_dir();
  auto fs = files(dir, 5, true);
  test::write_text(fs[1].source, "rebuilt since");
  test::write_text(fs[3].source, "");
  ReadAhead r(fs);
  for (std::size_t i = 0; i < fs.size(); ++i) r.next();
  auto bad = r.mismatches();
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0], "K1: binary does not match its record (sha256 " + common::sha256_hex("rebuilt since") +
                        ", recorded " + fs[1].sha256 + ")");
  EXPECT_EQ(bad[1].substr(0, 42), "K3: binary does not match its record (sha2");
}

TEST(ReadAhead, AFileThatCannotBeReadIsAnErrorAtItsTurn) {
  auto dir = test::scratch_dir();
  auto fs = files(dir, 3, false);
  std::filesystem::remove(fs[1].source);
  ReadAhead r(fs);
  EXPECT_FALSE(r.next().empty());
  EXPECT_THROW(r.next(), common::Error);
}

TEST(ReadAhead, StopsWhenTheWriterGivesUpEarly) {
  auto dir = test::scratch_dir();
  auto fs = files(dir, 100, true);
  ReadAhead r(fs, 2048);
  r.next();  // then destroyed with 99 files untaken: must not hang
}

}  // namespace
}  // namespace skb::packager
