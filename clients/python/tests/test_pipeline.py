"""The input pipeline: prefetching, errors and stops, the batch's views for torch."""

import threading
import unittest

import numpy as np
import torch
from torch import nn

from piper_feed.feed.rows import Batch
from piper_feed.feed.prefetch import Prefetcher, RowsDataset
from piper_feed.feed.records import FeedError


def batch(number, rows=3):
    """A batch of ``rows`` rows: scalar columns C1 and C3, list column C2 (row r has r ids)."""
    rng = np.random.default_rng(number)
    lengths = np.arange(rows, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = rng.integers(0, 50, int(offsets[-1])).astype(np.int64)
    return Batch(
        labels=torch.full((rows,), float(number)),
        dense=torch.from_numpy(rng.random((rows, 2)).astype(np.float32)),
        sparse=torch.from_numpy(rng.integers(0, 20, (rows, 2)).astype(np.int64)),
        sparse_names=["C1", "C3"],
        lists={"C2": (torch.from_numpy(values), torch.from_numpy(offsets))},
        epochs={"C1": 0, "C2": 0, "C3": 1},
        table_sizes={("C1", 0): 20, ("C2", 0): 50, ("C3", 0): 7, ("C3", 1): 20},
        timestamps_ms=None, source=("in", 0, number), pipeline="p",
        bucketized={"I2": 4}, dense_names=["I1", "I2"])


class FailingSource:
    """Yields ``good`` batches, then raises as a feed does on a gap."""

    def __init__(self, good):
        self.good = good

    def __iter__(self):
        for i in range(self.good):
            yield batch(i)
        raise FeedError("rows topic rows partition 0: block(s) 7 never arrived")


class EndlessSource:
    """Yields batches until closed, counting them; ``close`` is what Prefetcher calls."""

    def __init__(self):
        self.made = 0
        self.closed = False

    def __iter__(self):
        while not self.closed:
            self.made += 1
            yield batch(self.made)

    def close(self):
        self.closed = True


class PrefetcherTest(unittest.TestCase):

    def test_every_batch_arrives_in_order_from_another_thread(self):
        seen_threads = set()

        def source():
            for i in range(50):
                seen_threads.add(threading.current_thread().name)
                yield batch(i)

        with Prefetcher(source(), depth=3) as batches:
            labels = [int(b.labels[0]) for b in batches]
        self.assertEqual(labels, list(range(50)))
        self.assertEqual(seen_threads, {"piper-feed-prefetch"})
        self.assertEqual(batches.batches, 50)
        self.assertGreaterEqual(batches.wait_s, 0.0)

    def test_an_error_of_the_source_is_raised_in_the_loop_after_the_good_batches(self):
        got = []
        with self.assertRaises(FeedError) as e:
            for b in Prefetcher(FailingSource(4), depth=2):
                got.append(int(b.labels[0]))
        self.assertEqual(got, [0, 1, 2, 3])
        self.assertIn("block(s) 7 never arrived", str(e.exception))

    def test_closing_stops_the_thread_and_the_source_even_with_a_full_queue(self):
        source = EndlessSource()
        p = Prefetcher(source, depth=2)
        first = next(iter(p))
        self.assertEqual(int(first.labels[0]), 1)
        p.close()
        self.assertFalse(p._thread.is_alive())
        self.assertTrue(source.closed)
        made = source.made
        self.assertLessEqual(made, 1 + 2 + 2)  # taken, queued, one blocked on the full queue
        self.assertRaises(StopIteration, next, p)

    def test_a_device_moves_each_batch_and_pinning_needs_cuda(self):
        with Prefetcher(iter([batch(1)]), device="cpu") as batches:
            b = next(batches)
        self.assertEqual(b.dense.device.type, "cpu")
        if not torch.cuda.is_available():
            with self.assertRaises(ValueError) as e:
                Prefetcher(iter([]), pin_memory=True)
            self.assertIn("pin_memory needs a CUDA device", str(e.exception))
        self.assertRaises(ValueError, Prefetcher, iter([]), 0)


class BatchViewsTest(unittest.TestCase):

    def test_bags_are_what_embedding_bag_takes_by_default(self):
        b = batch(2, rows=4)
        values, offsets = b.lists["C2"]
        bag = nn.EmbeddingBag(50, 3, mode="sum")
        by_default = bag(*b.bags("C2"))
        self.assertEqual(by_default.shape, (4, 3))
        closed = nn.EmbeddingBag.from_pretrained(bag.weight, mode="sum",
                                                 include_last_offset=True)
        self.assertTrue(torch.equal(closed(values, offsets), by_default))

    def test_keyed_jagged_lays_out_every_sparse_column_key_major(self):
        b = batch(3, rows=4)
        kj = b.keyed_jagged()
        self.assertEqual(kj.keys, ["C1", "C2", "C3"])
        self.assertEqual(len(kj.lengths), 3 * 4)
        self.assertEqual(kj.lengths[:4].tolist(), [1, 1, 1, 1])
        self.assertEqual(kj.lengths[4:8].tolist(), [0, 1, 2, 3])
        self.assertEqual(int(kj.offsets[-1]), len(kj.values))
        self.assertTrue(torch.equal(kj.values[:4], b.sparse[:, 0]))
        values, offsets = kj.column("C2", 4)
        self.assertTrue(torch.equal(values, b.lists["C2"][0]))
        self.assertTrue(torch.equal(offsets, b.lists["C2"][1]))
        c3, _ = kj.column("C3", 4)
        self.assertTrue(torch.equal(c3, b.sparse[:, 1]))

    def test_tables_give_each_columns_size_at_its_epoch_and_bucketized_ones_theirs(self):
        self.assertEqual(batch(1).tables(), {"C1": 20, "C2": 50, "C3": 20, "I2": 4})

    def test_a_bucketized_columns_ids_come_from_its_dense_slot(self):
        b = batch(2)
        b.dense[:, 1] = torch.tensor([0.0, 3.0, 1.0])
        ids = b.bucket_ids("I2")
        self.assertEqual(ids.dtype, torch.int64)
        self.assertEqual(ids.tolist(), [0, 3, 1])
        with self.assertRaises(FeedError) as e:
            b.bucket_ids("I1")
        self.assertIn("I1 is not a bucketized column (those of this batch: I2)", str(e.exception))

    def test_to_moves_every_tensor_and_keeps_the_rows(self):
        b = batch(4, rows=5)
        moved = b.to("cpu")
        self.assertEqual(moved.rows, 5)
        self.assertTrue(torch.equal(moved.lists["C2"][1], b.lists["C2"][1]))


class RowsDatasetTest(unittest.TestCase):

    def test_each_dataloader_worker_reads_its_own_share(self):
        d = RowsDataset("127.0.0.1:1", "rows", rank=1, world=2)
        self.assertEqual(d.share(), (1, 2))

        class Info:
            num_workers, id = 3, 2

        original = torch.utils.data.get_worker_info
        torch.utils.data.get_worker_info = lambda: Info
        try:
            self.assertEqual(d.share(), (5, 6))  # worker 2 of 3 within rank 1 of 2
        finally:
            torch.utils.data.get_worker_info = original
        self.assertRaises(ValueError, RowsDataset, "127.0.0.1:1", "rows", rank=2, world=2)


if __name__ == "__main__":
    unittest.main()
