"""The feed's transform in Python: raw records to the rows the feed made of them, in process.

A serving process that scores a model trained on the feed must turn each request into the inputs
the model was trained on: the same fills, operators and vocabulary indices. ``piper serve`` does
that in Java over HTTP; this module does it inside a Python process (a TorchServe or Triton
handler, a notebook), from the same two files:

    spec = Spec.load("clicks-json.json")                 # the pipeline spec the feed ran
    snapshot = Snapshot.load("models/snap-100352.bin")   # piper vocab snapshot --position ...
    transform = Transform(spec, snapshot)
    result = transform.apply_lines(request_body)          # JSON events or Criteo lines
    batch = serving.batch_from_answer(result.answer(), state)

``Result.answer()`` is the dict ``piper serve`` answers for the same records, value for value:
rows (a float32 slot as its float), list columns, event times, dead letters with the feed's
reason codes, and the count of keys the snapshot has no entry for. A key without an entry takes
its OOV bucket (``mix64(key) mod oov_buckets``) or, in a column without buckets, the column's
reserved index, its table size at the snapshot; the vocabulary never grows.

Input formats: lines of ``criteo-tsv``, ``json`` and ``csv`` (``apply_lines``); Avro datums of
``input.schema`` and Protobuf messages of ``input.message``, a record each (``apply``), or
length-prefixed in a body as ``piper serve`` takes them (``apply_body``). The operators are all
of docs/SPECS.md's; their arithmetic is the Java operators' (float32 where they round to float32,
64-bit wrapping hashes), so the rows are equal bit for bit; a NaN comes out as the canonical quiet
NaN. ``PythonTransformITCase`` (cli) checks every record of generated requests, good and bad,
against ``piper serve`` for presets of each format and for a spec with every operator.
"""

import argparse
import json
import math
import re
import sys
import zlib
from dataclasses import dataclass, field as dc_field
from datetime import datetime, timezone

import numpy as np

MAGIC = b"piper vocabulary snapshot 1"
_MASK = (1 << 64) - 1
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_QUOTED_CHARS = 64  # a JSON detail quotes this many characters of a value
_U = np.uint64
_K_MUL = _U(0x9DDFEA08EB382D69)
_FORMATS = ("criteo-tsv", "json", "csv", "avro", "protobuf")
_MIN_MILLIS, _MAX_MILLIS = -62_135_596_800_000, 253_402_300_799_999


class TransformError(ValueError):
    """A spec, snapshot or table this library cannot use; the message names the file and field."""


# ---------------------------------------------------------------------------------------------
# The snapshot file (docs/SERVING.md, "Snapshot files"; Java: core.serve.SnapshotFile)
# ---------------------------------------------------------------------------------------------

@dataclass
class SnapshotColumn:
    """One sparse column's vocabulary: its keys sorted, the index each holds beside it."""
    name: str
    epoch: int
    oov_buckets: int
    position: object
    table_size: int
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
                position=col.get("position"), table_size=top,
                keys=keys[order].copy(), indices=indices[order].astype(np.int32)))
        if at != len(body):
            raise TransformError(f"{path}: the columns' entries take {at} bytes of {len(body)}")
        return cls(header.get("pipeline", ""), header.get("source", ""), columns)

    def lookup(self, c, keys):
        """The index of each key in sparse column ``c`` (uint64 array), -1 where it has none."""
        col = self.columns[c]
        out = np.full(len(keys), -1, dtype=np.int64)
        if len(col.keys) and len(keys):
            at = np.searchsorted(col.keys, keys)
            inside = at < len(col.keys)
            hit = np.zeros(len(keys), dtype=bool)
            hit[inside] = col.keys[at[inside]] == keys[inside]
            out[hit] = col.indices[at[hit]]
        return out


def _count(node, name, where):
    v = node.get(name) if isinstance(node, dict) else None
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise TransformError(f"{where}: \"{name}\" is not a non-negative integer")
    return v


# ---------------------------------------------------------------------------------------------
# The spec (docs/SPECS.md): the layout, each column's chain, the input's fields
# ---------------------------------------------------------------------------------------------

_NAME = re.compile(r"(label|[ICG])([1-9][0-9]*)?")


@dataclass
class Column:
    """One field of the layout: its name, the event path it reads, its chain."""
    name: str
    kind: str                 # label, dense, sparse, list
    path: str = None
    fill: int = 0
    fill_null: bool = False
    hashes: bool = False      # hash64 (else hex2int, for a sparse column)
    ops: list = dc_field(default_factory=list)   # (name, params) after fill / hex2int
    oov_buckets: int = 0
    onehot: int = 0
    float32: bool = False


class Spec:
    """A pipeline spec as the transform needs it. The Java side validates specs fully
    (``piper spec validate``); this reads a valid one and refuses what it cannot run."""

    def __init__(self, doc, where="spec"):
        self.where = where
        inp = doc.get("input") or {}
        self.name = f"{doc.get('name')}/{doc.get('version')}"
        self.format = inp.get("format", "criteo-tsv")
        if self.format not in _FORMATS:
            raise TransformError(f"{where}: input.format \"{self.format}\": not a format of"
                                 f" records ({', '.join(_FORMATS)})")
        self.dense = inp.get("dense", 13)
        self.sparse = inp.get("sparse", 26)
        sources = [int(n[1:]) for n in self._names(inp.get("generated_from", []), "I")]
        self.generated = sources
        self.width = 1 + self.dense + len(sources)
        names = (["label"] + [f"I{i}" for i in range(1, self.dense + 1)]
                 + [f"G{g}" for g in range(1, len(sources) + 1)]
                 + [f"C{c}" for c in range(1, self.sparse + 1)])
        lists = {int(n[1:]) for n in self._names(inp.get("list_columns", []), "C")}
        self.list_separator = inp.get("list_separator", ",").encode()
        out = doc.get("output") or {}
        self.pad_missing = bool(out.get("pad_missing_fields", False))
        self.max_line_bytes = int(out.get("max_line_bytes", 65536))
        fields = inp.get("fields") or {}
        self.columns = []
        for f, name in enumerate(names):
            kind = ("label" if f == 0 else "dense" if f < self.width
                    else "list" if int(name[1:]) in lists else "sparse")
            path = fields.get(name, name)
            if name.startswith("G"):
                source = f"I{sources[int(name[1:]) - 1]}"
                path = fields.get(source, source)
            self.columns.append(Column(name=name, kind=kind, path=path))
        chains = {}
        for key, chain in (doc.get("columns") or {}).items():
            for name in self._names([key], None):
                chains[name] = chain
        for col in self.columns:
            if col.name not in chains:
                raise TransformError(f"{where}: columns: no chain for {col.name}")
            self._compile(col, chains[col.name])
        self.time_path = inp.get("timestamp")
        self.time_unit = inp.get("timestamp_unit", "ms")
        self.csv_columns = list(inp.get("columns") or [])
        self.schema_registry = inp.get("schema_registry")
        self.descriptor = inp.get("descriptor")
        self.message = inp.get("message")
        self.schema = inp.get("schema")
        if isinstance(self.schema, str):   # a .avsc file, from the working directory
            try:
                with open(self.schema) as f:
                    self.schema = json.load(f)
            except (OSError, ValueError) as e:
                raise TransformError(f"{where}: input.schema: {e}") from None
        self.delimiter = inp.get("delimiter", ",").encode()

    @classmethod
    def load(cls, path):
        """The spec of a JSON file (a preset's file is pipeline/src/main/resources/specs/)."""
        with open(path, "rb") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                raise TransformError(f"{path}: not JSON ({e})") from None
        return cls(doc, str(path))

    def _names(self, items, prefix):
        """Column names of names and ranges (``C1..C26``)."""
        out = []
        for item in items:
            first, _, last = item.partition("..")
            m1, m2 = _NAME.fullmatch(first), _NAME.fullmatch(last or first)
            if not m1 or not m2 or m1.group(1) != m2.group(1) or (
                    prefix and m1.group(1) != prefix):
                raise TransformError(f"{self.where}: \"{item}\" is not a column or a range")
            if m1.group(1) == "label":
                out.append("label")
                continue
            out += [f"{m1.group(1)}{i}" for i in range(int(m1.group(2)), int(m2.group(2)) + 1)]
        return out

    def _compile(self, col, chain):
        ftype = "int32"
        for step in chain:
            op, params = (step, {}) if isinstance(step, str) else (step.get("op"), step)
            if op == "decode":
                continue
            if op in ("fill_missing", "fill_null"):
                col.fill = params.get("value", 0) if op == "fill_null" else 0
                col.fill_null = op == "fill_null"
            elif op in ("hex2int", "hash64"):
                col.hashes = op == "hash64"
            elif op == "vocab":
                col.oov_buckets = int(params.get("oov_buckets", 0))
            elif op == "onehot":
                col.onehot = int(params["size"])
            elif op in _DENSE_OPS or op in _ID_OPS:
                col.ops.append((op, params))
                if op == "cast":
                    ftype = params["to"]
                elif op in ("log", "sqrt", "boxcox", "logit"):
                    ftype = "float32"
                elif op == "bucketize":
                    ftype = "int32"
            else:
                raise TransformError(f"{self.where}: {col.name}: unknown operator \"{op}\"")
        col.float32 = col.kind in ("label", "dense") and ftype == "float32"

    @property
    def row_columns(self):
        """The names of a row's slots, as ``piper serve`` and the rows records name them."""
        names = []
        for col in self.columns[:self.width]:
            names += ([f"{col.name}_{k}" for k in range(col.onehot - 1)] if col.onehot
                      else [col.name])
        return names + [c.name for c in self.columns[self.width:] if c.kind == "sparse"]


