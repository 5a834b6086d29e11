"""The TorchServe handler example (examples/torchserve_handler.py): a checkpoint served with the
snapshot of its own position scores each request's records as the trainer scored the same rows;
a record the feed would reject is null with its reason; a snapshot of another position, or a
body that is no records, is refused by name."""

import json
import os
import shutil
import sys
import tempfile
import types
import unittest
import zlib

import numpy as np
import torch

from piper_feed.train import checkpoint
from piper_feed.feed.records import FeedError
from piper_feed.serve.batches import batch_from_result
from piper_feed.train.loop import Trainer, parse_args
from piper_feed.transform import Snapshot, Spec, Transform

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from torchserve_handler import PiperHandler  # noqa: E402

SPEC = {"name": "t", "version": 2, "input": {"dense": 1, "sparse": 2},
        "columns": {"label": ["decode", "fill_missing"],
                    "I1": ["decode", "fill_missing", "neg2zero", "log"],
                    "C1": ["decode", "fill_missing", "hex2int",
                           {"op": "vocab", "oov_buckets": 2}],
                    "C2": ["decode", "fill_missing", "hex2int", "vocab"]}}
LINES = b"1\t3\tab\tabc\n0\t\tcd\t\n1\t7\tab\tabd\n0\t1\tee\tabc\n"


def write_snapshot(path, positions):
    """A snapshot file (docs/SERVING.md's format) of C1: ab, cd and C2: abc, abd."""
    entries = {"C1": ([2, 3], [0xAB, 0xCD]), "C2": ([0, 1], [0xABC, 0xABD])}
    body = b""
    columns = []
    for name, (indices, keys) in entries.items():
        body += np.array(indices, dtype="<i4").tobytes() + np.array(keys, dtype="<u8").tobytes()
        columns.append({"name": name, "epoch": 0, "oov_buckets": 2 if name == "C1" else 0,
                        "position": positions[name], "entries": 2,
                        "table_size": max(indices) + 1})
    header = {"pipeline": "t/2", "source": "test", "body_bytes": len(body),
              "crc32": zlib.crc32(body), "columns": columns}
    with open(path, "wb") as f:
        f.write(b"piper vocabulary snapshot 1\n" + json.dumps(header).encode() + b"\n" + body)


class HandlerTest(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        with open(os.path.join(self.dir, "spec.json"), "w") as f:
            json.dump(SPEC, f)
        snapshot = os.path.join(self.dir, "vocabulary.snapshot")
        write_snapshot(snapshot, {"C1": 2, "C2": 2})
        # the trainer trains on the rows of LINES at that position, and checkpoints
        result = Transform(Spec(SPEC), Snapshot.load(snapshot)).apply_lines(LINES)
        self.batch = batch_from_result(result)
        self.batch.pipeline = "t/2"
        self.batch.vocab_position = {"C1": (0, 2, 2), "C2": (0, 0, 2)}
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m"])
        self.trainer = Trainer(args)
        for _ in range(3):
            self.trainer.step(self.batch, now_ms=0.0)
        self.model_file = checkpoint.save(os.path.join(self.dir, "models"), self.trainer,
                                          self.batch)
        shutil.copy(self.model_file, self.dir)
        self.context = types.SimpleNamespace(
            system_properties={"model_dir": self.dir},
            manifest={"model": {"serializedFile": os.path.basename(self.model_file)}})

    def test_requests_score_as_the_trainer_scored_their_rows(self):
        handler = PiperHandler()
        handler.initialize(self.context)
        bad = b"1\tx\tab\tabc\n"
        answers = handler.handle([{"body": LINES}, {"data": (bad + LINES).decode()},
                                  {"body": 5}], self.context)
        with torch.no_grad():
            trained = torch.sigmoid(self.trainer.model(self.batch)[0]).tolist()
        self.assertEqual(len(trained), 4)
        torch.testing.assert_close(torch.tensor(answers[0]["probabilities"]),
                                   torch.tensor(trained))
        self.assertEqual(answers[0]["dead_letters"], [])
        # C1 ee: its OOV bucket; C2 missing (0): the reserved index, the table size
        self.assertEqual(answers[0]["unknown_keys"], {"C1": 1, "C2": 1})
        self.assertIsNone(answers[1]["probabilities"][0])
        torch.testing.assert_close(torch.tensor(answers[1]["probabilities"][1:]),
                                   torch.tensor(trained))
        self.assertEqual(answers[1]["dead_letters"],
                         [{"record": 0, "reason": "dense_not_int32",
                           "detail": 'I1: "x" is not a 32-bit integer'}])
        self.assertEqual(answers[2], {"error": "the request has no body of records (one a line)"})

    def test_a_snapshot_of_another_position_is_refused(self):
        write_snapshot(os.path.join(self.dir, "vocabulary.snapshot"), {"C1": 2, "C2": 9})
        with self.assertRaisesRegex(FeedError, "the snapshot holds C2 at epoch 0 position"
                                                    " 9; .* was trained at epoch 0 position 2"):
            PiperHandler().initialize(self.context)


if __name__ == "__main__":
    unittest.main()
