// The static matmul's tile choice (templates/kernels/common/skb_matmul_plan.h), on the CPU: every
// candidate is one the cuda template can run, the choice fills the GPU's multiprocessors
// before it grows the tile, and it never asks for more shared memory than a block may have.
#include <gtest/gtest.h>

#include "skb_matmul_plan.h"

namespace {

using skb_mm::kFmaTiles;
using skb_mm::kMmaTiles;
using skb_mm::Problem;

constexpr int kH100 = 132;
constexpr int kHopperSmem = 227 * 1024;

Problem problem(int64_t m, int64_t n, int64_t k, int64_t batches = 1, int sms = kH100, int smem = kHopperSmem) {
  return Problem{batches, m, n, k, sms, smem};
}

int64_t tiles(const Problem& p, const skb_mm::Tile& t) {
  return p.batches * skb_mm::ceil_div(p.m, t.bm) * skb_mm::ceil_div(p.n, t.bn);
}

TEST(MatmulPlan, EveryTensorCoreTileDividesIntoWholeFragmentsAndChunks) {
  for (const auto& t : kMmaTiles) {
    SCOPED_TRACE(testing::Message() << t.bm << "x" << t.bn);
    EXPECT_EQ(t.bm % t.wm, 0);
    EXPECT_EQ(t.bn % t.wn, 0);
    EXPECT_EQ(t.wm % 16, 0);  // m16 fragments
    EXPECT_EQ(t.wn % 16, 0);  // pairs of n8 fragments (one ldmatrix.x4)
    EXPECT_EQ(t.bk % 16, 0);
    EXPECT_GE(t.stages, 2);
    // Each operand's tile is whole 16-byte chunks, shared evenly by the block's threads.
    EXPECT_EQ(t.bm * t.bk / 8 % t.threads(), 0);
    EXPECT_EQ(t.bn * t.bk / 8 % t.threads(), 0);
    EXPECT_LE(t.threads(), 1024);
  }
}

TEST(MatmulPlan, EveryFloatTileIsSixteenBySixteenThreads) {
  for (const auto& t : kFmaTiles) {
    SCOPED_TRACE(testing::Message() << t.bm << "x" << t.bn);
    EXPECT_EQ(t.bm, 16 * t.wm);
    EXPECT_EQ(t.bn, 16 * t.wn);
    EXPECT_EQ(t.bm * t.bk % 256, 0);
    EXPECT_EQ(t.bn * t.bk % 256, 0);
    EXPECT_LE(skb_mm::fma_smem_bytes(t), 48 * 1024);  // static shared memory
  }
}

TEST(MatmulPlan, PaddedRowsKeepSixteenByteAlignment) {
  for (const auto& t : kMmaTiles)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        // Row strides of each operand's layout, in bytes: ldmatrix and cp.async need 16.
        const int p = skb_mm::pad(2);
        for (int cols : {ta ? t.bm : t.bk, tb ? t.bk : t.bn}) EXPECT_EQ((cols + p) * 2 % 16, 0);
        EXPECT_GT(skb_mm::mma_smem_bytes(t, 2, ta, tb), 0);
      }
}

TEST(MatmulPlan, ALargeProductTakesTheTileThatFeedsBest) {
  // Many waves whatever the tile: what counts is how fast each tile goes.
  const auto p = problem(4096, 4096, 4096);
  const int i = skb_mm::choose_mma(p, 2, false, false), f = skb_mm::choose_fma(p);
  ASSERT_GE(i, 0);
  ASSERT_GE(f, 0);
  for (const auto& t : kMmaTiles) EXPECT_LE(t.feed, kMmaTiles[i].feed);
  for (const auto& t : kFmaTiles) EXPECT_LE(t.feed, kFmaTiles[f].feed);
  EXPECT_EQ(kMmaTiles[i].bm * kMmaTiles[i].bn, 128 * 128);
}

TEST(MatmulPlan, ASmallProductSpreadsOverTheMultiprocessors) {
  // 256 x 1024 is 16 tiles of 128 x 128: 116 of 132 multiprocessors would idle.
  for (auto p : {problem(256, 1024, 1024), problem(128, 1024, 4096), problem(128, 128, 64, 16)}) {
    const int i = skb_mm::choose_mma(p, 2, false, false);
    ASSERT_GE(i, 0);
    EXPECT_GT(tiles(p, kMmaTiles[i]), tiles(p, kMmaTiles[0]));
    EXPECT_LE(tiles(p, kMmaTiles[i]), p.multiprocessors) << "one wave suffices here";
  }
}

TEST(MatmulPlan, FewerMultiprocessorsTakeLargerTiles) {
  // The same shape on a GPU of 16 multiprocessors: fewer, larger tiles do as well in waves.
  const auto big = problem(1024, 1024, 1024, 1, kH100), small = problem(1024, 1024, 1024, 1, 16);
  const auto& a = kMmaTiles[skb_mm::choose_mma(big, 2, false, false)];
  const auto& b = kMmaTiles[skb_mm::choose_mma(small, 2, false, false)];
  EXPECT_GE(b.bm * b.bn, a.bm * a.bn);
}

TEST(MatmulPlan, TheChoiceFitsTheSharedMemoryABlockMayHave) {
  for (int limit : {kHopperSmem, 99 * 1024, 48 * 1024}) {
    const auto p = problem(4096, 4096, 4096, 1, kH100, limit);
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const int i = skb_mm::choose_mma(p, 2, ta, tb);
        ASSERT_GE(i, 0) << limit;
        EXPECT_LE(skb_mm::mma_smem_bytes(kMmaTiles[i], 2, ta, tb), limit);
      }
  }
  EXPECT_EQ(skb_mm::choose_mma(problem(64, 64, 64, 1, kH100, 1024), 2, false, false), -1) << "nothing fits 1 KiB";
}

TEST(MatmulPlan, TensorCoresNeedContiguousAxesOfWholeChunks) {
  EXPECT_TRUE(skb_mm::mma_readable(100, 72, 64, false, false));  // k and n are read contiguously
  EXPECT_FALSE(skb_mm::mma_readable(64, 64, 60, false, false));  // k
  EXPECT_FALSE(skb_mm::mma_readable(64, 60, 64, false, false));  // n
  EXPECT_TRUE(skb_mm::mma_readable(64, 60, 64, false, true));    // a transposed B is read along k
  EXPECT_FALSE(skb_mm::mma_readable(60, 64, 64, true, false));   // a transposed A along m
}

TEST(MatmulPlan, KnownArchitecturesHaveTheirMultiprocessorsAndSharedMemory) {
  EXPECT_EQ(skb_mm::multiprocessors(90), 132);
  EXPECT_EQ(skb_mm::multiprocessors(80), 108);
  EXPECT_EQ(skb_mm::smem_limit(90), 227 * 1024);
  EXPECT_EQ(skb_mm::smem_limit(80), 163 * 1024);
  EXPECT_EQ(skb_mm::smem_limit(60), 48 * 1024);
}

}  // namespace