# ---------------------------------------------------------------------------------------------
# Operators (docs/SPECS.md's table; Java: pipeline.ops)
# ---------------------------------------------------------------------------------------------

def _as_float(v, is_float):
    return v if is_float else v.astype(np.float32)


def _neg2zero(v, is_float, p):
    return np.where(v < 0, v.dtype.type(0), v), is_float


def _clamp(v, is_float, p):
    lo, hi = float(p["lo"]), float(p["hi"])
    if is_float:
        wide = v.astype(np.float64)
        return np.where(wide < lo, np.float32(lo), np.where(wide > hi, np.float32(hi), v)), True
    ilo = min(max(math.ceil(lo), _INT32_MIN), _INT32_MAX)   # Java's (int) saturates
    ihi = min(max(math.floor(hi), _INT32_MIN), _INT32_MAX)
    return np.clip(v, ilo, ihi).astype(np.int32), False


def _log(v, is_float, p):
    x = _as_float(v, is_float) + np.float32(1)   # float32(x) + 1f, in float32
    return np.log(x.astype(np.float64)).astype(np.float32), True


def _sqrt(v, is_float, p):
    return np.sqrt(_as_float(v, is_float).astype(np.float64)).astype(np.float32), True


def _bucketize(v, is_float, p):
    borders = np.asarray(p["borders"], dtype=np.float64)
    x = v.astype(np.float64)
    side = "left" if p.get("right", True) else "right"   # borders < x, or <= x
    out = np.searchsorted(borders, x, side=side)
    out[np.isnan(x)] = len(borders)
    return out.astype(np.int32), False


def _boxcox(v, is_float, p):
    lam, x = float(p["lambda"]), v.astype(np.float64)
    with np.errstate(all="ignore"):
        y = np.log(x) if lam == 0 else (np.power(x, lam) - 1) / lam
    return np.where(x < 0, np.nan, y).astype(np.float32), True


def _logit(v, is_float, p):
    z = v.astype(np.float64)
    if "eps" in p:
        eps = float(p["eps"])
        z = np.where(z < eps, eps, np.where(z > 1 - eps, 1 - eps, z))
    with np.errstate(all="ignore"):
        return np.log(z / (1 - z)).astype(np.float32), True


def _cast(v, is_float, p):
    if p["to"] == "float32":
        return v.astype(np.float32), True
    x = np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=_INT32_MAX, neginf=_INT32_MIN)
    return np.trunc(np.clip(x, _INT32_MIN, _INT32_MAX)).astype(np.int32), False  # toward zero


_DENSE_OPS = {"neg2zero": _neg2zero, "clamp": _clamp, "log": _log, "sqrt": _sqrt,
              "bucketize": _bucketize, "boxcox": _boxcox, "logit": _logit, "cast": _cast}


def twang_mix64(k):
    """folly's twang_mix64 on uint64 arrays (wrapping, as Java's long arithmetic)."""
    k = (~k) + (k << _U(21))
    k = k ^ (k >> _U(24))
    k = k + (k << _U(3)) + (k << _U(8))
    k = k ^ (k >> _U(14))
    k = k + (k << _U(2)) + (k << _U(4))
    k = k ^ (k >> _U(28))
    return k + (k << _U(31))


def hash_128_to_64(upper, lower):
    """folly's hash_128_to_64 on uint64 arrays."""
    a = (lower ^ upper) * _K_MUL
    a = a ^ (a >> _U(47))
    b = (upper ^ a) * _K_MUL
    b = b ^ (b >> _U(47))
    return b * _K_MUL


