"""The trainer's embedding store: Adagrad as PyTorch's, tables that grow and rows that restart."""

import dataclasses
import json
import os
import tempfile
import unittest

import numpy as np
import torch
from torch import nn

from piper_feed.train import checkpoint
from piper_feed.feed.rows import Batch
from piper_feed.feed.records import FeedError
from piper_feed.train.loop import Trainer, parse_args
from piper_feed.train.model import Dlrm, EmbeddingStore


def reference_step(weight, optimizer, ids, grads):
    """PyTorch's own formulation: a sparse gradient (one row per use) and torch.optim.Adagrad."""
    optimizer.zero_grad()
    weight.grad = torch.sparse_coo_tensor(ids.unsqueeze(0), grads, weight.shape)
    optimizer.step()


class EmbeddingStoreTest(unittest.TestCase):

    def test_adagrad_is_pytorchs_adagrad_with_repeated_rows(self):
        torch.manual_seed(3)
        store = EmbeddingStore(4)
        store.ensure(("C1", 0), 5)
        store.ensure(("C2", 0), 7)
        weight = nn.Parameter(store.weight.clone())
        optimizer = torch.optim.Adagrad([weight], lr=0.05)
        generator = torch.Generator().manual_seed(4)
        for _ in range(3):
            # rows of both tables, some used several times in one step
            ids = torch.tensor([0, 2, 2, 5, 9, 9, 9, 0])
            grads = torch.randn(len(ids), 4, generator=generator)
            store.adagrad(ids, grads, 0.05)
            reference_step(weight, optimizer, ids, grads)
        torch.testing.assert_close(store.weight, weight.data)
        torch.testing.assert_close(store.accumulated, optimizer.state[weight]["sum"])
        # rows no step used kept their first values and no sum
        self.assertEqual(store.accumulated[[1, 3, 4, 6]].abs().sum().item(), 0.0)

    def test_a_table_that_grows_keeps_its_rows_and_sums_and_its_neighbours(self):
        torch.manual_seed(5)
        store = EmbeddingStore(2)
        store.ensure(("C1", 0), 3)
        store.ensure(("C2", 0), 64)
        store.adagrad(torch.tensor([1, 65]), torch.ones(2, 2), 0.1)
        c1 = store.weight[0:3].clone()
        c1_sums = store.accumulated[0:3].clone()
        c2 = store.weight[64:128].clone()
        store.ensure(("C1", 0), 100)  # past its capacity (64): it moves, with room for 128
        start = store.start(("C1", 0))
        self.assertEqual(start, 128)
        torch.testing.assert_close(store.weight[start: start + 3], c1)
        torch.testing.assert_close(store.accumulated[start: start + 3], c1_sums)
        new = store.weight[start + 3: start + 128]
        self.assertTrue(bool((new.abs() <= 0.05).all()))
        self.assertEqual(store.accumulated[start + 3: start + 128].abs().sum().item(), 0.0)
        torch.testing.assert_close(store.weight[store.start(("C2", 0)):][:64], c2)
        store.ensure(("C1", 0), 90)  # fewer than it holds: nothing moves
        self.assertEqual(store.start(("C1", 0)), 128)

    def test_reused_rows_restart_with_no_sum(self):
        torch.manual_seed(6)
        store = EmbeddingStore(2)
        store.ensure(("C1", 1), 4)
        store.adagrad(torch.tensor([0, 1, 2]), torch.ones(3, 2), 1.0)
        kept = store.weight[[0, 2]].clone()
        store.reinitialise(("C1", 1), torch.tensor([1]))
        self.assertEqual(store.accumulated[1].abs().sum().item(), 0.0)
        self.assertEqual(store.accumulated[0].tolist(), [1.0, 1.0])
        torch.testing.assert_close(store.weight[[0, 2]], kept)
        self.assertTrue(bool((store.weight[1].abs() <= 0.05).all()))


