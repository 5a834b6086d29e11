"""Weights of sampled negatives: He et al.'s recalibration, the weighted calibration measure, a
batch's weight column, and a trainer that learns the population's click rate from them."""

import math
import unittest

import numpy as np
import torch

from piper_feed.feed.records import FeedError
from piper_feed.feed.rows import Batch
from piper_feed.train.calibration import calibration, recalibrate
from piper_feed.train.loop import Trainer, parse_args


def weighted_batch(labels, dense, weights):
    """A batch of one constant sparse column, dense slots I1.. and the weights as the last one."""
    rows = len(labels)
    dense = np.column_stack([dense, weights]).astype(np.float32)
    return Batch(labels=torch.tensor(labels, dtype=torch.float32), dense=torch.from_numpy(dense),
                 sparse=torch.zeros(rows, 1, dtype=torch.int64), sparse_names=["C1"], lists={},
                 epochs={"C1": 0}, table_sizes={("C1", 0): 1}, timestamps_ms=None,
                 source=("in", 0, 0), pipeline="p",
                 dense_names=[f"I{i + 1}" for i in range(dense.shape[1])])


def sampled(n, ctr, rate, seed):
    """``n`` rows of a population with click rate ``ctr`` (one dense feature, pure noise), the
    negatives kept at ``rate``: (labels, dense, weights) of the kept rows."""
    rnd = np.random.default_rng(seed)
    labels = (rnd.random(n) < ctr).astype(np.float32)
    kept = (labels == 1) | (rnd.random(n) < rate)
    weights = np.where(labels == 1, 1.0, 1.0 / rate)
    return labels[kept], rnd.normal(size=(n, 1))[kept], weights[kept]


class RecalibrateTest(unittest.TestCase):

    def test_the_sampled_rate_recalibrates_to_the_populations(self):
        for ctr in (0.01, 0.2, 0.6):
            for rate in (1.0, 0.5, 0.25, 0.1):
                # negatives kept at `rate`: the sampled rows' rate of positives
                p = ctr / (ctr + (1 - ctr) * rate)
                self.assertAlmostEqual(recalibrate(p, rate), ctr, places=12)

    def test_it_takes_arrays_and_tensors_and_refuses_a_rate_outside_0_1(self):
        np.testing.assert_allclose(recalibrate(np.array([0.5, 0.8]), 0.25), [0.2, 0.5])
        torch.testing.assert_close(recalibrate(torch.tensor([0.5]), torch.tensor([0.25])),
                                   torch.tensor([0.2]))
        with self.assertRaisesRegex(ValueError, r"in \(0, 1\], not 4"):
            recalibrate(0.3, 4)
        with self.assertRaisesRegex(ValueError, r"in \(0, 1\], not 0.0"):
            recalibrate(np.array([0.3]), np.array([0.0]))


class CalibrationTest(unittest.TestCase):

    def test_each_row_counts_its_weight(self):
        # one positive (weight 1) and one kept negative standing for 4: a population CTR of 1/5
        c = calibration([0.3, 0.1], [1, 0], [1, 4])
        self.assertAlmostEqual(c["observed_ctr"], 0.2)
        self.assertAlmostEqual(c["mean_predicted_ctr"], (0.3 + 0.4) / 5)
        self.assertAlmostEqual(c["calibration"], 0.7)
        self.assertAlmostEqual(calibration([0.3, 0.1], [1, 0])["observed_ctr"], 0.5)

    def test_without_rows_or_positives_it_is_nan(self):
        self.assertTrue(math.isnan(calibration([], [])["calibration"]))
        self.assertTrue(math.isnan(calibration([0.2], [0])["calibration"]))
        with self.assertRaisesRegex(ValueError, "2 probabilities, 2 labels and 1 weights"):
            calibration([0.1, 0.2], [0, 1], [1])


class WeightColumnTest(unittest.TestCase):

    def test_a_batch_gives_its_weights_and_drops_the_column(self):
        b = weighted_batch([1, 0], [[0.5], [1.5]], [1, 4])
        torch.testing.assert_close(b.weights("I2"), torch.tensor([1.0, 4.0]))
        rest = b.without_dense("I2")
        self.assertEqual(rest.dense_names, ["I1"])
        torch.testing.assert_close(rest.dense, torch.tensor([[0.5], [1.5]]))

    def test_a_missing_or_unweighted_column_is_named(self):
        b = weighted_batch([1, 0], [[0.5], [1.5]], [1, 0])
        with self.assertRaisesRegex(FeedError, "no dense column I7.*I1, I2.*labels.weight"):
            b.weights("I7")
        with self.assertRaisesRegex(FeedError, "weight column I2 holds 0"):
            b.weights("I2")
        with self.assertRaisesRegex(FeedError, "no dense column I7"):
            b.without_dense("I7")

    def test_the_weight_is_no_feature_and_weighs_the_loss(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--weight-column", "I2", "--window-rows", "2",
                           "--calibration-after-rows", "0"])
        trainer = Trainer(args)
        trainer.step(weighted_batch([1, 0], [[0.5], [1.5]], [1, 4]), now_ms=0.0)
        self.assertEqual(trainer.shape, (1, ["C1"]))  # one dense slot: I1
        w = trainer.windows[0]
        self.assertAlmostEqual(w["observed_ctr"], 0.2)
        self.assertEqual(trainer.calibration()["observed_ctr"], 0.2)

    def test_the_run_calibration_leaves_out_its_first_rows(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--weight-column", "I2", "--calibration-after-rows", "3"])
        trainer = Trainer(args)
        trainer.step(weighted_batch([1, 1], [[0.0], [0.0]], [1, 1]), now_ms=0.0)
        self.assertTrue(math.isnan(trainer.calibration()["calibration"]))
        # of these, the first is the third row of the run: left out
        trainer.step(weighted_batch([1, 0, 0], [[0.0]] * 3, [1, 4, 4]), now_ms=0.0)
        self.assertAlmostEqual(trainer.calibration()["observed_ctr"], 0.0)
        self.assertEqual(trainer.calibrated[0], 8.0)

    def test_weighted_rows_teach_the_populations_rate_and_unweighted_the_samples(self):
        labels, dense, weights = sampled(60_000, ctr=0.2, rate=0.25, seed=3)
        predicted = {}
        for column in ("I2", None):
            argv = ["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                    "--lr", "0.01", "--calibration-after-rows", "20000"]
            trainer = Trainer(parse_args(argv + (["--weight-column", column] if column else [])))
            for start in range(0, len(labels), 512):
                end = start + 512
                b = weighted_batch(labels[start:end], dense[start:end], weights[start:end])
                trainer.step(b if column else b.without_dense("I2"), now_ms=0.0)
            predicted[column] = trainer
        # the weighted model predicts the population's 0.2, calibrated within 5%
        c = predicted["I2"].calibration()
        self.assertAlmostEqual(c["observed_ctr"], 0.2, delta=0.01)
        self.assertAlmostEqual(c["calibration"], 1.0, delta=0.05)
        # the unweighted one the sampled rows' 0.2 / (0.2 + 0.8 * 0.25) = 0.5, which He et al.'s
        # correction brings back to the population's
        u = predicted[None].calibration()
        self.assertAlmostEqual(u["mean_predicted_ctr"], 0.5, delta=0.03)
        self.assertAlmostEqual(recalibrate(u["mean_predicted_ctr"], 0.25), 0.2, delta=0.02)


if __name__ == "__main__":
    unittest.main()