def mix64(k):
    """SplitMix64's finalizer: the OOV bucket's hash (VocabularyPolicy.mix)."""
    k = (k ^ (k >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    k = (k ^ (k >> _U(27))) * _U(0x94D049BB133111EB)
    return k ^ (k >> _U(31))


def _sigrid(keys, p):
    salt = np.full(len(keys), int(p.get("salt", 0)) & _MASK, dtype=np.uint64)
    h = hash_128_to_64(salt, twang_mix64(keys)).view(np.int64)
    return (h % np.int64(int(p["max"]))).astype(np.uint64)   # floorMod: the sign of max


class _IdTable:
    """A mapid file, ``id<TAB>value`` lines, as sorted arrays."""

    def __init__(self, path):
        ids, values = [], []
        with open(path, "rb") as f:
            for n, line in enumerate(f, 1):
                parts = line.rstrip(b"\n").split(b"\t")
                if len(parts) != 2 or not all(re.fullmatch(rb"[0-9]+", x) for x in parts):
                    raise TransformError(f"{path}: line {n}: expected id<TAB>value, unsigned"
                                         " decimals")
                ids.append(int(parts[0]))
                values.append(int(parts[1]))
        ids = np.array(ids, dtype=np.uint64)
        order = np.argsort(ids, kind="stable")
        self.ids, self.values = ids[order], np.array(values, dtype=np.uint64)[order]
        if len(self.ids) > 1 and np.any(self.ids[1:] == self.ids[:-1]):
            raise TransformError(f"{path}: repeats an id (an id may appear once)")

    def map(self, keys, default):
        out = keys.copy() if default is None else np.full(len(keys), default, dtype=np.uint64)
        if len(self.ids) and len(keys):
            at = np.searchsorted(self.ids, keys)
            inside = at < len(self.ids)
            hit = np.zeros(len(keys), dtype=bool)
            hit[inside] = self.ids[at[inside]] == keys[inside]
            out[hit] = self.values[at[hit]]
        return out


def _firstx(keys, offsets, p):
    x = int(p["x"])
    lengths = np.minimum(np.diff(offsets), x)
    keep = np.concatenate([np.arange(s, s + n) for s, n in zip(offsets[:-1], lengths)]
                          or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    return keys[keep], np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _ngram(keys, offsets, p):
    n = int(p["n"])
    lengths = np.maximum(np.diff(offsets) - n + 1, 0)
    starts = np.concatenate([np.arange(s, s + k) for s, k in zip(offsets[:-1], lengths)]
                            or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    h = keys[starts] if len(starts) else np.zeros(0, dtype=np.uint64)
    for j in range(1, n):
        h = hash_128_to_64(h, keys[starts + j])
    return h, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


_ID_OPS = {"modulus", "sigrid_hash", "mapid", "firstx", "ngram"}


# ---------------------------------------------------------------------------------------------
# Reading records: Criteo text, JSON events, CSV; the feed's rules and reasons (docs/SEMANTICS.md)
# ---------------------------------------------------------------------------------------------

class _Reject(Exception):
    def __init__(self, reason, detail):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


_DIGITS = re.compile(rb"[+-]?[0-9]+")
_HEX = re.compile(rb"[0-9a-fA-F]+")
_HEX_TEXT = re.compile(r"[0-9a-fA-F]+")
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_FIRST_TOKEN = re.compile(r'[ \t\r]*(?:(\{)|(\[)|(")|-?(?:0|[1-9][0-9]*)((?:\.[0-9]+)?'
                          r'(?:[eE][+-]?[0-9]+)?)|(true|false)|(null))')
_COUNT_TEXT = re.compile(r"-?[0-9]{1,18}")
_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
                  r"(Z|[+-][0-9]{2}:[0-9]{2}(:[0-9]{2})?)")


def _quote(b):
    """A text field for a detail, quoted and cut at 40 bytes (CriteoDecoder.quote)."""
    return '"' + b[:40].decode("utf-8", "replace") + ('..."' if len(b) > 40 else '"')


def _hex_status(text_match, digits):
    """None if ``digits`` (the field) is a hexadecimal id, else the reason and the problem."""
    if not text_match:
        return "categorical_not_hex", "is not hexadecimal"
    if len(digits.lstrip(b"0" if isinstance(digits, bytes) else "0")) > 16:
        return "categorical_overflow", "does not fit in 64 bits"
    return None


def _digit_table(digits):
    table = np.full(256, 255, dtype=np.uint8)
    for value, chars in enumerate(digits):
        for ch in chars:
            table[ord(ch)] = value
    return table


_DECIMAL_DIGIT = _digit_table("0123456789")
_HEX_DIGIT = _digit_table([c + c.upper() for c in "0123456789abcdef"])


def _bytes_of(texts, lengths, widest):
    """The (rows, columns, widest) byte matrix of a matrix of texts, zero-padded (a text longer
    than ``widest`` is cut: its row is bad anyway)."""
    rows, columns = texts.shape
    width = texts.dtype.itemsize
    m = np.ascontiguousarray(texts).view(np.uint8).reshape(rows, columns, width)
    if width > widest:
        return m[:, :, :widest]
    return m


def _decimals(texts, lengths):
    """Label and dense texts (a matrix of byte strings, rows by columns) as int64 values, the
    missing ones (empty), and the rows with a text that is no 32-bit decimal integer with an
    optional sign (or of 12 bytes or more, leading zeros perhaps: ``read`` decides those)."""
    m = _bytes_of(texts, lengths, 11)
    first = m[:, :, 0] if m.shape[2] else np.zeros(lengths.shape, dtype=np.uint8)
    signed = ((first == ord("-")) | (first == ord("+"))) & (lengths > 0)
    digits = _DECIMAL_DIGIT[m].astype(np.int64)
    at = np.arange(m.shape[2])
    inside = (at >= signed[:, :, None]) & (at < lengths[:, :, None])   # the digits' places
    wrong = (lengths > 11) | (signed & (lengths == 1)) | (inside & (digits == 255)).any(axis=2)
    power = np.where(inside, np.clip(lengths[:, :, None] - 1 - at, 0, 18), 0)
    values = np.where(inside, digits * _POWERS_OF_TEN[power], 0).sum(axis=2)
    values = np.where(first == ord("-"), -values, values)
    wrong |= (values < _INT32_MIN) | (values > _INT32_MAX)
    return values, lengths == 0, wrong.any(axis=1)


_POWERS_OF_TEN = np.array([10 ** k for k in range(19)], dtype=np.int64)


def _hexadecimals(texts, lengths):
    """Categorical texts (a matrix) as uint64 ids, the missing ones, and the rows with a text
    that is no hexadecimal id (or of 17 bytes or more: ``read`` decides those)."""
    m = _bytes_of(texts, lengths, 16)
    digits = _HEX_DIGIT[m].astype(np.uint64)
    at = np.arange(m.shape[2])
    inside = at < lengths[:, :, None]
    wrong = (lengths > 16) | (inside & (digits == 255)).any(axis=2)
    shift = (np.clip(lengths[:, :, None] - 1 - at, 0, 15) * 4).astype(np.uint64)
    values = np.bitwise_or.reduce(np.where(inside, digits << shift, _U(0)), axis=2)
    return values, lengths == 0, wrong.any(axis=1)


def _scalar_column(values, dtype):
    """A list of values, None where missing, as (values, missing) arrays."""
    missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    return np.array([0 if v is None else v for v in values], dtype=dtype), missing


def _take(column, positions):
    """The rows ``positions`` of a column: (values, missing) arrays, or a list of lists."""
    if isinstance(column, tuple):
        positions = np.asarray(positions, dtype=np.int64)
        return column[0][positions], column[1][positions]
    return [column[p] for p in positions]


def _join(a, b):
    if isinstance(a, tuple):
        return np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])
    return a + b


class _Reader:
    """Reads a request's records into columns: per field, its good records' values ((values,
    missing) arrays for a scalar column, a list of id lists (None where missing) for a list
    column), the records' event times, and the dead letters, in record order."""

    def read_block(self, records, fields):
        rows, times, dead = [], [], []
        for r, record in enumerate(records):
            values = [None] * fields
            try:
                times.append(self.read(record, values))
            except _Reject as e:
                dead.append((r, e.reason, e.detail))
                continue
            rows.append(values)
        columns = [list(c) for c in zip(*rows)] if rows else [[] for _ in range(fields)]
        for f, col in enumerate(self.spec.columns):
            if col.kind != "list":
                columns[f] = _scalar_column(
                    columns[f], np.int64 if col.kind in ("label", "dense") else np.uint64)
        return columns, times, dead


class _TextReader(_Reader):
    """Criteo text (CriteoDecoder's rules): tab-separated fields, left to right.

    ``read_block`` reads a request column by column where it can: lines of ASCII with the
    layout's number of fields are split at once, and each column's texts are checked by one
    regular expression over all of them and converted in one comprehension; a line any of whose
    fields fails, or that is not such a line, is read alone by ``read`` for the reason of its
    first bad field, as the feed's decoder names it."""

    def __init__(self, spec):
        self.spec = spec
        self.input_fields = 1 + spec.dense + spec.sparse
        # the fields of a line: the layout's without the generated ones
        self.fields = list(range(1 + spec.dense)) + list(range(spec.width, len(spec.columns)))
        self.generates = {}
        for g, source in enumerate(spec.generated):
            self.generates.setdefault(source, []).append(1 + spec.dense + g)

    def read_block(self, records, fields):
        spec = self.spec
        fast, parts, alone = [], [], []
        for r, line in enumerate(records):
            if (line and len(line) <= spec.max_line_bytes and line.isascii()
                    and b"\0" not in line):
                split = line.split(b"\t")
                if len(split) == self.input_fields:
                    fast.append(r)
                    parts.append(split)
                    continue
            alone.append(r)
        values = [None] * fields
        if fast:
            texts = np.array(parts)
            lengths = np.char.str_len(texts)
            bad = np.zeros(len(fast), dtype=bool)
            for kinds, parse in ((("label", "dense"), _decimals), (("sparse",), _hexadecimals)):
                at = [i for i, f in enumerate(self.fields) if spec.columns[f].kind in kinds]
                if not at:
                    continue
                parsed, missing, wrong = parse(texts[:, at], lengths[:, at])
                bad |= wrong
                for k, i in enumerate(at):
                    f = self.fields[i]
                    values[f] = (parsed[:, k], missing[:, k])
                    for g in self.generates.get(f, ()):
                        values[g] = values[f]
            for i, f in enumerate(self.fields):
                col = spec.columns[f]
                if col.kind == "list":
                    values[f] = out = []
                    for p, t in enumerate(texts[:, i].tolist()):
                        try:
                            out.append(self._list(col, t))
                        except _Reject:
                            out.append(None)
                            bad[p] = True
            if bad.any():
                alone += [fast[p] for p in np.flatnonzero(bad)]
                keep = np.flatnonzero(~bad)
                fast = [fast[p] for p in keep]
                values = [_take(v, keep) for v in values]
        else:
            values = [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
                      if c.kind in ("label", "dense") else [] if c.kind == "list"
                      else (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=bool))
                      for c in spec.columns]
        if not alone:
            return values, [None] * len(fast), []
        # the others, one by one; then every good record in record order
        columns, _, dead = super().read_block([records[r] for r in alone], fields)
        failed = {d[0] for d in dead}
        got = [alone[k] for k in range(len(alone)) if k not in failed]
        dead = [(alone[d[0]], d[1], d[2]) for d in dead]
        order = sorted(range(len(fast) + len(got)), key=(fast + got).__getitem__)
        values = [_take(_join(v, c), order) for v, c in zip(values, columns)]
        return values, [None] * len(order), sorted(dead)

    def read(self, line, values):
        spec = self.spec
        if not line:
            raise _Reject("empty_line", "the line is empty")
        if len(line) > spec.max_line_bytes:
            raise _Reject("line_too_long", f"line has {len(line)} bytes; the limit is"
                          f" {spec.max_line_bytes}")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise _Reject("invalid_utf8", "the line is not valid UTF-8") from None
        parts = line.split(b"\t")
        if len(parts) > self.input_fields or (len(parts) < self.input_fields
                                              and not spec.pad_missing):
            raise _Reject("wrong_field_count", f"expected {self.input_fields} tab-separated"
                          f" fields, found {len(parts)}")
        for i, f in enumerate(self.fields):
            text = parts[i] if i < len(parts) else b""
            col = spec.columns[f]
            if col.kind in ("label", "dense"):
                v = None
                if text:
                    if not _DIGITS.fullmatch(text) or not (
                            _INT32_MIN <= int(text) <= _INT32_MAX):
                        raise _Reject("label_not_int32" if f == 0 else "dense_not_int32",
                                      f"{col.name}: {_quote(text)} is not a 32-bit integer")
                    v = int(text)
                values[f] = v
                for g in self.generates.get(f, ()):
                    values[g] = v
            elif col.kind == "list":
                values[f] = self._list(col, text)
            elif text:
                status = _hex_status(_HEX.fullmatch(text), text)
                if status:
                    raise _Reject(status[0], f"{col.name}: {_quote(text)} {status[1]}")
                values[f] = int(text, 16)

    def _list(self, col, text):
        if not text:
            return None
        ids = []
        for i, item in enumerate(text.split(self.spec.list_separator), 1):
            status = _hex_status(_HEX.fullmatch(item), item) if item else (
                "categorical_not_hex", "is empty")
            if status:
                raise _Reject(status[0], f"{col.name}: id {i} of the list, {_quote(item)},"
                              f" {status[1]}")
            ids.append(int(item, 16))
        return ids


class _Obj(list):
    """A JSON object as its (name, value) pairs, in the event's order (a field may repeat)."""


class _Int(int):
    text = ""


class _Float(float):
    text = ""


def _parse_int(s):
    v = _Int(s)
    v.text = s
    return v


def _parse_float(s):
    v = _Float(s)
    v.text = s
    return v


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON value")


def _kind(v):
    if isinstance(v, _Obj):
        return "a record"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number with a fraction"
    return "null"


