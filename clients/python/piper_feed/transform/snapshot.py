"""The vocabulary snapshot file (docs/SERVING.md, "Snapshot files"; Java:
core.serve.SnapshotFile)."""

import json
import zlib
from dataclasses import dataclass

import numpy as np

from .base import _look_up, TransformError


MAGIC = b"piper vocabulary snapshot 1"


@dataclass
class SnapshotColumn:
    """One sparse column's vocabulary: its keys sorted, the index each holds beside it."""
    name: str
    epoch: int
    oov_buckets: int
    position: object
    reserved_index: int   # one past the largest index: a key without an entry takes it (no buckets)
    table_size: int       # rows a served model's table needs: with the reserved index's, no buckets
    keys: np.ndarray      # uint64, increasing
    indices: np.ndarray   # int32, indices[i] is keys[i]'s


class Snapshot:
    """A vocabulary snapshot (``piper vocab snapshot``): per sparse column, key to index."""

    def __init__(self, pipeline, source, columns):
        self.pipeline = pipeline
        self.source = source
        self.columns = columns

    @classmethod
    def load(cls, path):
        """Reads and checks a snapshot file: its first line, header, length and CRC-32. A file
        cut short, damaged or of another kind raises TransformError naming it."""
        with open(path, "rb") as f:
            data = f.read()
        magic_end = data.find(b"\n")
        if magic_end < 0 or data[:magic_end] != MAGIC:
            raise TransformError(f"{path}: not a vocabulary snapshot (its first line is not"
                                 f" \"{MAGIC.decode()}\")")
        header_end = data.find(b"\n", magic_end + 1)
        if header_end < 0:
            raise TransformError(f"{path}: the snapshot's header line is cut short")
        try:
            header = json.loads(data[magic_end + 1:header_end])
        except ValueError as e:
            raise TransformError(f"{path}: the header is not JSON ({e})") from None
        body = memoryview(data)[header_end + 1:]
        announced = _count(header, "body_bytes", path)
        if len(body) != announced:
            raise TransformError(f"{path}: the header announces {announced} bytes of entries,"
                                 f" the file holds {len(body)} (cut short or damaged)")
        if zlib.crc32(body) != _count(header, "crc32", path):
            raise TransformError(f"{path}: the entries do not match the header's crc32"
                                 " (damaged)")
        columns, at = [], 0
        for c, col in enumerate(header.get("columns") or []):
            where = f"{path}: columns[{c}]"
            n = _count(col, "entries", where)
            indices = np.frombuffer(body, dtype="<i4", count=n, offset=at)
            keys = np.frombuffer(body, dtype="<u8", count=n, offset=at + 4 * n)
            at += 12 * n
            order = np.argsort(keys, kind="stable")
            buckets = _count(col, "oov_buckets", where)
            top = max(buckets, int(indices.max()) + 1 if n else 0)
            columns.append(SnapshotColumn(
                name=col.get("name"), epoch=_count(col, "epoch", where), oov_buckets=buckets,
                position=col.get("position"), reserved_index=top,
                table_size=top + (0 if buckets else 1),
                keys=keys[order].copy(), indices=indices[order].astype(np.int32)))
        if at != len(body):
            raise TransformError(f"{path}: the columns' entries take {at} bytes of {len(body)}")
        return cls(header.get("pipeline", ""), header.get("source", ""), columns)

    def lookup(self, c, keys):
        """The index of each key in sparse column ``c`` (uint64 array), -1 where it has none."""
        col = self.columns[c]
        return _look_up(col.keys, col.indices, keys, np.full(len(keys), -1, dtype=np.int64))


def _count(node, name, where):
    v = node.get(name) if isinstance(node, dict) else None
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise TransformError(f"{where}: \"{name}\" is not a non-negative integer")
    return v
