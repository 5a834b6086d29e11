"""The transform: a request's records to the rows the feed made of them, at a snapshot."""

import math
from dataclasses import dataclass

import numpy as np

from .base import _MASK, _need_xxhash, TransformError, _U
from .ops import _DENSE_OPS, _ID_OPS, _IdTable, mix64
from .readers import FORMATS
from .spec import Spec


@dataclass
class Result:
    """A request's rows: ``rows`` int32 [n, slots] in rows.bin's layout (a float32 slot holds
    its bits), ``lists`` per list column (offsets, indices), ``event_times`` (ms, or None),
    ``dead_letters`` (record, reason, detail), ``unknown`` keys per sparse column."""
    spec: Spec
    records: int
    rows: np.ndarray
    lists: dict
    event_times: object
    dead_letters: list
    unknown: dict

    def answer(self):
        """The answer ``piper serve`` gives for the same records (its JSON, parsed)."""
        spec = self.spec
        columns = spec.row_columns
        floats = [c.name for c in spec.columns if c.float32 and not c.onehot]
        float_slots = {j for j, n in enumerate(columns) if n in floats}
        as_float = self.rows.view("<f4")
        rows = [[_json_float(as_float[r, j]) if j in float_slots else int(self.rows[r, j])
                 for j in range(len(columns))] for r in range(len(self.rows))]
        out = {"records": self.records, "columns": columns}
        if floats:
            out["float32_columns"] = floats
        out["rows"] = rows
        if self.lists:
            out["lists"] = {name: [indices[offsets[r]:offsets[r + 1]].tolist()
                                   for r in range(len(self.rows))]
                            for name, (offsets, indices) in self.lists.items()}
        if self.event_times is not None:
            out["event_times"] = self.event_times.tolist()
        out["dead_letters"] = [{"record": r, "reason": reason, "detail": detail}
                               for r, reason, detail in self.dead_letters]
        out["unknown_keys"] = {n: k for n, k in self.unknown.items() if k}
        return out


def _json_float(v):
    """A float32 as piper serve's JSON writes it: a number, or NaN and the infinities as text."""
    v = float(v)
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else "Infinity" if v > 0 else "-Infinity"


class Transform:
    """The feed's transform of a spec at a snapshot's vocabulary position. Not thread-safe (its
    reader holds the record being read): one per thread, sharing the spec and the snapshot, which
    it never changes."""

    def __init__(self, spec, snapshot):
        sparse = [c for c in spec.columns[spec.width:]]
        if len(snapshot.columns) != len(sparse):
            raise TransformError(f"a snapshot of {len(snapshot.columns)} sparse columns for a"
                                 f" spec of {len(sparse)}")
        for c, (col, snap) in enumerate(zip(sparse, snapshot.columns)):
            if col.name != snap.name or col.oov_buckets != snap.oov_buckets:
                raise TransformError(f"sparse column {c + 1} of the snapshot is {snap.name}"
                                     f" with {snap.oov_buckets} OOV buckets; the spec's is"
                                     f" {col.name} with {col.oov_buckets}")
        if any(c.hashes for c in sparse):
            _need_xxhash()
        self.spec, self.snapshot = spec, snapshot
        self.reader = FORMATS[spec.format].reader(spec)
        self.lines = FORMATS[spec.format].records != "frame"   # else datums or messages, a record each
        self.tables = {}
        for col in sparse:
            for op, p in col.ops:
                if op == "mapid" and p["file"] not in self.tables:
                    self.tables[p["file"]] = _IdTable(p["file"])

    def apply_body(self, body):
        """The rows of a request's body as ``POST /transform`` takes it: records one a line, or
        for Avro and Protobuf each a 4-byte big-endian length then the record (a broken frame
        raises ValueError naming the record and byte)."""
        if self.lines:
            return self.apply_lines(body)
        records, at = [], 0
        while at < len(body):
            if at + 4 > len(body):
                raise ValueError(f"record {len(records) + 1} at byte {at}: its length is cut"
                                 " short")
            n = int.from_bytes(body[at:at + 4], "big")
            if at + 4 + n > len(body):
                raise ValueError(f"record {len(records) + 1} at byte {at}: its length, {n},"
                                 f" runs past the body's end ({len(body)} bytes)")
            records.append(body[at + 4:at + 4 + n])
            at += 4 + n
        return self.apply(records)

    def apply_lines(self, text):
        """The rows of the records of ``text`` (bytes), one a line; a last line break ends the
        last one (a request's body)."""
        lines = text.split(b"\n")
        if lines and lines[-1] == b"" and text:
            lines.pop()
        return self.apply(lines if text else [])

    def apply(self, records):
        """The rows of ``records`` (bytes each, one record: a line without its break)."""
        spec = self.spec
        for r, record in enumerate(records):
            if self.lines and b"\n" in record:
                raise ValueError(f"record {r + 1} holds a line break: one line a record")
        columns, times, dead = self.reader.read_block(records, len(spec.columns))
        n = len(times)
        slots, lists, unknown = [], {}, {}
        for f, col in enumerate(spec.columns):
            if f < spec.width:
                values, missing = columns[f]
                slots += self._dense(col, np.where(missing, col.fill, values).astype(np.int32))
                continue
            if col.kind == "list":
                fill = [col.fill] if col.fill_null else []
                ids = [x if x else fill for x in columns[f]]
                offsets = np.zeros(n + 1, dtype=np.int64)
                np.cumsum([len(x) for x in ids], out=offsets[1:])
                keys = np.array([k & _MASK for x in ids for k in x], dtype=np.uint64)
            else:
                offsets = None
                values, missing = columns[f]
                keys = np.where(missing, _U(col.fill & _MASK), values.astype(np.uint64))
            keys, offsets = self._ids(col, keys, offsets)
            indices, unknown[col.name] = self._vocab(f - spec.width, col, keys)
            if col.kind == "list":
                lists[col.name] = (offsets, indices.astype(np.int32))
            else:
                slots.append(indices.astype(np.int32))
        rows = (np.stack(slots, axis=1) if slots else np.zeros((n, 0), dtype=np.int32))
        event_times = np.array(times, dtype=np.int64) if spec.time_path else None
        return Result(spec, len(records), np.ascontiguousarray(rows, dtype=np.int32), lists,
                      event_times, dead, unknown)

    def _dense(self, col, v):
        is_float = False
        for op, p in col.ops:
            v, is_float = _DENSE_OPS[op](v, is_float, p)
        if is_float:
            v = np.where(np.isnan(v), np.float32(np.nan), v).astype(np.float32)   # canonical
            return [v.view(np.int32)]
        if col.onehot:   # drop-last: 1 at the category, all zeros for the last or out of range
            return [(v == k).astype(np.int32) for k in range(col.onehot - 1)]
        return [v.astype(np.int32)]

    def _ids(self, col, keys, offsets):
        for op, p in col.ops:
            keys, offsets = _ID_OPS[op](keys, offsets, p, self.tables)
        return keys, offsets

    def _vocab(self, c, col, keys):
        index = self.snapshot.lookup(c, keys)
        missing = index < 0
        if missing.any():
            buckets = col.oov_buckets
            if buckets == 1:
                index[missing] = 0
            elif buckets > 1:
                index[missing] = (mix64(keys[missing]) % _U(buckets)).astype(np.int64)
            else:   # the column's reserved index: one past its largest index at the snapshot
                index[missing] = self.snapshot.columns[c].reserved_index
        return index, int(missing.sum())
