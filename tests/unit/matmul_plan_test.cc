// The static matmul's tile choice (templates/kernels/common/skb_matmul_plan.h), on the CPU: every
// candidate is one the cuda template can run, the choice fills the GPU's multiprocessors
// before it grows the tile, and it never asks for more shared memory than a block may have.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

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

using skb_mm::tiles;

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
    EXPECT_EQ(t.bm % t.split, 0) << "a split tile's rows share out among its blocks";
  }
}

TEST(MatmulPlan, ASplitFloatTileIsForKernelsDeclaredAsClusters) {
  for (int i = 0; i < skb_mm::kNumFmaTiles; ++i) {
    const bool split = kFmaTiles[i].split > 1;
    EXPECT_EQ(skb_mm::FmaSmem{false}(i), split ? -1 : skb_mm::fma_smem_bytes(kFmaTiles[i]));
    EXPECT_EQ(skb_mm::FmaSmem{true}(i), skb_mm::fma_smem_bytes(kFmaTiles[i]));
  }
  const skb_mm::Tile split{64, 64, 8, 4, 4, 2, 1, 1, 2};
  EXPECT_EQ(skb_mm::fma_smem_bytes(split), (2 * 8 * (64 + 64 + 8) + 64 * 64) * 4) << "its stages and its sums";
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

// Nanoseconds an output takes on a multiprocessor with tile t over a reduction of k: what
// decides where every tile runs many waves.
double per_output(const skb_mm::Tile& t, int64_t k) {
  if (t.feed <= 0) return std::numeric_limits<double>::infinity();  // not timed: never chosen
  const int64_t steps = skb_mm::ceil_div(skb_mm::ceil_div(k, t.bk), t.split) * t.bk;
  return (double(t.bm) * t.bn * steps / t.feed + t.wave_ns) * t.split / (double(t.bm) * t.bn);
}

TEST(MatmulPlan, ALargeProductTakesTheTileThatIsFastestPerOutput) {
  // Many waves whatever the tile: what counts is how fast each tile goes.
  const auto p = problem(4096, 4096, 4096);
  const int i = skb_mm::choose_mma(p, 2, false, false), f = skb_mm::choose_fma(p);
  ASSERT_GE(i, 0);
  ASSERT_GE(f, 0);
  for (const auto& t : kMmaTiles) EXPECT_LE(per_output(kMmaTiles[i], p.k), per_output(t, p.k));
  for (const auto& t : kFmaTiles) EXPECT_LE(per_output(kFmaTiles[f], p.k), per_output(t, p.k));
  EXPECT_EQ(kMmaTiles[i].bm * kMmaTiles[i].bn, 128 * 128);
}

TEST(MatmulPlan, ASmallProductSpreadsOverTheMultiprocessors) {
  // 256 x 1024 is 16 tiles of 128 x 128: 116 of 132 multiprocessors would idle. (128 x 1024 x
  // 4096 takes two waves of the one-step 16 x 32 tile, which the H200 ran fastest of mma.sync's.)
  for (auto p : {problem(256, 1024, 1024), problem(128, 1024, 4096), problem(128, 128, 64, 16)}) {
    const int i = skb_mm::choose_mma(p, 2, false, false);
    ASSERT_GE(i, 0);
    EXPECT_GT(tiles(p, kMmaTiles[i]), tiles(p, kMmaTiles[0]));
    EXPECT_LE(tiles(p, kMmaTiles[i]), 2 * p.multiprocessors) << "two waves at most here";
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

TEST(MatmulPlan, EveryWgmmaTileIsWholeWarpgroupSlicesOfSwizzledLines) {
  for (const auto& t : skb_mm::kWgmmaTiles) {
    SCOPED_TRACE(testing::Message() << t.bm << "x" << t.bn);
    EXPECT_EQ(t.bm % 64, 0);  // a consumer warpgroup's m64 slice each
    // Whole 64-column blocks of an MN-major B, or one of 32 columns in 64-byte lines (a plain tile:
    // no split, multicast or staging, as the kernel asserts).
    if (t.bn == 32)
      EXPECT_TRUE(t.split == 1 && t.multicast == 1 && !t.staged);
    else
      EXPECT_EQ(t.bn % 64, 0);
    EXPECT_LE(t.bn, 256);  // wgmma's widest n, and a tensor map's largest box
    EXPECT_EQ(t.bk, skb_mm::kWgmmaDepth);
    EXPECT_EQ(t.bk * 2, 128);  // one 128-byte swizzled line of 16-bit elements
    EXPECT_GE(t.stages, 2);
    EXPECT_LE(skb_mm::wgmma_smem_bytes(t), skb_mm::smem_limit(90)) << "every candidate fits a Hopper block";
    EXPECT_EQ(skb_mm::wgmma_threads(t), (t.bm / 64 + 1) * 128);
  }
}

TEST(MatmulPlan, WgmmaTilesAreChosenOnlyWhereTheKernelMayUseThem) {
  const auto p = problem(4096, 4096, 4096);
  const int without = skb_mm::choose_mma(p, 2, false, false), with = skb_mm::choose_mma(p, 2, false, false, true);
  EXPECT_FALSE(skb_mm::is_wgmma(without));
  ASSERT_TRUE(skb_mm::is_wgmma(with)) << "a large product on sm_90a takes a warpgroup tile";
  const auto& t = skb_mm::kWgmmaTiles[with - skb_mm::kNumMmaTiles];
  for (const auto& c : skb_mm::kWgmmaTiles) EXPECT_LE(per_output(t, p.k), per_output(c, p.k));
  EXPECT_EQ(t.bm * t.bn, 128 * 256) << "the largest tile, one block a multiprocessor";
  // Where no wgmma tile fits, the mma.sync choice stands.
  const auto tight = problem(4096, 4096, 4096, 1, kH100, 48 * 1024);
  EXPECT_EQ(skb_mm::choose_mma(tight, 2, false, false, true), skb_mm::choose_mma(tight, 2, false, false));
}

TEST(MatmulPlan, TinyProductsKeepMmaSyncAndFewLongTilesSplitTheirReduction) {
  // A wgmma block's pipeline costs more than a 16 x 128 x 32 product takes on mma.sync.
  EXPECT_FALSE(skb_mm::is_wgmma(skb_mm::choose_mma(problem(16, 32, 128), 2, false, false, true)));
  // 128 x 1024 outputs are 8 to 32 tiles for 132 multiprocessors; a reduction of 4096 shares out.
  const int i = skb_mm::choose_mma(problem(128, 1024, 4096), 2, false, false, true);
  ASSERT_TRUE(skb_mm::is_wgmma(i));
  EXPECT_GT(skb_mm::kWgmmaTiles[i - skb_mm::kNumMmaTiles].split, 1);
}

TEST(MatmulPlan, AnUntimedTileIsBuiltForTheSweepButNeverChosen) {
  // Two tiles of one shape: the untimed one (feed 0) would be the cheaper by its wave cost.
  const skb_mm::Tile pair[] = {{64, 64, 8, 4, 4, 2, 0, 0}, {64, 64, 8, 4, 4, 2, 100, 5000}};
  const auto fits = [](int) { return 0; };
  EXPECT_EQ(skb_mm::cheapest(problem(512, 512, 512), pair, 2, fits), 1);
  EXPECT_EQ(skb_mm::cheapest(problem(512, 512, 512), pair, 1, fits), -1) << "no timed tile: none";
  // Whatever the shape, the tables' choice is a timed tile.
  for (auto p : {problem(16, 32, 128), problem(512, 512, 512), problem(4096, 4096, 4096), problem(128, 1024, 4096),
                 problem(33, 17, 45), problem(128, 128, 64, 16)}) {
    const int f = skb_mm::choose_fma(p), m = skb_mm::choose_mma(p, 2, false, false, true);
    ASSERT_GE(f, 0);
    ASSERT_GE(m, 0);
    EXPECT_GT(kFmaTiles[f].feed, 0);
    EXPECT_GT(skb_mm::is_wgmma(m) ? skb_mm::kWgmmaTiles[m - skb_mm::kNumMmaTiles].feed : kMmaTiles[m].feed, 0);
  }
}

TEST(MatmulPlan, APersistentTileLaunchesABlockAMultiprocessorAndTheOthersABlockATile) {
  // The persistent grid is the wgmma kernel's, for tiles of one block; the others launch a block a tile.
  int persistent = 0;
  for (const auto& t : skb_mm::kWgmmaTiles) {
    if (!t.persistent) continue;
    EXPECT_EQ(t.split, 1);
    ++persistent;
  }
  for (const auto& t : kMmaTiles) EXPECT_EQ(t.persistent + t.multicast, 1);
  for (const auto& t : kFmaTiles) EXPECT_EQ(t.persistent + t.multicast, 1);
  ASSERT_GT(persistent, 0);
  const skb_mm::Tile once{128, 256, 64, 64, 256, 4, 1, 1}, looped{128, 256, 64, 64, 256, 4, 1, 1, 1, 1},
      split{64, 128, 64, 64, 128, 8, 1, 1, 4};
  const auto big = problem(4096, 4096, 4096), small = problem(256, 1024, 1024);
  EXPECT_EQ(skb_mm::blocks(big, once), 32 * 16);
  EXPECT_EQ(skb_mm::blocks(big, looped), kH100) << "512 tiles, one block a multiprocessor";
  EXPECT_EQ(skb_mm::blocks(small, looped), 2 * 4) << "fewer tiles than multiprocessors: a block a tile";
  EXPECT_EQ(skb_mm::blocks(small, split), 4 * 8 * 4) << "a cluster of 4 a tile";
}

TEST(MatmulPlan, AMulticastTileIsAClusterOnTilesOneAboveTheOtherSharingWholeChunksOfB) {
  int multicast = 0;
  for (const auto& t : skb_mm::kWgmmaTiles) {
    if (t.multicast == 1) continue;
    ++multicast;
    EXPECT_EQ(t.split, 1);
    EXPECT_EQ(t.bn / 64 % t.multicast, 0) << "each block loads whole 64-column chunks of an MN-major B";
    EXPECT_EQ(t.bn / t.multicast % 8, 0) << "and whole 8-line swizzle atoms of a K-major one";
  }
  ASSERT_GT(multicast, 0);
  const skb_mm::Tile pair{128, 256, 64, 64, 256, 4, 1, 1, 1, 0, 2};
  EXPECT_EQ(skb_mm::blocks(problem(4096, 4096, 4096), pair), 32 * 16);
  EXPECT_EQ(skb_mm::blocks(problem(4160, 4096, 4096), pair), 34 * 16) << "33 tile rows take 17 clusters of 2";
  const skb_mm::Tile looped{128, 256, 64, 64, 256, 4, 1, 1, 1, 1, 2};
  EXPECT_EQ(skb_mm::blocks(problem(4096, 4096, 4096), looped), kH100) << "66 clusters, each over its pairs of tiles";
  EXPECT_EQ(skb_mm::blocks(problem(4096, 4096, 4096, 1, 133), looped), 132) << "whole clusters";
  EXPECT_EQ(skb_mm::blocks(problem(256, 1024, 1024), looped), 2 * 4) << "fewer tiles than multiprocessors";
}

// What matmul_wgmma.h asserts when it compiles a split tile, here for every candidate.
TEST(MatmulPlan, ASplitWgmmaTileIsAPortableClusterWhoseSumsFitItsStages) {
  int split = 0;
  for (const auto& t : skb_mm::kWgmmaTiles) {
    if (t.split == 1) continue;
    SCOPED_TRACE(testing::Message() << t.bm << "x" << t.bn << " split " << t.split);
    ++split;
    EXPECT_LE(t.split * t.multicast, 8) << "a cluster of at most 8 blocks (the portable size)";
    EXPECT_EQ(t.multicast, 1);
    EXPECT_EQ(t.persistent, 0) << "a cluster a tile";
    EXPECT_EQ(t.bm % t.split, 0) << "each block adds up whole rows";
    EXPECT_LE(t.bm * t.bn * 4, t.stages * (t.bm + t.bn) * 128) << "a block's float sums fit in its stages' buffers";
  }
  EXPECT_GE(split, 5);
}

TEST(MatmulPlan, AStagedTileHoldsEachConsumerWarpsOutputsInSharedMemoryBesideItsStages) {
  int staged = 0, staged_split = 0;
  for (const auto& t : skb_mm::kWgmmaTiles) {
    if (!t.staged) continue;
    ++staged;
    EXPECT_LE(skb_mm::wgmma_smem_bytes(t), kHopperSmem);
    if (t.split > 1) {
      EXPECT_EQ(skb_mm::wgmma_staging_bytes(t), 0) << "a split tile's sums are in its stages' buffers";
      EXPECT_EQ(t.bn % 8, 0) << "a thread's 8 sums are one row's";
      ++staged_split;
    } else {
      EXPECT_EQ(t.bn % skb_mm::kStagedCols, 0) << "whole chunks of columns";
    }
  }
  for (const auto& t : kMmaTiles) EXPECT_EQ(t.staged, 0);
  for (const auto& t : kFmaTiles) EXPECT_EQ(t.staged, 0);
  ASSERT_GT(staged, staged_split);
  const skb_mm::Tile plain{128, 256, 64, 64, 256, 4, 1, 1}, stores{128, 256, 64, 64, 256, 4, 1, 1, 1, 0, 1, 1};
  EXPECT_EQ(skb_mm::wgmma_staging_bytes(plain), 0);
  EXPECT_EQ(skb_mm::wgmma_smem_bytes(stores) - skb_mm::wgmma_smem_bytes(plain), 8 * 16 * (64 + 8) * 2)
      << "8 consumer warps, each 16 rows of 64 columns and 8 of padding";
  const skb_mm::Tile split{64, 64, 64, 64, 64, 8, 1, 1, 2}, split_stores{64, 64, 64, 64, 64, 8, 1, 1, 2, 0, 1, 1};
  EXPECT_EQ(skb_mm::wgmma_smem_bytes(split_stores), skb_mm::wgmma_smem_bytes(split));
  EXPECT_EQ(skb_mm::kStagedPitch * 2 % 16, 0) << "every staged row starts 16-byte aligned";
  EXPECT_EQ(skb_mm::kStagedPad * 2, 16) << "rows 16 bytes apart in banks: conflict-free writes and reads";
}

TEST(MatmulPlan, AStagedWarpWritesEachOutputOnceAndStoresEachRowWholeWithoutBankConflicts) {
  constexpr int kPitch = skb_mm::kStagedPitch, kGroups = skb_mm::kStagedCols / 8;
  // The fragment's pairs fill the warp's 16 x 64 outputs, each once, 4-byte aligned.
  std::vector<int> written(16 * kPitch, 0);
  for (int jj = 0; jj < kGroups; ++jj)
    for (int h = 0; h < 2; ++h) {
      std::vector<int> banks(32, 0);
      for (int lane = 0; lane < 32; ++lane) {
        const int at = skb_mm::staged_pair(lane, jj, h);
        EXPECT_EQ(at, (lane / 4 + 8 * h) * kPitch + jj * 8 + lane % 4 * 2) << "the fragment's row and column";
        ASSERT_EQ(at % 2, 0);
        ++written[at], ++written[at + 1];
        ++banks[at / 2 % 32];
      }
      for (int b : banks) EXPECT_EQ(b, 1) << "one 4-byte write a bank: group " << jj << ", half " << h;
    }
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < kPitch; ++c) EXPECT_EQ(written[r * kPitch + c], c < skb_mm::kStagedCols ? 1 : 0);
  // The reads: 8 lanes a row, 16 bytes each, every row once; 8 lanes at a time (a 16-byte access's
  // phase) cover the 32 banks.
  std::vector<int> read(16 * skb_mm::kStagedCols, 0);
  for (int i = 0; i < 4; ++i)
    for (int phase = 0; phase < 4; ++phase) {
      std::vector<int> banks(32, 0);
      for (int lane = phase * 8; lane < phase * 8 + 8; ++lane) {
        const int r = skb_mm::staged_row(lane, i), c = skb_mm::staged_col(lane);
        ASSERT_LT(r, 16);
        EXPECT_EQ((r * kPitch + c) * 2 % 16, 0) << "a 16-byte read";
        for (int e = 0; e < 8; ++e) ++read[r * skb_mm::kStagedCols + c + e];
        for (int w = 0; w < 4; ++w) ++banks[((r * kPitch + c) / 2 + w) % 32];
      }
      for (int b : banks) EXPECT_EQ(b, 1) << "read " << i << ", lanes " << phase * 8 << "-" << phase * 8 + 7;
    }
  for (int n : read) EXPECT_EQ(n, 1);
}

TEST(MatmulPlan, OnEverySweptShapeTheChoiceIsTheOneTheFitOfTheH200SweepMakes) {
  // The picks cuda_tile_fit.py reports for the H200 sweeps of tests/bench/data (an sm_90a build's,
  // and among mma.sync's tiles alone), which its test holds to the fastest candidate but on
  // float16 and bfloat16 4096³ (wgmma tile 14, 0.6% and 1.2% slower than 17) and on 16 batches
  // of 128 x 128 x 64 (the 64 x 32 wgmma tile, 1.115x mma.sync's 32 x 64), and among
  // mma.sync's to within 16%: the fastest but on 1000 x 520 x 1032 (tile 3 faster),
  // 512 x 1001 x 1024 (7) and 1024³ (3); the example dump's 16 x 32 x 128 takes the one-step
  // 16 x 32 tile on both, 256 x 1024 x 1024 the 64 x 32 wgmma tile.
  struct Swept {
    int64_t batches, m, n, k;
    bool ta, tb;
    int chosen, chosen_sync;
  };
  constexpr auto wg = [](int i) { return skb_mm::kNumMmaTiles + i; };  // choose_mma's index of wgmma tile i
  const Swept swept[] = {{4, 384, 320, 256, true, true, wg(5), 3},
                         {16, 128, 128, 64, false, false, wg(23), 4},
                         {1, 256, 1024, 1024, false, false, wg(23), 4},
                         {1, 1000, 520, 1032, true, false, wg(6), 2},
                         {1, 512, 1001, 1024, false, true, wg(5), 3},
                         {1, 128, 1024, 4096, false, false, wg(7), 6},
                         {1, 4096, 4096, 4096, false, false, wg(14), 0},
                         {1, 1024, 1024, 1024, false, true, wg(6), 2},
                         {1, 16, 32, 128, false, false, 6, 6}};
  for (const auto& s : swept) {
    SCOPED_TRACE(testing::Message() << s.batches << "x" << s.m << "x" << s.n << "x" << s.k);
    const auto p = problem(s.m, s.n, s.k, s.batches);
    EXPECT_EQ(skb_mm::choose_mma(p, 2, s.ta, s.tb, true), s.chosen);
    EXPECT_EQ(skb_mm::choose_mma(p, 2, s.ta, s.tb), s.chosen_sync);
  }
  EXPECT_EQ(skb_mm::choose_fma(problem(512, 512, 512), true), 13);
  EXPECT_EQ(skb_mm::choose_fma(problem(4096, 4096, 4096), true), 0);
}

TEST(MatmulPlan, WgmmaReadsOneMatrixPerBatchOrOneForAll) {
  EXPECT_TRUE(skb_mm::wgmma_readable(1, 16, 128, 64));
  EXPECT_TRUE(skb_mm::wgmma_readable(16, 16, 128, 64));
  EXPECT_FALSE(skb_mm::wgmma_readable(4, 16, 128, 64)) << "a batch broadcast along some axes only";
  EXPECT_FALSE(skb_mm::wgmma_readable(1, 1, int64_t{1} << 31, 64)) << "a coordinate past int32";
}

TEST(MatmulPlan, KnownArchitecturesHaveTheirMultiprocessorsAndSharedMemory) {
  EXPECT_EQ(skb_mm::multiprocessors(90), 132);
  EXPECT_EQ(skb_mm::multiprocessors(80), 108);
  EXPECT_EQ(skb_mm::smem_limit(90), 227 * 1024);
  EXPECT_EQ(skb_mm::smem_limit(80), 163 * 1024);
  EXPECT_EQ(skb_mm::smem_limit(60), 48 * 1024);
}

}  // namespace