def _clip(s):
    return s if len(s) <= _QUOTED_CHARS else s[:_QUOTED_CHARS] + "..."


def _text_of(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return getattr(v, "text", None) or str(v)


def _quoted(v):
    if isinstance(v, list):   # a record or an array: nothing quoted (JsonValues.quoted)
        return ""
    return f'"{_clip(v)}"' if isinstance(v, str) else _clip(_text_of(v))


class _PathNode:
    def __init__(self):
        self.targets, self.fields, self.elements = [], None, None


class _JsonReader(_Reader):
    """JSON events (JsonEventDecoder's rules): each column reads its path, in the event's order;
    the first value a column cannot hold names the line."""

    TIME = -1

    def __init__(self, spec):
        self.spec = spec
        self.root = _PathNode()
        self.paths = {}
        for f, col in enumerate(spec.columns):
            self._add(col.path, f)
        if spec.time_path:
            self._add(spec.time_path, self.TIME)
        self.unit = spec.time_unit

    def _add(self, path, f):
        self.paths[f] = path
        node = self.root
        for name, index in _segments(path):
            if name is not None:
                node.fields = node.fields if node.fields is not None else {}
                node = node.fields.setdefault(name, _PathNode())
            else:
                node.elements = node.elements if node.elements is not None else {}
                node = node.elements.setdefault(index, _PathNode())
        node.targets.append(f)

    def column(self, f):
        if f == self.TIME:
            return f"the event time ({self.paths[f]})"
        return f"{self.spec.columns[f].name} ({self.paths[f]})"

    def read(self, line, values):
        spec = self.spec
        if len(line) > spec.max_line_bytes:
            raise _Reject("line_too_long", f"line has {len(line)} bytes; the limit is"
                          f" {spec.max_line_bytes}")
        if not line.strip(b" \t"):
            raise _Reject("empty_line", "the line is empty")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise _Reject("invalid_utf8", "the line is not valid UTF-8") from None
        first = _FIRST_TOKEN.match(text)
        if first and not first.group(1):   # a value, but no object: named without parsing on
            kind = ("an array" if first.group(2) else "a string" if first.group(3)
                    else "a boolean" if first.group(5) else "null" if first.group(6)
                    else "a number with a fraction" if first.group(4) else "an integer")
            raise _Reject("invalid_json", f"the line is {kind}, not a JSON object")
        try:
            event = json.loads(text, object_pairs_hook=_Obj, parse_int=_parse_int,
                               parse_float=_parse_float, parse_constant=_no_constant)
        except json.JSONDecodeError as e:
            detail = (f"content after the JSON object, at column {e.colno}"
                      if e.msg == "Extra data" else f"{e.msg} (column {e.colno})")
            raise _Reject("invalid_json", detail) from None
        except ValueError as e:
            raise _Reject("invalid_json", str(e)) from None
        if not isinstance(event, _Obj):
            raise _Reject("invalid_json", f"the line is {_kind(event)}, not a JSON object")
        self.time = None
        self._object(event, self.root, values)
        if spec.time_path and self.time is None:
            raise _Reject("bad_timestamp", f"{self.column(self.TIME)} is missing")
        return self.time

    def _object(self, pairs, node, values):
        for name, v in pairs:
            child = node.fields.get(name) if node.fields else None
            if child is not None:
                self._value(v, child, values)

    def _value(self, v, node, values):
        if v is None:
            return   # missing, as if absent
        if node.targets:
            self._targets(v, node.targets, values)
        elif isinstance(v, _Obj) and node.fields is not None:
            self._object(v, node, values)
        elif isinstance(v, list) and not isinstance(v, _Obj) and node.elements is not None:
            for i, item in enumerate(v):
                child = node.elements.get(i)
                if child is not None:
                    self._value(item, child, values)
        else:
            f = self._first(node)
            raise _Reject("bad_timestamp" if f == self.TIME else "wrong_type",
                          f"{self.column(f)}: the event's \"{self._prefix(f, node)}\" is"
                          f" {_kind(v)}"
                          + (", not a record" if node.fields is not None else ", not an array"))

    def _first(self, node):
        if node.targets:
            return node.targets[0]
        for child in list((node.fields or {}).values()) + list((node.elements or {}).values()):
            return self._first(child)

    def _prefix(self, f, node):
        out, n = "", self.root
        for name, index in _segments(self.paths[f]):
            if n is node:
                break
            out += (("." if out else "") + name) if name is not None else f"[{index}]"
            n = n.fields[name] if name is not None else n.elements[index]
        return out

    def _targets(self, v, targets, values):
        cols = self.spec.columns
        if isinstance(v, _Obj):
            f = targets[0]
            raise _Reject("bad_timestamp" if f == self.TIME else "wrong_type",
                          f"{self.column(f)}: a record, not a value")
        if isinstance(v, list):
            first = None
            for f in targets:
                if f == self.TIME:
                    raise _Reject("bad_timestamp", f"{self.column(f)}: an array where a time"
                                  " belongs")
                if cols[f].kind != "list":
                    raise _Reject("wrong_type", f"{self.column(f)}: an array, but the column"
                                  " holds one value, not a list")
                if first is None:
                    first = []
                    for i, item in enumerate(v):
                        if item is None:
                            raise _Reject("categorical_not_hex",
                                          f"{self.column(f)} id {i + 1} of the list is null")
                        first.append(self._id(item, f, i))
                values[f] = list(first) if first else None   # [] takes the fill
            return
        for f in targets:
            if f == self.TIME:
                self._time(v)
            elif cols[f].kind in ("label", "dense"):
                values[f] = self._int(v, f)
            elif cols[f].kind == "list":
                raise _Reject("wrong_type", f"{self.column(f)}: {_kind(v)} {_quoted(v)}, but"
                              " the column is a list")
            else:
                values[f] = self._id(v, f, -1)

    def _int(self, v, f):
        range_reason = "label_not_int32" if f == 0 else "dense_not_int32"
        if isinstance(v, bool):
            return 1 if v else 0
        if isinstance(v, int):
            if not _INT32_MIN <= v <= _INT32_MAX:
                raise _Reject(range_reason, f"{self.column(f)}: {_text_of(v)} is not a 32-bit"
                              " integer")
            return int(v)
        if isinstance(v, float):
            if not (math.isfinite(v) and v == round(v) and _INT32_MIN <= v <= _INT32_MAX):
                raise _Reject(range_reason, f"{self.column(f)}: {_text_of(v)} is not a 32-bit"
                              " integer (dense columns decode int32)")
            return int(v)
        if isinstance(v, str):
            if not v:
                return None
            if not _DECIMAL.fullmatch(v) or not _INT32_MIN <= int(v) <= _INT32_MAX:
                raise _Reject(range_reason, f"{self.column(f)}: \"{_clip(v)}\" is not a 32-bit"
                              " decimal integer")
            return int(v)
        raise _Reject("wrong_type", f"{self.column(f)}: {_kind(v)} where a number or a boolean"
                      " belongs")

    def _id(self, v, f, element):
        where = "" if element < 0 else f" id {element + 1} of the list"
        col = self.spec.columns[f]
        if isinstance(v, int) and not isinstance(v, bool):
            if not -(1 << 63) <= v <= _MASK:
                raise _Reject("categorical_overflow", f"{self.column(f)}{where}:"
                              f" {_clip(str(int(v)))} is beyond 64 bits")
            return int(v) & _MASK
        if isinstance(v, str):
            if not v:
                if element >= 0:
                    raise _Reject("categorical_not_hex", f"{self.column(f)}{where} is an empty"
                                  " text")
                return None
            if col.hashes:
                return _xxh64(v.encode("utf-8", "replace"))
            status = _hex_status(_HEX_TEXT.fullmatch(v), v)
            if status:
                raise _Reject(status[0], f"{self.column(f)}{where}: \"{_clip(v)}"
                              + ("\" is beyond 64 bits" if status[0] == "categorical_overflow"
                                 else "\" is not hexadecimal (hex2int; hash64 takes any text)"))
            return int(v, 16)
        raise _Reject("wrong_type", f"{self.column(f)}{where}: {_kind(v)} {_quoted(v)} where an"
                      " integer or a string id belongs")

    def _time(self, v):
        column = self.column(self.TIME)
        if isinstance(v, str):
            if not v:
                return
            ms = _millis_text(v, self.unit)
            if ms is None:
                raise _Reject("bad_timestamp", f"{column}: {_why_not_time(v, self.unit)}")
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            ms = _millis_number(v, self.unit)
            if ms is None:
                raise _Reject("bad_timestamp", f"{column}: {_clip(_text_of(v))} is out of range"
                              f" as {self.unit}")
        else:
            raise _Reject("bad_timestamp", f"{column}: {_kind(v)} where a time belongs")
        self.time = ms


class _CsvReader(_Reader):
    """CSV lines (CsvEventDecoder's rules): RFC 4180 fields of ``input.columns``, each line
    rewritten as a line of Criteo text in the layout's order (a ``hash64`` column's text as its
    key in hexadecimal) and read by the text reader, whose details then name the CSV column
    beside the layout's (``C2 (item): "zz" is not hexadecimal``)."""

    def __init__(self, spec):
        self.spec = spec
        self.text = _TextReader(spec)
        index = {name: i for i, name in enumerate(spec.csv_columns)}
        self.source = [index[spec.columns[f].path] for f in self.text.fields]
        self.named = {c.name: c.name if c.path == c.name else f"{c.name} ({c.path})"
                      for c in spec.columns}
        self.time_column = index[spec.time_path] if spec.time_path else None
        self.time_name = f"the event time ({spec.time_path})" if spec.time_path else None

    def read(self, line, values):
        spec = self.spec
        if len(line) > spec.max_line_bytes:
            raise _Reject("line_too_long", f"line has {len(line)} bytes; the limit is"
                          f" {spec.max_line_bytes}")
        if not line:
            raise _Reject("empty_line", "the line is empty")
        fields = self._split(line)
        time = None
        if self.time_column is not None:
            text = fields[self.time_column]
            if not text:
                raise _Reject("bad_timestamp", f"{self.time_name} is missing")
            time = _millis_text(text.decode("utf-8"), spec.time_unit)
            if time is None:
                raise _Reject("bad_timestamp", f"{self.time_name}:"
                              f" {_why_not_time(text.decode('utf-8'), spec.time_unit)}")
        out = []
        for f, c in zip(self.text.fields, self.source):
            col, v = spec.columns[f], fields[c]
            if not col.hashes:
                out.append(v.replace(b"\t", b" ").replace(b"\n", b" ").replace(b"\r", b" "))
            elif col.kind != "list":
                out.append(b"%016x" % _xxh64(v) if v else b"")
            else:
                sep = spec.list_separator
                out.append(sep.join(b"%016x" % _xxh64(x) if x else b"" for x in v.split(sep))
                           if v else b"")
        try:
            self.text.read(b"\t".join(out), values)
        except _Reject as e:
            name, colon, rest = e.detail.partition(":")
            if colon and name in self.named:
                raise _Reject(e.reason, self.named[name] + ":" + rest) from None
            raise
        return time

    def _split(self, line):
        """The line's fields, quotes undone (CsvEventDecoder.split's rules and reasons)."""
        spec, delim, fields, p, e = self.spec, self.spec.delimiter, [], 0, len(line)
        while True:
            if p < e and line[p:p + 1] == b'"':
                p += 1
                value = b""
                while True:
                    q = line.find(b'"', p)
                    if q < 0:
                        raise _Reject("invalid_csv", f"{self._column(len(fields))}: a quoted"
                                      " field does not end on its line")
                    value += line[p:q]
                    if line[q + 1:q + 2] == b'"':
                        value += b'"'
                        p = q + 2
                        continue
                    p = q + 1
                    break
                if p < e and line[p:p + 1] != delim:
                    stray = p
                    while stray < e and stray - p < 16 and line[stray:stray + 1] != delim:
                        stray += 1
                    raise _Reject("invalid_csv", f"{self._column(len(fields))}:"
                                  f" {_quote(line[p:stray])} after the closing quote, where a"
                                  " delimiter belongs")
            else:
                q = line.find(delim, p)
                q = e if q < 0 else q
                value = line[p:q]
                if b'"' in value:
                    raise _Reject("invalid_csv", f"{self._column(len(fields))}: a quote inside"
                                  " an unquoted field (RFC 4180 quotes a whole field, and doubles"
                                  " a quote inside it)")
                p = q
            fields.append(value)
            if p >= e:
                break
            p += 1
            if p == e:
                fields.append(b"")
                break
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                raise _Reject("invalid_utf8", "the line is not valid UTF-8") from None
        columns = len(spec.csv_columns)
        if len(fields) < columns and spec.pad_missing:
            fields += [b""] * (columns - len(fields))
        if len(fields) != columns:
            shown = "tab" if spec.delimiter == b"\t" else f"'{spec.delimiter.decode()}'"
            raise _Reject("wrong_field_count", f"expected {columns} fields separated by {shown}"
                          f" (input.columns), found {len(fields)}")
        return fields

    def _column(self, c):
        columns = self.spec.csv_columns
        return (f"column {c + 1} ({columns[c]})" if c < len(columns)
                else f"column {c + 1} (beyond input.columns)")


class _Malformed(Exception):
    """A datum that breaks its schema's binary encoding (invalid_avro)."""


class _TypedValues:
    """The typed values of a binary event put into the columns that read them, by the rules JSON's
    values follow (Java: EventValues): the first value a column cannot hold names the event's
    dead letter, and the walk goes on to the event's end."""

    def __init__(self, reader):
        self.reader = reader
        self.spec = reader.spec

    def start(self, values):
        self.values, self.reason, self.detail, self.time = values, None, None, None

    def fail(self, reason, detail):
        if self.reason is None:
            self.reason, self.detail = reason, detail

    def column(self, f):
        return self.reader.column(f)

    def _kind(self, f):
        return self.spec.columns[f].kind

    def _range(self, f):
        return "label_not_int32" if f == 0 else "dense_not_int32"

    def boolean(self, targets, v):
        for f in targets:
            if f == _JsonReader.TIME:
                self.fail("bad_timestamp", f"{self.column(f)}: a boolean where a time belongs")
            elif self._kind(f) in ("label", "dense"):
                self.values[f] = 1 if v else 0
            else:
                self.fail("wrong_type", f"{self.column(f)}: a boolean where an integer or a"
                          " string id belongs")

    def integer(self, targets, v):
        for f in targets:
            if f == _JsonReader.TIME:
                self._set_time(_millis_number(v, self.spec.time_unit), str(v))
            elif self._kind(f) in ("label", "dense"):
                if not _INT32_MIN <= v <= _INT32_MAX:
                    self.fail(self._range(f), f"{self.column(f)}: {v} is not a 32-bit integer")
                else:
                    self.values[f] = v
            elif self._kind(f) == "list":
                self.fail("wrong_type", f"{self.column(f)}: {v}, but the column is a list")
            else:
                self.values[f] = v & _MASK

    def real(self, targets, v, type_name):
        for f in targets:
            if f == _JsonReader.TIME:
                self._set_time(_millis_number(v, self.spec.time_unit), _java_double(v))
            elif self._kind(f) not in ("label", "dense"):
                self.fail("wrong_type", f"{self.column(f)}: {_java_double(v)} (a {type_name})"
                          " where an integer or a string id belongs")
            elif not (math.isfinite(v) and v == round(v) and _INT32_MIN <= v <= _INT32_MAX):
                self.fail(self._range(f), f"{self.column(f)}: {_java_double(v)} is not a 32-bit"
                          " integer (dense columns decode int32)")
            else:
                self.values[f] = int(v)

    def text(self, targets, b):
        for f in targets:
            if f == _JsonReader.TIME:
                if b:
                    text = b.decode("utf-8", "replace")
                    ms = _millis_text(text, self.spec.time_unit)
                    if ms is None:
                        self.fail("bad_timestamp",
                                  f"{self.column(f)}: {_why_not_time(text, self.spec.time_unit)}")
                    else:
                        self.time = ms
            elif self._kind(f) in ("label", "dense"):
                if b:
                    if not _DIGITS.fullmatch(b) or not _INT32_MIN <= int(b) <= _INT32_MAX:
                        self.fail(self._range(f), f"{self.column(f)}: \"{_clip_bytes(b)}\" is"
                                  " not a 32-bit decimal integer")
                    else:
                        self.values[f] = int(b)
            elif self._kind(f) == "list":
                self.fail("wrong_type", f"{self.column(f)}: a string \"{_clip_bytes(b)}\", but"
                          " the column is a list")
            elif b:
                self.values[f] = self._id(f, b, "")

    def not_a_value(self, targets, what):
        f = targets[0]
        if f == _JsonReader.TIME:
            self.fail("bad_timestamp", f"{self.column(f)}: {what} where a time belongs")
        else:
            self.fail("wrong_type", f"{self.column(f)}: {what}, not a value")

    def start_list(self, targets):
        first = None
        for f in targets:
            if f == _JsonReader.TIME:
                self.fail("bad_timestamp", f"{self.column(f)}: an array where a time belongs")
            elif self._kind(f) != "list":
                self.fail("wrong_type", f"{self.column(f)}: an array, but the column holds one"
                          " value, not a list")
            elif first is None:
                first = f
        if first is not None:
            self.values[first] = []
        return first

    def list_integer(self, f, v):
        self.values[f].append(v & _MASK)

    def list_text(self, f, i, b):
        if not b:
            self.fail("categorical_not_hex", f"{self.column(f)} id {i + 1} of the list is an"
                      " empty text")
            return
        key = self._id(f, b, f" id {i + 1} of the list")
        self.values[f].append(0 if key is None else key)

    def list_null(self, f, i):
        self.fail("categorical_not_hex", f"{self.column(f)} id {i + 1} of the list is null")

    def list_wrong_type(self, f, i, type_name):
        self.fail("wrong_type", f"{self.column(f)} id {i + 1} of the list: of type {type_name}"
                  " where an integer or a string id belongs")

    def end_list(self, targets, first):
        ids = self.values[first]
        for f in targets:
            if f != _JsonReader.TIME and self._kind(f) == "list":
                self.values[f] = list(ids) if ids else None   # an empty list takes the fill

    def _id(self, f, b, where):
        if self.spec.columns[f].hashes:
            return _xxh64(b)
        status = _hex_status(_HEX.fullmatch(b), b)
        if status:
            self.fail(status[0], f"{self.column(f)}{where}: \"{_clip_bytes(b)}"
                      + ("\" is beyond 64 bits" if status[0] == "categorical_overflow"
                         else "\" is not hexadecimal (hex2int; hash64 takes any text)"))
            return None
        return int(b, 16)

    def _set_time(self, ms, shown):
        if ms is None:
            self.fail("bad_timestamp", f"{self.column(_JsonReader.TIME)}: {shown} is out of"
                      f" range as {self.spec.time_unit}")
        else:
            self.time = ms


def _clip_bytes(b):
    return _clip(b.decode("utf-8", "replace"))


def _java_double(v):
    """A double as Java's Double.toString writes it, for the values details show."""
    if v == int(v) and abs(v) < 1e7:
        return f"{v:.1f}"
    return repr(v)


class _AvroReader(_JsonReader):
    """Avro datums in the binary encoding of ``input.schema`` (Java: AvroEventDecoder): each
    column's path walked in the schema's order, unions by their branch; a datum that breaks the
    encoding is ``invalid_avro`` (its detail this reader's words). The datums are read here, by
    the schema, rather than by the avro package: serving needs each value's Avro type (a float
    and a double name themselves in details, an int beyond 32 bits is malformed) and the exact
    end of the datum, which that package's reader does not give."""

    def __init__(self, spec):
        super().__init__(spec)
        if spec.schema_registry:
            raise TransformError(f"{spec.where}: input.schema_registry: records in Confluent's wire"
                                 " format; give the writer schema as input.schema to serve bare"
                                 " datums, or serve them with piper serve")
        if spec.schema is None:
            raise TransformError(f"{spec.where}: an avro spec needs input.schema to serve datums")
        self.schema = _avro_schema(spec.schema, {}, "")
        self.typed = _TypedValues(self)

    def read(self, record, values):
        self.buf, self.pos, self.typed_values = record, 0, values
        self.typed.start(values)
        try:
            self._read(self.schema, self.root, "")
            if self.pos != len(record):
                raise _Malformed(f"{len(record) - self.pos} bytes after the datum's end")
        except _Malformed as e:
            raise _Reject("invalid_avro", str(e)) from None
        t = self.typed
        if t.reason is None and self.spec.time_path and t.time is None:
            t.fail("bad_timestamp", f"{self.column(self.TIME)} is missing")
        if t.reason is not None:
            raise _Reject(t.reason, t.detail)
        return t.time

    def _long(self, at):
        raw = shift = 0
        while True:
            if self.pos >= len(self.buf):
                raise _Malformed(f"the datum ends early, reading {at or 'the record'}")
            x = self.buf[self.pos]
            self.pos += 1
            raw |= (x & 0x7F) << shift
            if x < 0x80:
                break
            shift += 7
            if shift > 63:
                raise _Malformed(f"\"{at}\" has a varint longer than 10 bytes")
        raw &= _MASK
        v = (raw >> 1) ^ -(raw & 1)
        return v - (1 << 64) if v >= 1 << 63 else v

    def _bytes(self, n, at):
        if n < 0 or self.pos + n > len(self.buf):
            raise _Malformed(f"the datum ends early, reading {at or 'the record'}")
        self.pos += n
        return self.buf[self.pos - n:self.pos]

    def _branch(self, schema, at):
        b = self._long(at)
        if not 0 <= b < len(schema["branches"]):
            raise _Malformed(f"\"{at}\" has union branch {b}; its schema has"
                             f" {len(schema['branches'])}")
        return schema["branches"][b]

    def _blocks(self, at):
        """Yields once per item of an array or map, block after block."""
        while True:
            n = self._long(at)
            if n == 0:
                return
            if n < 0:
                self._long(at)   # the block's byte size
                n = -n
            for _ in range(n):
                yield

    def _read(self, schema, node, at):
        t = schema["t"]
        if node is not None and node.targets:
            return self._targets(schema, node.targets, at)
        if t == "union":
            return self._read(self._branch(schema, at), node, at)
        if node is None or t == "null":
            return self._skip(schema, at)
        if t == "record" and node.fields is not None:
            for name, field in schema["fields"]:
                self._read(field, node.fields.get(name), f"{at}.{name}" if at else name)
        elif t == "map" and node.fields is not None:
            for _ in self._blocks(at):
                key = self._bytes(self._long(at), at).decode("utf-8", "replace")
                self._read(schema["values"], node.fields.get(key), f"{at}.{key}")
        elif t == "array" and node.elements is not None:
            for i, _ in enumerate(self._blocks(at)):
                self._read(schema["items"], node.elements.get(i), f"{at}[{i}]")
        else:
            f = self._first(node)
            self.typed.fail("bad_timestamp" if f == self.TIME else "wrong_type",
                            f"{self.column(f)}: the event's \"{at}\" is {_avro_kind(schema)},"
                            + (" not a record" if node.fields is not None else " not an array"))
            self._skip(schema, at)

    def _targets(self, schema, targets, at):
        v = self.typed
        while schema["t"] == "union":
            schema = self._branch(schema, at)
        t = schema["t"]
        if t == "null":
            return
        if t in ("record", "map"):
            v.not_a_value(targets, "a record" if t == "record" else "a map")
            return self._skip(schema, at)
        if t == "array":
            first = v.start_list(targets)
            if first is None:
                return self._skip(schema, at)
            for i, _ in enumerate(self._blocks(at)):
                self._item(schema["items"], first, i, at)
            return v.end_list(targets, first)
        if t == "boolean":
            b = self._bytes(1, at)[0]
            if b not in (0, 1):
                raise _Malformed(f"\"{at}\" has boolean byte {b}")
            return v.boolean(targets, b == 1)
        if t in ("int", "long"):
            n = self._long(at)
            if t == "int" and not _INT32_MIN <= n <= _INT32_MAX:
                raise _Malformed(f"\"{at}\" has an int beyond 32 bits: {n}")
            return v.integer(targets, n)
        if t in ("float", "double"):
            size = 4 if t == "float" else 8
            x = np.frombuffer(self._bytes(size, at), dtype="<f4" if size == 4 else "<f8")[0]
            return v.real(targets, float(x), t)
        v.text(targets, self._text(schema, at))

    def _text(self, schema, at):
        t = schema["t"]
        if t == "enum":
            i = self._long(at)
            if not 0 <= i < len(schema["symbols"]):
                raise _Malformed(f"\"{at}\" has enum symbol {i}; its schema has"
                                 f" {len(schema['symbols'])}")
            return schema["symbols"][i].encode()
        if t == "fixed":
            return self._bytes(schema["size"], at)
        return self._bytes(self._long(at), at)   # string, bytes

    def _item(self, schema, f, i, at):
        v = self.typed
        t = schema["t"]
        if t == "union":
            return self._item(self._branch(schema, at), f, i, at)
        if t in ("int", "long"):
            return v.list_integer(f, self._long(at))
        if t in ("string", "bytes", "fixed", "enum"):
            return v.list_text(f, i, self._text(schema, at))
        if t == "null":
            return v.list_null(f, i)
        v.list_wrong_type(f, i, t)
        self._skip(schema, at)

    def _skip(self, schema, at):
        t = schema["t"]
        if t == "union":
            self._skip(self._branch(schema, at), at)
        elif t == "record":
            for name, field in schema["fields"]:
                self._skip(field, at)
        elif t == "array":
            for _ in self._blocks(at):
                self._skip(schema["items"], at)
        elif t == "map":
            for _ in self._blocks(at):
                self._bytes(self._long(at), at)
                self._skip(schema["values"], at)
        elif t in ("int", "long", "enum"):
            self._long(at)
        elif t == "boolean":
            self._bytes(1, at)
        elif t in ("float", "double"):
            self._bytes(4 if t == "float" else 8, at)
        elif t == "fixed":
            self._bytes(schema["size"], at)
        elif t in ("string", "bytes"):
            self._bytes(self._long(at), at)


# Protobuf's field types (descriptor.proto's FieldDescriptorProto.Type) and their wire types
_PB_WIRE = {1: 1, 6: 1, 16: 1, 2: 5, 7: 5, 15: 5, 9: 2, 12: 2, 11: 2, 10: 3}
_PB_NAMES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
             7: "fixed32", 8: "bool", 9: "string", 10: "group", 11: "message", 12: "bytes",
             13: "uint32", 14: "enum", 15: "sfixed32", 16: "sfixed64", 17: "sint32",
             18: "sint64"}