class DlrmTest(unittest.TestCase):

    def batch(self):
        # C1: one id per row; C2: a list (row 0: [0, 2], row 1: [], row 2: [1])
        return Batch(labels=torch.tensor([0.0, 1.0, 1.0]), dense=torch.zeros(3, 1),
                     sparse=torch.tensor([[1], [0], [1]]), sparse_names=["C1"],
                     lists={"C2": (torch.tensor([0, 2, 1]), torch.tensor([0, 2, 2, 3]))},
                     epochs={"C1": 0, "C2": 0}, table_sizes={("C1", 0): 2, ("C2", 0): 3},
                     timestamps_ms=None, source=("in", 0, 0), pipeline="p")

    def test_a_list_columns_rows_are_summed_per_row(self):
        torch.manual_seed(7)
        model = Dlrm(1, ["C1", "C2"], dim=2)
        model.store.ensure(("C1", 0), 2)
        model.store.ensure(("C2", 0), 3)
        _, lookup = model(self.batch())
        c2 = model.store.start(("C2", 0))
        self.assertEqual(lookup.ids.tolist(), [1, 0, 1, c2, c2 + 2, c2 + 1])
        # the second part of the top MLP's input is C1's rows, the third C2's sums
        inputs = []
        model.top.register_forward_hook(lambda m, i, o: inputs.append(i[0]))
        model(self.batch())
        table = model.store.weight
        torch.testing.assert_close(inputs[0][:, 2:4], table[[1, 0, 1]])
        torch.testing.assert_close(inputs[0][:, 4:6], torch.stack(
            [table[c2] + table[c2 + 2], torch.zeros(2), table[c2 + 1]]))

    def test_an_index_past_its_table_is_refused_naming_the_column(self):
        model = Dlrm(1, ["C1", "C2"], dim=2)
        model.store.ensure(("C1", 0), 1)  # C1 holds 1 row; the batch uses index 1
        model.store.ensure(("C2", 0), 3)
        with self.assertRaisesRegex(IndexError, r"C1 \(epoch 0\): index 1 past its table of 1"):
            model(self.batch())

    def test_a_trainer_step_moves_the_rows_it_used_only(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m"])
        trainer = Trainer(args)
        trainer.step(self.batch(), now_ms=0.0)
        store = trainer.model.store
        before = store.weight.clone()
        trainer.step(self.batch(), now_ms=0.0)
        moved = (store.weight != before).any(dim=1)
        c2 = store.start(("C2", 0))
        used = {0, 1, c2, c2 + 1, c2 + 2}
        self.assertEqual({i for i in range(store.used) if moved[i]}, used)
        self.assertEqual(trainer.rows, 6)


class CheckpointTest(unittest.TestCase):

    def test_a_checkpoint_scores_as_the_trainer_did_and_names_its_position(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m"])
        trainer = Trainer(args)
        batch = DlrmTest().batch()
        positioned = dataclasses.replace(batch, vocab_position={"C1": (0, 0, 2), "C2": (1, 4, 9)})
        for _ in range(3):
            trainer.step(positioned, now_ms=0.0)
        with tempfile.TemporaryDirectory() as d:
            path = checkpoint.save(d, trainer, positioned)
            self.assertEqual(path, os.path.join(d, "checkpoint-000000000009.pt"))
            self.assertEqual(sorted(os.listdir(d)), ["checkpoint-000000000009.position.json",
                                                     "checkpoint-000000000009.pt"])
            with open(os.path.join(d, "checkpoint-000000000009.position.json")) as f:
                position = json.load(f)
            self.assertEqual(position["format"], "piper-vocab-position")
            self.assertEqual(position["version"], 1)
            self.assertEqual(position["pipeline"], "p")
            self.assertEqual(position["columns"], {
                "C1": {"epoch": 0, "oov_buckets": 0, "position": 2},
                "C2": {"epoch": 1, "oov_buckets": 4, "position": 9}})
            model, state = checkpoint.load(path)
            self.assertEqual(state["rows"], 9)
            with torch.no_grad():
                torch.testing.assert_close(model(batch)[0], trainer.model(batch)[0])

    def test_a_batch_without_a_position_is_not_checkpointed(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m"])
        trainer = Trainer(args)
        batch = DlrmTest().batch()
        trainer.step(batch, now_ms=0.0)
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(FeedError, "states no vocabulary position: run the stream"
                                                   " with --vocab-topic"):
                checkpoint.save(d, trainer, batch)
            self.assertEqual(os.listdir(d), [])


if __name__ == "__main__":
    unittest.main()
