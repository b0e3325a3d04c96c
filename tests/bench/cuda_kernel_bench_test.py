#!/usr/bin/env python3
"""cuda_kernel_bench.py's arithmetic on the CPU (no GPU, no torch): per-launch medians and paired
ratios from per-sample times, the dependent launch's columns and summary line where it was timed
and none where it was not, the order of each rep's samples, and the environment setting the
dependent launch's kernels are found under, restored after."""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_kernel_bench as ckb  # noqa: E402


class Figures(unittest.TestCase):
    def test_medians_per_launch_and_paired_ratios(self):
        # 3 reps of 10 launches: ms per sample -> µs per launch.
        f = ckb.figures([0.05, 0.06, 0.07], [0.10, 0.10, 0.35], [0.04, 0.05, 0.14], 10)
        self.assertAlmostEqual(f["static_us"], 6.0)
        self.assertAlmostEqual(f["dynamic_us"], 10.0)
        self.assertAlmostEqual(f["cublas_us"], 5.0)
        # Paired: the median of 0.5, 0.6 and 0.2, not 6 / 10.
        self.assertAlmostEqual(f["ratio"], 0.5)
        # 1.25, 1.2 and 0.5.
        self.assertAlmostEqual(f["static_over_cublas"], 1.2)
        self.assertIsNone(f["dependent_us"])
        self.assertIsNone(f["dependent_over_static"])
        self.assertIsNone(f["dependent_over_cublas"])

    def test_the_dependent_launch_against_the_plain_one_and_cublas(self):
        f = ckb.figures([0.05, 0.06, 0.08], [0.1, 0.1, 0.1], [0.04, 0.05, 0.04], 10, [0.045, 0.03, 0.08])
        self.assertAlmostEqual(f["dependent_us"], 4.5)
        # 0.9, 0.5 and 1.0.
        self.assertAlmostEqual(f["dependent_over_static"], 0.9)
        # 1.125, 0.6 and 2.0.
        self.assertAlmostEqual(f["dependent_over_cublas"], 1.125)

    def test_without_cublas_the_dependent_launch_has_no_ratio_to_it(self):
        f = ckb.figures([0.05], [0.1], None, 10, [0.04])
        self.assertAlmostEqual(f["dependent_over_static"], 0.8)
        self.assertIsNone(f["dependent_over_cublas"])


class Report(unittest.TestCase):
    def row(self, label, dependent_ms=None, check="ok"):
        f = ckb.figures([0.05], [0.1], [0.04], 10, dependent_ms)
        f.update(label=label, check=check)
        return f

    def test_the_table_has_the_dependent_columns_only_where_one_was_timed(self):
        plain = ckb.table([self.row("MatMulV2_a")])
        self.assertNotIn("dependent", plain[0])
        self.assertEqual(len(plain), 2)
        both = ckb.table([self.row("MatMulV2_a", [0.04]), self.row("Add_b")])
        self.assertIn("dependent/static", both[0])
        self.assertIn("0.800", both[1])  # 4.0 µs over 5.0
        self.assertTrue(both[1].endswith("  ok"))
        # A call timed without it keeps its place in the columns, empty.
        self.assertEqual(len(both[2]), len(both[1]))

    def test_the_summary_counts_the_calls_a_dependent_launch_made_faster_and_slower(self):
        rows = [self.row("a", [0.04]), self.row("b", [0.06]), self.row("c", [0.045]), self.row("d")]
        lines, ok = ckb.summary(rows, [])
        self.assertTrue(ok)
        line = next(l for l in lines if l.startswith("dependent launch"))
        self.assertIn("faster on 2 of 3 calls, slower on 1", line)
        # The geometric mean of 0.8, 1.2 and 0.9.
        self.assertIn("dependent/static %.3f" % (0.8 * 1.2 * 0.9) ** (1 / 3), line)
        lines, _ = ckb.summary([self.row("d")], [])
        self.assertFalse(any(l.startswith("dependent launch") for l in lines))

    def test_a_mismatch_or_a_call_left_untimed_fails_the_run(self):
        self.assertFalse(ckb.summary([self.row("a", [0.04], check="dependent differs: 1 > 0.001")], [])[1])
        self.assertFalse(ckb.summary([self.row("a")], [("b", "run: status 5")])[1])


class Samples(unittest.TestCase):
    def test_each_of_skbs_kernels_goes_first_in_turn_and_cublas_last(self):
        v = {"static": 0, "dynamic": 0, "cublas": 0, "dependent": 0}
        self.assertEqual(ckb.rotation(0, v), ["static", "dynamic", "dependent", "cublas"])
        self.assertEqual(ckb.rotation(1, v), ["dynamic", "dependent", "static", "cublas"])
        self.assertEqual(ckb.rotation(2, v), ["dependent", "static", "dynamic", "cublas"])
        self.assertEqual(ckb.rotation(3, v), ckb.rotation(0, v))

    def test_without_the_dependent_launch_static_and_dynamic_alternate(self):
        v = {"static": 0, "dynamic": 0}
        self.assertEqual(ckb.rotation(0, v), ["static", "dynamic"])
        self.assertEqual(ckb.rotation(1, v), ["dynamic", "static"])


class Setting(unittest.TestCase):
    NAME = "SKB_CUDA_DEPENDENT_LAUNCH"

    def setUp(self):
        self.addCleanup(os.environ.pop, self.NAME, None)

    def test_it_is_set_inside_and_restored_after(self):
        os.environ[self.NAME] = "on"
        with ckb.dependent_setting(False):
            self.assertEqual(os.environ[self.NAME], "off")
        self.assertEqual(os.environ[self.NAME], "on")
        os.environ.pop(self.NAME)
        with ckb.dependent_setting(True):
            self.assertEqual(os.environ[self.NAME], "on")
        self.assertNotIn(self.NAME, os.environ)

    def test_it_is_restored_when_the_block_raises(self):
        with self.assertRaises(RuntimeError):
            with ckb.dependent_setting(True):
                raise RuntimeError("find failed")
        self.assertNotIn(self.NAME, os.environ)


if __name__ == "__main__":
    unittest.main()