def _signed(raw, bits):
    return raw - (1 << bits) if raw >= 1 << (bits - 1) else raw


class _ProtobufReader(_JsonReader):
    """Protobuf messages of ``input.message`` (Java: ProtobufEventDecoder): the wire read field
    by field in its order, packed or not, a nested message's fields merged across occurrences; a
    message that breaks the wire format is ``invalid_protobuf`` (its detail this reader's words).
    The descriptors come from the descriptor set through the protobuf package; the wire is read
    here, as the Java decoder reads it, for each value's declared type and the order of the
    message's fields, which the package's parsed messages do not keep."""

    def __init__(self, spec):
        super().__init__(spec)
        from google.protobuf import descriptor_pb2, descriptor_pool
        files = descriptor_pb2.FileDescriptorSet()
        try:
            with open(spec.descriptor, "rb") as f:
                files.ParseFromString(f.read())
            pool = descriptor_pool.DescriptorPool()
            for proto in files.file:
                pool.Add(proto)
            root = pool.FindMessageTypeByName(spec.message)
        except Exception as e:   # a file the package cannot read, or no such message
            raise TransformError(f"{spec.where}: input.descriptor {spec.descriptor}, message"
                                 f" {spec.message}: {e}") from None
        self.plan = self._compile(root, self.root, "")
        self.typed = _TypedValues(self)

    def _compile(self, d, node, at):
        m = {"name": d.full_name, "fields": {}, "counted": 0, "lists": []}
        for name, child in (node.fields or {}).items():
            fd = d.fields_by_name.get(name)
            if fd is None:
                continue   # a field the message lacks: missing
            f = self._field(fd, child, f"{at}.{name}" if at else name, False)
            if child.elements is not None and f["repeated"]:
                f["counter"] = m["counted"]
                m["counted"] += 1
            if f["first_list"] is not None:
                m["lists"].append(f)
            m["fields"][fd.number] = f
        return m

    def _field(self, fd, node, at, one):
        repeated = fd.label == fd.LABEL_REPEATED and not one
        f = {"type": fd.type, "at": at, "repeated": repeated, "targets": node.targets,
             "wire": _PB_WIRE.get(fd.type, 0), "first_list": None, "mismatch": None,
             "mismatch_field": self._first(node), "elements": None, "message": None,
             "enum": {v.number: v.name.encode() for v in reversed(fd.enum_type.values)}
             if fd.type == 14 else None}
        if repeated:
            f["first_list"] = next((t for t in node.targets if t != self.TIME
                                    and self.spec.columns[t].kind == "list"), None)
        if node.elements is not None:
            if not repeated:
                f["mismatch"] = f"a {_PB_NAMES[fd.type]}, not repeated"
            else:
                f["elements"] = {i: self._field(fd, child, f"{at}[{i}]", True)
                                 for i, child in node.elements.items()}
        elif node.fields is not None:
            if fd.type != 11:
                f["mismatch"] = f"a {_PB_NAMES[fd.type]}, not a message"
            elif repeated:
                f["mismatch"] = "a repeated message (an element, [i], is one message)"
            else:
                f["message"] = self._compile(fd.message_type, node, at)
        return f

    def read(self, record, values):
        self.buf, self.pos = record, 0
        self.typed.start(values)
        try:
            self._message(self.plan, len(record))
        except _Malformed as e:
            raise _Reject("invalid_protobuf", str(e)) from None
        t = self.typed
        if t.reason is None and self.spec.time_path and t.time is None:
            t.fail("bad_timestamp", f"{self.column(self.TIME)} is missing")
        if t.reason is not None:
            raise _Reject(t.reason, t.detail)
        return t.time

    def _varint(self, end, at):
        raw = shift = 0
        while True:
            if self.pos >= end:
                raise _Malformed(f"the message ends early, reading \"{at}\"")
            x = self.buf[self.pos]
            self.pos += 1
            raw |= (x & 0x7F) << shift
            if x < 0x80:
                return raw & _MASK
            shift += 7
            if shift > 63:
                raise _Malformed(f"\"{at}\" has a varint longer than 10 bytes")

    def _take(self, n, end, at):
        if n < 0 or n > end - self.pos:
            raise _Malformed(f"the message ends early, reading \"{at}\"")
        self.pos += n
        return self.buf[self.pos - n:self.pos]

    def _message(self, m, end):
        seen = [0] * m["counted"]
        listed = set()
        while self.pos < end:
            tag = self._varint(end, m["name"])
            number, wire = tag >> 3, tag & 7
            if number <= 0 or number > 0x1FFFFFFF:
                raise _Malformed(f"field number {number} in message {m['name']}")
            f = m["fields"].get(number)
            if f is None:
                self._skip(wire, number, end, m["name"])
            elif f["mismatch"] is not None:
                g = f["mismatch_field"]
                self.typed.fail("bad_timestamp" if g == self.TIME else "wrong_type",
                                f"{self.column(g)}: the event's \"{f['at']}\" is {f['mismatch']}")
                self._skip(wire, number, end, m["name"])
            elif f["elements"] is not None:
                if wire == 2 and f["wire"] != 2:   # packed: its items counted one by one
                    n = self._varint(end, f["at"])
                    stop = self.pos + n
                    if n > end - self.pos:
                        raise _Malformed(f"the message ends early, reading \"{f['at']}\"")
                    while self.pos < stop:
                        element = f["elements"].get(seen[f["counter"]])
                        seen[f["counter"]] += 1
                        if element is None:
                            self._skip(f["wire"], number, stop, m["name"])
                        else:
                            self._value(element, f["wire"], number, stop, m["name"])
                    continue
                element = f["elements"].get(seen[f["counter"]])
                seen[f["counter"]] += 1
                if element is None:
                    self._skip(wire, number, end, m["name"])
                else:
                    self._value(element, wire, number, end, m["name"])
            elif f["first_list"] is not None:
                if id(f) not in listed:
                    listed.add(id(f))
                    self.typed.start_list(f["targets"])
                self._list_items(f, wire, number, end, m["name"])
            else:
                self._value(f, wire, number, end, m["name"])
        if self.pos != end:
            raise _Malformed(f"message {m['name']} runs past its end")
        for f in m["lists"]:
            if id(f) in listed:
                self.typed.end_list(f["targets"], f["first_list"])

    def _check_wire(self, f, wire, expected, number, where):
        if wire != expected:
            raise _Malformed(f"field {number} ({f['at']}) has wire type {wire}, but {where}"
                             f" declares it {_PB_NAMES[f['type']]}")

    def _value(self, f, wire, number, end, where):
        v, targets, t = self.typed, f["targets"], f["type"]
        if f["message"] is not None:
            self._check_wire(f, wire, 2, number, where)
            n = self._varint(end, f["at"])
            if n > end - self.pos:
                raise _Malformed(f"the message ends early, reading \"{f['at']}\"")
            return self._message(f["message"], self.pos + n)
        if f["repeated"] and targets:
            v.start_list(targets)   # a repeated field read by columns of one value: named
            return self._skip(wire, number, end, where)
        if not targets:
            return self._skip(wire, number, end, where)
        self._check_wire(f, wire, f["wire"], number, where)
        if t in (11, 10):
            v.not_a_value(targets, "a message")
            return self._skip(wire, number, end, where)
        if t in (9, 12):
            return v.text(targets, self._take(self._varint(end, f["at"]), end, f["at"]))
        if t in (1, 2):
            return v.real(targets, self._real(t, end, f["at"]), _PB_NAMES[t])
        if t == 8:
            return v.boolean(targets, self._varint(end, f["at"]) != 0)
        if t == 14:
            raw = self._varint(end, f["at"])
            name = f["enum"].get(_signed(raw & 0xFFFFFFFF, 32))
            return v.text(targets, name) if name is not None else v.integer(
                targets, _signed(raw, 64))
        v.integer(targets, self._integer(t, end, f["at"]))

    def _real(self, t, end, at):
        raw = self._take(4 if t == 2 else 8, end, at)
        return float(np.frombuffer(raw, dtype="<f4" if t == 2 else "<f8")[0])

    def _integer(self, t, end, at):
        if t in (6, 7, 15, 16):   # fixed: unsigned 32, signed 32, 64 read as a signed long
            raw = int.from_bytes(self._take(4 if t in (7, 15) else 8, end, at), "little")
            return raw if t == 7 else _signed(raw, 32 if t == 15 else 64)
        raw = self._varint(end, at)
        if t in (17, 18):   # zigzag
            return (raw >> 1) ^ -(raw & 1)
        if t == 13:
            return raw & 0xFFFFFFFF
        if t == 5:
            return _signed(raw & 0xFFFFFFFF, 32)
        return _signed(raw, 64)   # int64, uint64: the long's bits

    def _list_items(self, f, wire, number, end, where):
        v, t, f_list = self.typed, f["type"], f["first_list"]
        count = len(v.values[f_list])
        if t in (9, 12):
            self._check_wire(f, wire, 2, number, where)
            return v.list_text(f_list, count, self._take(self._varint(end, f["at"]), end,
                                                         f["at"]))
        if f["wire"] == 2:   # a message or group: no id
            v.list_wrong_type(f_list, count, _PB_NAMES[t])
            return self._skip(wire, number, end, where)
        if wire == 2:   # packed
            n = self._varint(end, f["at"])
            if n > end - self.pos:
                raise _Malformed(f"the message ends early, reading \"{f['at']}\"")
            stop = self.pos + n
            while self.pos < stop:
                self._list_item(f, f_list, stop)
            return
        self._check_wire(f, wire, f["wire"], number, where)
        self._list_item(f, f_list, end)

    def _list_item(self, f, f_list, end):
        v, t = self.typed, f["type"]
        if t == 14:
            raw = self._varint(end, f["at"])
            name = f["enum"].get(_signed(raw & 0xFFFFFFFF, 32))
            if name is None:
                return v.list_integer(f_list, _signed(raw, 64))
            return v.list_text(f_list, len(v.values[f_list]), name)
        if t in (8, 1, 2):
            if t == 8:
                self._varint(end, f["at"])
            else:
                self._take(4 if t == 2 else 8, end, f["at"])
            return v.list_wrong_type(f_list, len(v.values[f_list]), _PB_NAMES[t])
        v.list_integer(f_list, self._integer(t, end, f["at"]))

    def _skip(self, wire, number, end, where):
        if wire == 0:
            self._varint(end, where)
        elif wire == 1:
            self._take(8, end, where)
        elif wire == 2:
            self._take(self._varint(end, where), end, where)
        elif wire == 5:
            self._take(4, end, where)
        elif wire == 3:
            while True:   # a group's fields, then its end tag
                tag = self._varint(end, where)
                if tag & 7 == 4:
                    if tag >> 3 != number:
                        raise _Malformed(f"group {number} in {where} ends as another")
                    return
                self._skip(tag & 7, tag >> 3, end, where)
        else:
            raise _Malformed(f"field {number} in {where} has wire type {wire}")


