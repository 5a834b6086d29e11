"""Decoding of rows and vocabulary records, on records built here as the stream writes them."""

import struct
import unittest

import numpy as np
from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_NOT_AVAILABLE

from piper_feed.feed.records import (AssignmentRecord, FeedError, ROWS_FORMAT, check_headers,
                                decode_rows, decode_vocab, headers_of)
from piper_feed.train.loop import Trainer, auc, json_safe, parse_args, progress, split
from piper_feed.feed.rows import Batch, _sent_ms

import torch


class Message:
    """The part of confluent_kafka.Message the decoders read."""

    def __init__(self, value, headers, topic="rows", partition=0, offset=7,
                 timestamp=(TIMESTAMP_CREATE_TIME, 1234)):
        self._value, self._headers = value, [(k, v.encode("ascii")) for k, v in headers.items()]
        self._topic, self._partition, self._offset = topic, partition, offset
        self._timestamp = timestamp

    def timestamp(self):
        return self._timestamp

    def value(self):
        return self._value

    def headers(self):
        return self._headers

    def topic(self):
        return self._topic

    def partition(self):
        return self._partition

    def offset(self):
        return self._offset


def rows_record():
    """Two rows of label, I1 (float32), I2, C1, with list column C2: [5, 6] and []."""
    ints = [1, struct.unpack("<i", struct.pack("<f", 0.5))[0], 3, 9,
            0, struct.unpack("<i", struct.pack("<f", 2.0))[0], 4, 8,
            2, 0,  # C2's lengths
            5, 6]  # C2's values
    headers = {"piper.format": "piper-dlrm-criteo", "piper.format.version": "1",
               "piper.pipeline": "p/1", "piper.lines": "2", "piper.dead.letters": "0",
               "piper.record.version": "2", "piper.rows": "2",
               "piper.row.columns": "label,I1,I2,C1", "piper.float32.columns": "I1",
               "piper.list.columns": "C2", "piper.list.values": "2",
               "piper.epochs": "0,1", "piper.input.topic": "in", "piper.input.partition": "3",
               "piper.block": "12", "piper.input.timestamps": "1000-1010"}
    return Message(struct.pack("<%di" % len(ints), *ints), headers)


