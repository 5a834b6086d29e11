"""Served rows as the feed's batches: an answer of piper serve for the rows of a rows record
becomes the batch that record becomes, and a checkpoint scores both alike."""

import json
import os
import tempfile
import unittest

import torch

from piper_feed.train import checkpoint
from piper_feed.feed.rows import batch_of
from piper_feed.feed.records import FeedError, decode_rows
from piper_feed.serve.batches import batch_from_answer, score
from piper_feed.train.loop import Trainer, parse_args

from test_records import rows_record

# rows_record()'s rows as piper serve answers them (RowsJson): a float32 slot as a number with
# its fraction, the others as integers, the list column per row
ANSWER = json.loads("""
{"records": 2, "columns": ["label", "I1", "I2", "C1"], "float32_columns": ["I1"],
 "rows": [[1, 0.5, 3, 9], [0, 2.0, 4, 8]], "lists": {"C2": [[5, 6], []]},
 "dead_letters": [], "unknown_keys": {}}
""")


class ServingTest(unittest.TestCase):

    def test_an_answer_is_the_batch_its_rows_record_is(self):
        fed = batch_of(decode_rows(rows_record()), {("C1", 0): 10, ("C2", 1): 7})
        served = batch_from_answer(ANSWER)
        torch.testing.assert_close(served.labels, fed.labels)
        torch.testing.assert_close(served.dense, fed.dense)
        torch.testing.assert_close(served.sparse, fed.sparse)
        self.assertEqual(served.sparse_names, fed.sparse_names)
        self.assertEqual(served.dense_names, fed.dense_names)
        for name in fed.lists:
            torch.testing.assert_close(served.lists[name][0], fed.lists[name][0])
            torch.testing.assert_close(served.lists[name][1], fed.lists[name][1])

    def test_a_checkpoint_scores_served_rows_as_it_scored_the_feeds(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m"])
        trainer = Trainer(args)
        fed = batch_of(decode_rows(rows_record()), {("C1", 0): 10, ("C2", 1): 7},
                       vocab_position={"C1": (0, 0, 10), "C2": (1, 0, 7)})
        for _ in range(2):
            trainer.step(fed, now_ms=0.0)
        with tempfile.TemporaryDirectory() as d:
            model, state = checkpoint.load(checkpoint.save(d, trainer, fed))
        served = batch_from_answer(ANSWER, state)
        self.assertEqual(served.epochs, {"C1": 0, "C2": 1})
        self.assertEqual(served.pipeline, "p/1")
        with torch.no_grad():
            trained = torch.sigmoid(trainer.model(fed)[0])
        torch.testing.assert_close(score(model, served), trained)

    def test_a_checkpoint_trained_with_a_weight_column_scores_without_it(self):
        # I2 of rows_record() stands for the join's labels.weight: no input of the model
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--weight-column", "I2"])
        trainer = Trainer(args)
        fed = batch_of(decode_rows(rows_record()), {("C1", 0): 10, ("C2", 1): 7},
                       vocab_position={"C1": (0, 0, 10), "C2": (1, 0, 7)})
        for _ in range(2):
            trainer.step(fed, now_ms=0.0)
        self.assertEqual(trainer.shape[0], 1)
        with tempfile.TemporaryDirectory() as d:
            model, state = checkpoint.load(checkpoint.save(d, trainer, fed))
        self.assertEqual(state["weight_column"], "I2")
        served = batch_from_answer(ANSWER, state)  # I2 served as well
        with torch.no_grad():
            trained = torch.sigmoid(trainer.model(fed.without_dense("I2"))[0])
        torch.testing.assert_close(score(model, served), trained)

    def test_an_answer_without_its_columns_or_of_another_width_is_refused(self):
        with self.assertRaisesRegex(FeedError, 'answer: no "columns"'):
            batch_from_answer({"rows": [[1, 2]]})
        bad = dict(ANSWER, rows=[[1, 0.5, 3]])
        with self.assertRaisesRegex(FeedError, "answer: row 0 has 3 values for 4 columns"):
            batch_from_answer(bad)

    def test_input_records_become_the_body_piper_serve_takes(self):
        from piper_feed.serve.check import body_of
        self.assertEqual(body_of([b"1\t2", b"3\t4\n", b""], True), b"1\t2\n3\t4\n\n")
        self.assertEqual(body_of([b"\x02ab", b""], False),
                         b"\x00\x00\x00\x03\x02ab\x00\x00\x00\x00")


if __name__ == "__main__":
    unittest.main()