def _avro_kind(schema):
    return {"record": "a record", "map": "a map", "array": "an array"}.get(
        schema["t"], f"a {schema['t']}")


_AVRO_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def _avro_schema(node, names, namespace):
    """An Avro schema (parsed JSON) as nested dicts {"t": type, ...}, named types resolved."""
    if isinstance(node, list):
        return {"t": "union", "branches": [_avro_schema(b, names, namespace) for b in node]}
    if isinstance(node, str):
        if node in _AVRO_PRIMITIVES:
            return {"t": node}
        full = node if "." in node else (f"{namespace}.{node}" if namespace else node)
        if full in names:
            return names[full]
        if node in names:
            return names[node]
        raise TransformError(f"input.schema: unknown type \"{node}\"")
    t = node.get("type")
    if isinstance(t, (list, dict)) or (isinstance(t, str) and t not in (
            "record", "error", "enum", "array", "map", "fixed")):
        return _avro_schema(t, names, namespace)   # a primitive or a logical type's base
    name = node.get("name")
    space = node.get("namespace", namespace)
    if name and "." in name:
        space = name.rsplit(".", 1)[0]
    full = (name if not name or "." in name else (f"{space}.{name}" if space else name))
    out = {"t": "record" if t == "error" else t}
    if full:
        names[full] = out
    if t in ("record", "error"):
        out["fields"] = [(fl["name"], _avro_schema(fl["type"], names, space))
                         for fl in node.get("fields", [])]
    elif t == "enum":
        out["symbols"] = list(node.get("symbols", []))
    elif t == "array":
        out["items"] = _avro_schema(node["items"], names, namespace)
    elif t == "map":
        out["values"] = _avro_schema(node["values"], names, namespace)
    elif t == "fixed":
        out["size"] = int(node["size"])
    return out


