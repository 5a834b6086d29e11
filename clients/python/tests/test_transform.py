"""The Python transform's own rules: the snapshot file's frozen bytes (those SnapshotFileTest
freezes in Java), the hashes against published vectors and a plain-integer reading of their
definitions, the text and JSON rules with their reasons, unknown keys, and specs it refuses.
Its rows against the Java transform's, for every operator: PythonTransformITCase (cli)."""

import json
import os
import sys
import tempfile
import unittest

import numpy as np

from piper_feed.transform import (Snapshot, Spec, Transform, TransformError, hash_128_to_64,
                                  mix64, twang_mix64)

HEADER = (b'piper vocabulary snapshot 1\n'
          b'{"pipeline":"t/2","source":"test","body_bytes":36,"crc32":3487271173,"columns":['
          b'{"name":"C1","epoch":0,"oov_buckets":2,"position":3,"entries":2,"table_size":5,'
          b'"reserved_index":null},'
          b'{"name":"C2","epoch":1,"oov_buckets":0,"position":null,"entries":1,'
          b'"table_size":2,"reserved_index":1}]}\n')
# the header files had before 2026-12-07 (C2's table size one short, no reserved index): read alike
OLD_HEADER = (b'piper vocabulary snapshot 1\n'
              b'{"pipeline":"t/2","source":"test","body_bytes":36,"crc32":3487271173,"columns":['
              b'{"name":"C1","epoch":0,"oov_buckets":2,"position":3,"entries":2,"table_size":5},'
              b'{"name":"C2","epoch":1,"oov_buckets":0,"position":null,"entries":1,'
              b'"table_size":1}]}\n')
BODY = bytes.fromhex("02000000" "04000000" "ab00000000000000" "ffffffffffffffff"
                     "00000000" "bc0a000000000000")
M = (1 << 64) - 1


def spec(columns, **inp):
    return Spec({"name": "t", "version": 2, "input": {"dense": 1, "sparse": 2, **inp},
                 "columns": columns})


CHAINS = {"label": ["decode", "fill_missing"],
          "I1": ["decode", "fill_missing", "neg2zero", "log"],
          "C1": ["decode", "fill_missing", "hex2int", {"op": "vocab", "oov_buckets": 2}],
          "C2": ["decode", "fill_missing", "hex2int", "vocab"]}


class TransformTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.file = os.path.join(self.dir.name, "s.snapshot")
        with open(self.file, "wb") as f:
            f.write(HEADER + BODY)

    def test_each_dense_operator_declares_the_type_it_gives(self):
        from piper_feed.transform.ops import _DENSE_OPS, dense_result
        params = {"clamp": {"lo": -1, "hi": 9}, "bucketize": {"borders": [0, 2]},
                  "boxcox": {"lambda": 0.5}, "logit": {}}
        for op, apply in _DENSE_OPS.items():
            for p in ([{"to": "float32"}, {"to": "int32"}] if op == "cast" else [params.get(op, {})]):
                for ftype in ("int32", "float32"):
                    values = np.asarray([0, 1, 5], dtype=ftype)
                    _, is_float = apply(values, ftype == "float32", p)
                    self.assertEqual("float32" if is_float else "int32",
                                     dense_result(op, p, ftype), f"{op} {p} on {ftype}")

    def test_the_frozen_snapshot_bytes_read_as_java_wrote_them(self):
        s = Snapshot.load(self.file)
        self.assertEqual((s.pipeline, s.source), ("t/2", "test"))
        self.assertEqual([c.name for c in s.columns], ["C1", "C2"])
        # C2 has no OOV buckets: a key without an entry takes index 1, and a model needs its row
        self.assertEqual([c.reserved_index for c in s.columns], [5, 1])
        self.assertEqual([c.table_size for c in s.columns], [5, 2])
        keys = np.array([171, M, 5], dtype=np.uint64)
        self.assertEqual(s.lookup(0, keys).tolist(), [2, 4, -1])
        self.assertEqual(s.lookup(1, np.array([2748, 171], dtype=np.uint64)).tolist(), [0, -1])

    def test_a_snapshot_of_the_earlier_header_reads_the_same(self):
        with open(self.file, "wb") as f:
            f.write(OLD_HEADER + BODY)
        s = Snapshot.load(self.file)
        self.assertEqual([c.reserved_index for c in s.columns], [5, 1])
        self.assertEqual([c.table_size for c in s.columns], [5, 2])
        self.assertEqual(s.lookup(1, np.array([2748, 171], dtype=np.uint64)).tolist(), [0, -1])

    def test_a_snapshot_cut_short_damaged_or_of_another_kind_is_refused(self):
        cases = {HEADER + BODY[:-5]: "announces 36 bytes of entries, the file holds 31",
                 HEADER + BODY[:-1] + b"\x01": "do not match the header's crc32",
                 b"hello\n" + BODY: "not a vocabulary snapshot",
                 HEADER[:40]: "header line is cut short"}
        for data, why in cases.items():
            with open(self.file, "wb") as f:
                f.write(data)
            with self.assertRaisesRegex(TransformError, why):
                Snapshot.load(self.file)

    def test_the_hashes_are_their_published_definitions(self):
        golden = 0x9E3779B97F4A7C15
        ks = np.array([golden, 2 * golden & M, 3 * golden & M], dtype=np.uint64)
        self.assertEqual([int(x) for x in mix64(ks)],
                         [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F])

        def twang(k):   # folly's twang_mix64 on Python's integers, cut to 64 bits
            k = (~k + (k << 21)) & M
            k ^= k >> 24
            k = (k + (k << 3) + (k << 8)) & M
            k ^= k >> 14
            k = (k + (k << 2) + (k << 4)) & M
            k ^= k >> 28
            return (k + (k << 31)) & M

        def h128(u, lo):
            a = ((lo ^ u) * 0x9DDFEA08EB382D69) & M
            a ^= a >> 47
            b = ((u ^ a) * 0x9DDFEA08EB382D69) & M
            b ^= b >> 47
            return (b * 0x9DDFEA08EB382D69) & M

        xs = [0, 1, 7, 1 << 63, M, 0x68FD1E64]
        arr = np.array(xs, dtype=np.uint64)
        self.assertEqual([int(v) for v in twang_mix64(arr)], [twang(x) for x in xs])
        self.assertEqual([int(v) for v in hash_128_to_64(arr[::-1].copy(), arr)],
                         [h128(u, x) for u, x in zip(xs[::-1], xs)])

    def test_criteo_lines_take_the_texts_rules_and_reasons(self):
        t = Transform(spec(CHAINS), Snapshot.load(self.file))
        r = t.apply_lines(b"1\t-3\tab\tabc\n"        # known keys
                          b"0\t\t\t\n"                # missing: fills
                          b"0\t4\tffffffffffffffff\t5\n"
                          b"\n"
                          b"1\t2\n"
                          b"x\t1\tab\tab\n"
                          b"1\t2147483648\tab\tab\n"
                          b"1\t2\tzz\tab\n"
                          b"1\t2\t10000000000000000\tab\n"
                          b"1\t2\t\xff\tab")
        self.assertEqual(r.records, 10)
        self.assertEqual([(d[0], d[1]) for d in r.dead_letters],
                         [(3, "empty_line"), (4, "wrong_field_count"), (5, "label_not_int32"),
                          (6, "dense_not_int32"), (7, "categorical_not_hex"),
                          (8, "categorical_overflow"), (9, "invalid_utf8")])
        self.assertEqual(r.dead_letters[3][2], 'I1: "2147483648" is not a 32-bit integer')
        self.assertEqual(r.dead_letters[1][2], "expected 4 tab-separated fields, found 2")
        self.assertEqual(r.rows[:, 0].tolist(), [1, 0, 0])
        self.assertEqual(r.rows[:, 1].view(np.float32).tolist(),
                         [0.0, 0.0, float(np.float32(np.log(np.float32(5))))])
        c1 = int(mix64(np.array([0], dtype=np.uint64))[0] % 2)   # key 0 (filled): its bucket
        self.assertEqual(r.rows[:, 2].tolist(), [2, c1, 4])
        # C2: 2748 is index 0; 0 and 5 are unknown, the reserved index is the table size, 1
        self.assertEqual(r.rows[:, 3].tolist(), [0, 1, 1])
        self.assertEqual(r.unknown, {"C1": 1, "C2": 2})
        answer = r.answer()
        self.assertEqual(answer["columns"], ["label", "I1", "C1", "C2"])
        self.assertEqual(answer["float32_columns"], ["I1"])
        self.assertEqual(answer["unknown_keys"], {"C1": 1, "C2": 2})

    def test_long_fields_of_leading_zeros_are_read_as_the_text_decoder_reads_them(self):
        t = Transform(spec(CHAINS), Snapshot.load(self.file))
        r = t.apply_lines(b"1\t+000000000003\t00000000000000000000ab\tabc\n"
                          b"1\t-3\tab\tabc\n")
        self.assertEqual(r.dead_letters, [])
        self.assertEqual(r.rows[0].tolist(), r.rows[1].tolist()[:1] + [
            int(np.float32(np.log(np.float32(4))).view(np.int32)), 2, 0])
        self.assertEqual(r.rows[1, 1], 0)   # -3: neg2zero, log(1) = 0

    def test_json_events_take_the_json_rules_and_reasons(self):
        chains = dict(CHAINS, C2=["decode", "fill_missing", "hash64", "vocab"])
        s = spec(chains, format="json", timestamp="at", list_columns=["C2"],
                 fields={"label": "click", "I1": "f.price", "C1": "ids[1]", "C2": "items"})
        t = Transform(s, Snapshot.load(self.file))
        events = [
            {"click": True, "f": {"price": "4"}, "ids": ["x", "ab"], "items": ["a", "b"],
             "at": "2026-11-27T09:00:00.123+01:00"},
            {"click": 0, "at": 1764230400123, "items": []},
            {"click": 0.0, "at": 1764230400.5, "ids": [0, 18446744073709551615]},
            {"click": 1.5, "at": 1},
            {"click": 1, "at": 1, "f": "cheap"},
            {"click": 1, "at": 1, "items": "a"},
            {"click": 1, "at": 1, "items": ["a", None]},
            {"click": 1, "at": "soon"},
            {"click": 1},
        ]
        lines = [json.dumps(e).encode() for e in events] + [b"[1]", b"{\"click\": 1"]
        r = t.apply(lines)
        self.assertEqual([(d[0], d[1], d[2]) for d in r.dead_letters], [
            (3, "label_not_int32", "label (click): 1.5 is not a 32-bit integer (dense columns"
                                   " decode int32)"),
            (4, "wrong_type", 'I1 (f.price): the event\'s "f" is a string, not a record'),
            (5, "wrong_type", 'C2 (items): a string "a", but the column is a list'),
            (6, "categorical_not_hex", "C2 (items) id 2 of the list is null"),
            (7, "bad_timestamp", 'the event time (at): "soon" is neither a count of ms nor'
                                 ' ISO-8601 time with an offset (2026-11-27T08:00:00Z)'),
            (8, "bad_timestamp", "the event time (at) is missing"),
            (9, "invalid_json", "the line is an array, not a JSON object"),
            (10, "invalid_json", r.dead_letters[-1][2])])
        # ISO-8601 with an offset; milliseconds; a fraction to the nearest millisecond
        self.assertEqual(r.event_times.tolist(), [1795766400123, 1764230400123, 1764230401])
        self.assertEqual(r.rows[:, 0].tolist(), [1, 0, 0])
        self.assertEqual(r.rows[:, 2].tolist()[0], 2)   # "ab" (hex2int) is C1's key 171
        offsets, indices = r.lists["C2"]
        self.assertEqual(offsets.tolist(), [0, 2, 2, 2])   # [] and absent: fill_missing, none
        self.assertEqual(indices.tolist(), [1, 1])       # hashed strings unknown: reserved 1

    def test_specs_and_snapshots_it_cannot_serve_are_refused_by_name(self):
        with self.assertRaisesRegex(TransformError, 'input.format "parquet": not a format of'):
            spec(CHAINS, format="parquet")
        with self.assertRaisesRegex(TransformError, "input.descriptor None, message None"):
            Transform(spec(CHAINS, format="protobuf"), Snapshot.load(self.file))
        absent = sys.modules.get("google.protobuf")   # a machine without python3-protobuf
        sys.modules["google.protobuf"] = None
        try:
            with self.assertRaisesRegex(TransformError, "input.format protobuf needs the protobuf"
                                                        r" module \(Debian: apt-get install"
                                                        r" python3-protobuf\)"):
                Transform(spec(CHAINS, format="protobuf"), Snapshot.load(self.file))
        finally:
            if absent is None:
                del sys.modules["google.protobuf"]
            else:
                sys.modules["google.protobuf"] = absent
        with self.assertRaisesRegex(TransformError, "an avro spec needs input.schema"):
            Transform(spec(CHAINS, format="avro"), Snapshot.load(self.file))
        with self.assertRaisesRegex(TransformError, "input.schema_registry: records in"):
            Transform(spec(CHAINS, format="avro", schema_registry="http://127.0.0.1:8081"),
                      Snapshot.load(self.file))
        with self.assertRaisesRegex(TransformError, "columns: no chain for C2"):
            spec({k: v for k, v in CHAINS.items() if k != "C2"})
        other = dict(CHAINS, C2=["decode", "fill_missing", "hex2int",
                                 {"op": "vocab", "oov_buckets": 3}])
        with self.assertRaisesRegex(TransformError, "sparse column 2 of the snapshot is C2 with 0"
                                                    " OOV buckets; the spec's is C2 with 3"):
            Transform(spec(other), Snapshot.load(self.file))
        with self.assertRaisesRegex(ValueError, "record 1 holds a line break"):
            Transform(spec(CHAINS), Snapshot.load(self.file)).apply([b"1\n2"])


if __name__ == "__main__":
    unittest.main()