class RecordsTest(unittest.TestCase):

    def test_rows_with_floats_and_lists(self):
        b = decode_rows(rows_record())
        self.assertEqual(b.rows, 2)
        self.assertEqual(b.labels.tolist(), [1, 0])
        self.assertEqual(b.dense.tolist(), [[0.5, 3.0], [2.0, 4.0]])
        self.assertEqual(b.sparse.tolist(), [[9], [8]])
        values, offsets = b.lists["C2"]
        self.assertEqual(values.tolist(), [5, 6])
        self.assertEqual(offsets.tolist(), [0, 2, 2])
        self.assertEqual(b.epochs, {"C1": 0, "C2": 1})
        self.assertEqual((b.input_partition, b.block), (3, 12))
        self.assertEqual(b.row_timestamps_ms().tolist(), [1000.0, 1010.0])
        self.assertEqual(b.max_indices(), {"C1": 9, "C2": 6})

    def test_a_value_shorter_than_its_headers_say_is_refused(self):
        m = rows_record()
        m._value = m._value[:-4]
        with self.assertRaisesRegex(FeedError, r"rows/0@7: 2 rows of 4 slots"):
            decode_rows(m)

    def test_a_negative_index_is_refused_naming_record_column_and_row(self):
        m = rows_record()
        ints = list(struct.unpack("<12i", m._value))
        ints[7] = -5  # C1 of row 1
        m._value = struct.pack("<12i", *ints)
        with self.assertRaisesRegex(FeedError, r"rows/0@7: column C1, row 1 of block 12 of in/3:"
                                               r" vocabulary index -5 is negative"):
            decode_rows(m)
        ints[7], ints[11] = 8, -1  # C2's second list value
        m._value = struct.pack("<12i", *ints)
        with self.assertRaisesRegex(FeedError, r"column C2, list value 1 of block 12"):
            decode_rows(m)

    def test_input_offsets_are_read(self):
        m = rows_record()
        m._headers.append(("piper.input.offsets", b"100-149"))
        self.assertEqual(decode_rows(m).input_offsets, (100, 149))

    def test_every_described_header_is_checked_as_the_java_reader_checks_it(self):
        """formats/rows-record.json drives the checks: for each described header, a record
        without it (where it is always there), with it alone of its group, or with a value not
        of its type is refused naming it (RowsRecordFormatTest does the same in Java)."""
        self.assertIn("piper.input.offsets", ROWS_FORMAT)
        full = timed_record()
        full._headers += [("piper.input.offsets", b"10-12"), ("piper.pipeline.params", b"a=1"),
                          ("piper.oov.buckets", b"0,2"), ("piper.assignments", b"5,0"),
                          ("piper.block.assignments", b"1,0"), ("piper.evict", b"lfu,"),
                          ("piper.bucketized.columns", b"I2"), ("piper.bucketized.buckets", b"5"),
                          ("piper.vocab.position", b"6,3"), ("piper.checkpoint", b"7")]
        self.assertEqual(set(headers_of(full)), set(ROWS_FORMAT))
        self.assertEqual(decode_rows(full).vocab_position, {"C1": 6, "C2": 3})
        bad = {"text": [""], "count": ["-1", "x", "2147483648"],
               "number": ["-1", "1.5", "9223372036854775808"], "choices": ["lfu", "lru,"],
               "names": ["", "label,,C1", "1x", "a,a"], "range": ["5", "5-3", "a-b"]}
        for name, d in ROWS_FORMAT.items():
            # the record: C1, list column C2, bucketized column I2
            n = 1 if d.get("count") in ("lists", "bucketized") else 2
            values = bad.get(d["type"]) or ["0," * n + "0", "0," * (n - 1) + "-1"]
            for value in values:
                m = split_record()
                m._headers = [(k, v) for k, v in headers_of(full).items() if k != name]
                m._headers = [(k, v.encode("ascii")) for k, v in m._headers]
                if d["when"] == "always":
                    if name != "piper.record.version":
                        with self.assertRaisesRegex(FeedError, f"rows/0@7: no {name} header"):
                            decode_rows(m)
                else:
                    others = [k for k, e in ROWS_FORMAT.items() if e["when"] == d["when"]]
                    if len(others) > 1:
                        alone = Message(m.value(), {k: v.decode() for k, v in m._headers
                                                    if k not in others})
                        alone._headers.append((name, headers_of(full)[name].encode("ascii")))
                        with self.assertRaisesRegex(FeedError,
                                                    f"rows/0@7: header {name} without "):
                            decode_rows(alone)
                m._headers.append((name, value.encode("ascii")))
                with self.assertRaisesRegex(FeedError, f'rows/0@7: header {name} "'):
                    check_headers(headers_of(m), 3, "rows/0@7")

    def test_format_1_is_criteos_40_columns(self):
        m = Message(bytes(160), {"piper.rows": "1"})
        b = decode_rows(m)
        self.assertEqual(b.dense.shape, (1, 13))
        self.assertEqual(b.sparse.shape, (1, 26))

    def test_vocabulary_record(self):
        v = decode_vocab(Message(b"4\t77\n", {"piper.column": "C3", "piper.first.index": "4",
                                              "piper.count": "1", "piper.oov.buckets": "4"},
                                 topic="vocab"))
        self.assertEqual((v.column, v.epoch, v.first_index, v.count, v.buckets),
                         ("C3", 0, 4, 1, 4))

    def test_a_string_columns_entries_carry_their_strings(self):
        v = decode_vocab(Message("4\t77\tu_9f3c\n5\t0\n6\t12\ta\\tb\\\\ü\n".encode("utf-8"),
                                 {"piper.column": "C3", "piper.first.index": "4",
                                  "piper.count": "3"}, topic="vocab"))
        self.assertEqual(v.names, {4: "u_9f3c", 6: "a\tb\\ü"})  # 5: a filled id, no string
        plain = decode_vocab(Message(b"4\t77\n", {"piper.column": "C3", "piper.first.index": "4",
                                                   "piper.count": "1"}, topic="vocab"))
        self.assertIsNone(plain.names)
        a = decode_vocab(Message("4\t77\t0\t\tu_1\n5\t9\t3\t77\n".encode("utf-8"),
                                 {"piper.column": "C3", "piper.evict": "lfu",
                                  "piper.first.assignment": "0", "piper.count": "2",
                                  "piper.input.partition": "0", "piper.block": "0"},
                                 topic="vocab"))
        self.assertEqual(a.names, ["u_1", None])

    def test_an_evicting_columns_assignments(self):
        a = decode_vocab(Message(b"4\t77\t0\t\n5\t18446744073709551615\t3\t9\n",
                                 {"piper.column": "C3", "piper.evict": "lfu", "piper.epoch": "1",
                                  "piper.first.assignment": "40", "piper.count": "2",
                                  "piper.input.partition": "2", "piper.block": "12",
                                  "piper.oov.buckets": "4"}, topic="vocab"))
        self.assertIsInstance(a, AssignmentRecord)
        self.assertEqual((a.column, a.epoch, a.first, a.count, a.buckets, a.input_partition,
                          a.block), ("C3", 1, 40, 2, 4, 2, 12))
        self.assertEqual((a.indices, a.keys, a.rows, a.reused),
                         ([4, 5], [77, 2 ** 64 - 1], [0, 3], [False, True]))
        with self.assertRaisesRegex(FeedError, "vocab/0@7: 3 assignments announced, the value has 2"):
            decode_vocab(Message(b"4\t77\t0\t\n5\t1\t3\t9\n",
                                 {"piper.column": "C3", "piper.evict": "lfu",
                                  "piper.first.assignment": "0", "piper.count": "3",
                                  "piper.input.partition": "0", "piper.block": "0"},
                                 topic="vocab"))

    def test_rows_of_an_evicting_stream_say_what_precedes_them(self):
        m = rows_record()
        m._headers += [(k, v.encode("ascii")) for k, v in
                       {"piper.assignments": "7,3", "piper.block.assignments": "2,0",
                        "piper.evict": "ttl,"}.items()]
        self.assertEqual(decode_rows(m).assignments, {"C1": (7, 2)})
        self.assertIsNone(decode_rows(rows_record()).assignments)

    def test_a_window_holds_the_freshness_of_its_own_rows(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--window-rows", "3"])
        trainer = Trainer(args)
        for first in (0.0, 4.0):  # two steps of 2 rows, ages 10, 10 then 6, 6 seconds
            trainer.step(Batch(labels=torch.tensor([0.0, 1.0]), dense=torch.zeros(2, 1),
                               sparse=torch.zeros(2, 1, dtype=torch.int64), sparse_names=["C1"],
                               lists={}, epochs={"C1": 0}, table_sizes={("C1", 0): 1},
                               timestamps_ms=np.array([first * 1000, first * 1000]),
                               source=("in", 0, 0), pipeline="p"), now_ms=10_000.0)
        trainer.finish()
        # the second step's second row is the last window's: its age went with it
        self.assertEqual([w["rows"] for w in trainer.windows], [3, 4])
        self.assertEqual([w["freshness_p99_s"] for w in trainer.windows], [10.0, 6.0])

    def test_a_window_holds_when_its_rows_were_written_read_and_trained(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--window-rows", "2"])
        trainer = Trainer(args)
        # input at 0 s; the stream wrote the block at 1 s, the feed read it at 3 s, trained at 4 s
        block = Batch(labels=torch.tensor([0.0, 1.0]), dense=torch.zeros(2, 1),
                      sparse=torch.zeros(2, 1, dtype=torch.int64), sparse_names=["C1"], lists={},
                      epochs={"C1": 0}, table_sizes={("C1", 0): 1},
                      timestamps_ms=np.array([0.0, 0.0]), source=("in", 0, 0), pipeline="p",
                      received_ms=3000.0, written_ms=1000.0)
        for part in split(block, 1):  # the mini-batches keep their block's times
            trainer.step(part, now_ms=4000.0)
        self.assertEqual(trainer.freshness, [4.0, 4.0])
        self.assertEqual(trainer.delivery, [3.0, 3.0])
        self.assertEqual(trainer.written, [1.0, 1.0])
        self.assertEqual([(w["freshness_p99_s"], w["delivery_p99_s"]) for w in trainer.windows],
                         [(4.0, 3.0)])

    def test_rows_with_event_times_are_aged_from_them(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--window-rows", "2"])
        trainer = Trainer(args)
        block = Batch(labels=torch.tensor([0.0, 1.0]), dense=torch.zeros(2, 1),
                      sparse=torch.zeros(2, 1, dtype=torch.int64), sparse_names=["C1"], lists={},
                      epochs={"C1": 0}, table_sizes={("C1", 0): 1},
                      timestamps_ms=None, source=("in", 0, 0), pipeline="p",
                      event_times_ms=np.array([1000, 2500], dtype=np.int64))
        for part in split(block, 1):  # the mini-batches keep their rows' event times
            trainer.step(part, now_ms=4000.0)
        self.assertEqual(trainer.event_ages, [3.0, 1.5])
        self.assertEqual(trainer.freshness, [])  # no input record timestamps

    def test_the_progress_line_says_how_fresh_and_how_fast(self):
        args = parse_args(["--bootstrap-servers", "b", "--rows-topic", "r", "--metrics-out", "m",
                           "--window-rows", "2"])
        trainer = Trainer(args)
        self.assertEqual(progress(trainer, 0.0), "train: 0 rows")
        trainer.step(Batch(labels=torch.tensor([0.0, 1.0]), dense=torch.zeros(2, 1),
                           sparse=torch.zeros(2, 1, dtype=torch.int64), sparse_names=["C1"],
                           lists={}, epochs={"C1": 0}, table_sizes={("C1", 0): 1},
                           timestamps_ms=np.array([0.0, 0.0]), source=("in", 0, 0),
                           pipeline="p", received_ms=1500.0), now_ms=2000.0)
        self.assertEqual(progress(trainer, 0.5),
                         "train: 2 rows, window AUC 0.5000, calibration 1.009,"
                         " freshness p99 2.00 s (read 1.50 s),"
                         " training 4 rows/s")

    def test_a_rows_record_was_written_when_its_timestamp_says(self):
        self.assertEqual(_sent_ms(rows_record()), 1234.0)
        self.assertIsNone(_sent_ms(Message(b"", {}, timestamp=(TIMESTAMP_NOT_AVAILABLE, -1))))

    def test_metrics_are_standard_json(self):
        self.assertEqual(json_safe({"a": [float("nan"), 1.5], "b": float("inf"), "c": 2}),
                         {"a": [None, 1.5], "b": None, "c": 2})

    def test_reused_rows_start_afresh_once_per_block(self):
        b = Batch(labels=torch.zeros(5), dense=torch.zeros(5, 1),
                  sparse=torch.zeros(5, 1, dtype=torch.int64), sparse_names=["C1"], lists={},
                  epochs={"C1": 0}, table_sizes={}, timestamps_ms=None, source=("in", 0, 0),
                  pipeline="p", reused={("C1", 0): torch.tensor([3])})
        parts = list(split(b, 2))
        self.assertEqual([p.reused for p in parts[1:]], [None, None])
        self.assertEqual(parts[0].reused[("C1", 0)].tolist(), [3])

    def test_auc_by_ranks(self):
        self.assertEqual(auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]), 0.75)
        self.assertEqual(auc([0.5, 0.5], [0, 1]), 0.5)

    def test_auc_with_ties_is_the_pairwise_probability(self):
        # AUC = P(positive scores above negative) + P(equal) / 2, counted over all pairs
        rng = np.random.default_rng(11)
        scores = np.round(rng.random(400), 1)  # eleven distinct scores: many ties
        labels = rng.random(400) < 0.3
        pos, neg = scores[labels], scores[~labels]
        pairs = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
        self.assertAlmostEqual(auc(scores, labels), pairs / (len(pos) * len(neg)), places=12)

    def test_split_cuts_lists_at_row_boundaries(self):
        b = decode_rows(rows_record())
        batch = Batch(labels=torch.from_numpy(b.labels.astype(np.float32)),
                      dense=torch.from_numpy(b.dense), sparse=torch.from_numpy(b.sparse),
                      sparse_names=b.sparse_names,
                      lists={n: (torch.from_numpy(v), torch.from_numpy(o))
                             for n, (v, o) in b.lists.items()},
                      epochs=b.epochs, table_sizes={}, timestamps_ms=b.row_timestamps_ms(),
                      source=("in", 3, 12), pipeline="p/1")
        first, second = list(split(batch, 1))
        self.assertEqual(first.lists["C2"][0].tolist(), [5, 6])
        self.assertEqual(first.lists["C2"][1].tolist(), [0, 2])
        self.assertEqual(second.lists["C2"][0].tolist(), [])
        self.assertEqual(second.lists["C2"][1].tolist(), [0, 0])


if __name__ == "__main__":
    unittest.main()


def split_record():
    """The rows of rows_record() with Hotline's split: row 0 popular; C1 works 8, C2 none."""
    m = rows_record()
    m._headers += [("piper.hotline.working", b"1,0"), ("piper.hotline.first.row", b"40"),
                   ("piper.hotline.popular", b"1")]
    m._headers = [(k, b"3" if k == "piper.record.version" else v) for k, v in m._headers]
    m._value += struct.pack("<i", 8) + bytes([1, 0])
    return m


def split_batch():
    """split_record() as the feed yields it: a Batch with Hotline's flags and working parameters."""
    b = decode_rows(split_record())
    return Batch(
        labels=torch.from_numpy(b.labels.astype(np.float32)),
        dense=torch.from_numpy(b.dense), sparse=torch.from_numpy(b.sparse),
        sparse_names=b.sparse_names,
        lists={n: (torch.from_numpy(v), torch.from_numpy(o)) for n, (v, o) in b.lists.items()},
        epochs=b.epochs, table_sizes={}, timestamps_ms=b.row_timestamps_ms(),
        source=("in", 3, 12), pipeline="", popular=torch.from_numpy(b.popular),
        working={n: torch.from_numpy(w) for n, w in b.working.items()})


def timed_record(unit=b"ms"):
    """The rows of split_record() with their event times after the split."""
    m = split_record()
    m._headers += [("piper.event.times", unit)]
    m._value += struct.pack("<qq", 1795766400123, -5)
    return m


class BucketizedTest(unittest.TestCase):

    def test_bucketized_columns_and_their_bucket_counts_are_read(self):
        m = rows_record()
        m._headers += [("piper.bucketized.columns", b"I2"), ("piper.bucketized.buckets", b"5")]
        b = decode_rows(m)
        self.assertEqual(b.bucketized, {"I2": 5})
        self.assertEqual(decode_rows(rows_record()).bucketized, {})
        m._headers[-1] = ("piper.bucketized.buckets", b"5,6")
        with self.assertRaisesRegex(FeedError, "piper.bucketized.buckets \"5,6\": 2 values,"
                                               " the record's columns call for 1"):
            decode_rows(m)


class EventTimesTest(unittest.TestCase):

    def test_rows_carry_their_event_times_after_the_split(self):
        b = decode_rows(timed_record())
        self.assertEqual(b.event_times_ms.tolist(), [1795766400123, -5])
        self.assertEqual(b.popular.tolist(), [True, False])  # the flags stop before the times
        self.assertEqual(b.working["C1"].tolist(), [8])
        self.assertIsNone(decode_rows(split_record()).event_times_ms)

    def test_another_unit_or_a_short_value_is_refused(self):
        with self.assertRaisesRegex(FeedError, r"event times in ms are read"):
            decode_rows(timed_record(b"s"))
        m = timed_record()
        m._value = m._value[:-1]
        with self.assertRaisesRegex(FeedError, r"take"):
            decode_rows(m)


class HotlineRecordsTest(unittest.TestCase):

    def test_rows_with_a_split_carry_flags_and_working_parameters(self):
        b = decode_rows(split_record())
        self.assertEqual(b.popular.tolist(), [True, False])
        self.assertEqual(b.working["C1"].tolist(), [8])
        self.assertEqual(b.working["C2"].tolist(), [])
        self.assertEqual(b.hotline_first_row, 40)
        self.assertEqual(b.sparse.tolist(), [[9], [8]])  # the rows are unchanged

    def test_a_split_shorter_than_its_headers_say_is_refused(self):
        m = split_record()
        m._value = m._value[:-1]
        with self.assertRaisesRegex(FeedError, r"Hotline split|take"):
            decode_rows(m)

    def test_micro_batches_hold_the_popular_and_the_non_popular_rows(self):
        batch = split_batch()
        popular, rest = batch.split()
        self.assertEqual(popular.sparse.tolist(), [[9]])
        self.assertEqual(rest.sparse.tolist(), [[8]])
        self.assertEqual(popular.lists["C2"][0].tolist(), [5, 6])
        self.assertEqual(popular.lists["C2"][1].tolist(), [0, 2])
        self.assertEqual(rest.lists["C2"][1].tolist(), [0, 0])
        self.assertEqual(popular.rows + rest.rows, batch.rows)

    def test_mini_batches_of_a_split_block_keep_their_rows_flags(self):
        batch = split_batch()
        first, second = split(batch, 1)
        self.assertEqual(first.popular.tolist(), [True])
        self.assertEqual(second.popular.tolist(), [False])
        self.assertEqual(second.split()[1].sparse.tolist(), [[8]])  # the non-popular row
        self.assertEqual(second.working["C1"].tolist(), [8])  # the block's working parameters

    def test_hot_set_records(self):
        from piper_feed.feed.records import decode_hot_set, is_hot_set
        m = Message(b'{"window":2,"first_row":60,"entries":1,"tracker_capture":1.0,'
                    b'"hot":{"C1":[4],"C2":[]}}',
                    {"piper.hotline.window": "2", "piper.hotline.first.row": "60"},
                    topic="vocab")
        self.assertTrue(is_hot_set(m))
        h = decode_hot_set(m)
        self.assertEqual((h.window, h.first_row, h.hot["C1"]), (2, 60, [4]))