def _segments(path):
    """A field path's segments: (name, None) or (None, index) (Java: FieldPath)."""
    out = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        out.append((name, None))
        for index in re.findall(r"\[?([0-9]+)\]", "[" + rest if rest else ""):
            out.append((None, int(index)))
    return out


def _millis_number(v, unit):
    """EventTime.millis of a number: an integer of the unit, or a fraction to the nearest ms."""
    if isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 63):
            return None
        if unit == "s":
            if v > _MAX_MILLIS // 1000 or v < -(-_MIN_MILLIS // 1000):
                return None
            ms = v * 1000
        else:
            ms = v // 1000 if unit == "us" else v
        return ms if _MIN_MILLIS <= ms <= _MAX_MILLIS else None
    ms = v * 1000 if unit == "s" else v / 1000 if unit == "us" else v
    if not _MIN_MILLIS <= ms <= _MAX_MILLIS:
        return None
    return math.floor(ms + 0.5)   # Math.round


def _millis_text(text, unit):
    if _COUNT_TEXT.fullmatch(text):
        return _millis_number(int(text), unit)
    if not _ISO.fullmatch(text):
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
        delta = t - datetime(1970, 1, 1, tzinfo=timezone.utc)
    except (ValueError, OverflowError):
        return None
    ms = delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000
    return ms if _MIN_MILLIS <= ms <= _MAX_MILLIS else None


def _why_not_time(text, unit):
    quoted = '"' + (text if len(text) <= 64 else text[:64] + "...") + '"'
    if re.fullmatch(r"-?[0-9]+", text):
        return f"{quoted} is out of range as {unit} since 1970"
    if _ISO.fullmatch(text):
        return f"{quoted} is out of range (years 1 to 9999)"
    return (f"{quoted} is neither a count of {unit} nor ISO-8601 time with an offset"
            " (2026-11-27T08:00:00Z)")


_xxh64 = None


def _need_xxhash():
    global _xxh64
    if _xxh64 is None:
        try:
            import xxhash
        except ImportError:
            raise TransformError("hash64 needs the xxhash module (Debian: apt-get install"
                                 " python3-xxhash)") from None
        _xxh64 = xxhash.xxh64_intdigest


# ---------------------------------------------------------------------------------------------
# The transform
# ---------------------------------------------------------------------------------------------

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
    """The feed's transform of a spec at a snapshot's vocabulary position. Thread-safe: it
    holds no state between requests."""

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
        self.reader = {"criteo-tsv": _TextReader, "json": _JsonReader, "csv": _CsvReader,
                       "avro": _AvroReader, "protobuf": _ProtobufReader}[spec.format](spec)
        self.lines = spec.format not in ("avro", "protobuf")   # else datums or messages
        self.tables = {}
        for col in sparse:
            for op, p in col.ops:
                if op == "mapid" and p["file"] not in self.tables:
                    self.tables[p["file"]] = _IdTable(p["file"])

    def apply_body(self, body):
        """The rows of a request's body as ``POST /transform`` takes it: records one a line, or
        for Avro each a 4-byte big-endian length then the datum (a broken frame raises
        ValueError naming the record and byte)."""
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
            if op == "modulus":
                keys = keys % _U(int(p["m"]))
            elif op == "sigrid_hash":
                keys = _sigrid(keys, p)
            elif op == "mapid":
                default = p.get("default")
                keys = self.tables[p["file"]].map(keys, None if default is None else int(default))
            elif op == "firstx":
                keys, offsets = _firstx(keys, offsets, p)
            elif op == "ngram":
                keys, offsets = _ngram(keys, offsets, p)
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
            else:   # the column's reserved index: its table size at the snapshot
                index[missing] = self.snapshot.columns[c].table_size
        return index, int(missing.sum())


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m piper_feed.transform",
        description="Transform a request's records (Criteo lines, JSON events or CSV lines, one a"
                    " line; Avro datums, length-prefixed) as the feed did, at a vocabulary snapshot, and print piper serve's"
                    " answer (JSON).")
    parser.add_argument("--spec", required=True, help="the pipeline spec (JSON file)")
    parser.add_argument("--snapshot", help="a piper vocab snapshot file")
    parser.add_argument("--request", default="-", help="the records' file (default: stdin): one"
                        " a line, or for Avro each a 4-byte big-endian length and the datum, as"
                        " piper serve takes them")
    parser.add_argument("--manifest", help="instead of --snapshot and --request: a file of JSON"
                        " lines {\"snapshot\": F, \"request\": F, \"answer\": F}, each answered"
                        " into its answer file, in one process")
    args = parser.parse_args(argv)
    try:
        spec = Spec.load(args.spec)
        if args.manifest:
            with open(args.manifest) as f:
                jobs = [json.loads(line) for line in f if line.strip()]
            for n, job in enumerate(jobs, 1):
                with open(job["request"], "rb") as f:
                    body = f.read()
                answer = Transform(spec, Snapshot.load(job["snapshot"])).apply_body(body).answer()
                with open(job["answer"], "w") as out:
                    json.dump(answer, out)
            print(f"transform: {len(jobs)} requests answered", file=sys.stderr)
            return 0
        if not args.snapshot:
            parser.error("--snapshot (or --manifest) is required")
        transform = Transform(spec, Snapshot.load(args.snapshot))
        if args.request == "-":
            body = sys.stdin.buffer.read()
        else:
            with open(args.request, "rb") as f:
                body = f.read()
    except (OSError, TransformError, KeyError, ValueError) as e:
        print(f"transform: {e}", file=sys.stderr)
        return 1
    try:
        answer = transform.apply_body(body).answer()
    except ValueError as e:
        print(f"transform: {args.request}: {e}", file=sys.stderr)
        return 1
    json.dump(answer, sys.stdout, allow_nan=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
