"""Decoding of piper stream's Kafka records (docs/SEMANTICS.md, "Kafka output").

A rows record holds one block of rows of one input partition: the rows in the ``rows.bin``
layout (little-endian int32 slots named by ``piper.row.columns``), then per list column its
rows' lengths and its values. Record format 1 (no ``piper.record.version``) is Criteo's 40
columns without lists. Format 3 adds Hotline's split after them: per sparse column its working
parameters (the non-hot indices of the non-popular rows, little-endian int32), then one byte per
row, 1 if the row is popular (every index in its window's hot set).
"""

import functools
import json
import os
import re

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CRITEO_COLUMNS = ["label"] + [f"I{i}" for i in range(1, 14)] + [f"C{i}" for i in range(1, 27)]
SUPPORTED_RECORD_VERSIONS = (1, 2, 3)


class FeedError(Exception):
    """A record that does not hold what its headers say, or a feed that cannot go on."""


def _format_path():
    """formats/rows-record.json of the checkout this client runs from (or $PIPER_FORMATS/)."""
    base = os.environ.get("PIPER_FORMATS")
    return (Path(base) if base else Path(__file__).resolve().parents[4] / "formats") \
        / "rows-record.json"


def load_rows_format(path=None):
    """The rows record's description (formats/rows-record.json), the one the Java writer and
    reader are tested against: header name -> its entry (type, count, when, since, choices)."""
    path = Path(path) if path else _format_path()
    try:
        described = json.loads(path.read_text())["headers"]
    except OSError as e:
        raise FeedError(f"cannot read the rows record's description {path}: {e.strerror}"
                        " (run the client from a piper checkout, or set PIPER_FORMATS to the"
                        " directory holding rows-record.json)") from e
    return {name: dict(entry, since=entry.get("since", 1)) for name, entry in described.items()}


ROWS_FORMAT = load_rows_format()
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_headers(h, version, where, described=None):
    """Checks a rows record's headers against the description, as the Java reader does: every
    header that is always there (from its format on), each group present together or not at
    all and not before its format, and every value of its type and count. Raises FeedError
    naming the record and the header."""
    described = described or ROWS_FORMAT
    groups = {}
    for name, d in described.items():
        present = name in h
        if d["when"] == "always":
            if not present and version >= d["since"]:
                raise FeedError(f"{where}: no {name} header (every record of format {version}"
                                " has it)")
        else:
            groups.setdefault(d["when"], [])
            if present:
                groups[d["when"]].append(name)
            if present and version < d["since"]:
                raise FeedError(f"{where}: header {name} in a record of format {version} (it"
                                f" belongs to format {d['since']} and later)")
    for when, present in groups.items():
        every = [n for n, d in described.items() if d["when"] == when]
        if present and len(present) < len(every):
            missing = [n for n in every if n not in present]
            raise FeedError(f"{where}: header {present[0]} without {', '.join(missing)} (with"
                            f" {when} a record has all of {', '.join(every)})")
    named = [n for n in h if n in described and described[n]["type"] == "names"]
    context = (h.get("piper.list.columns"), h.get("piper.row.columns"),
               h.get("piper.bucketized.columns"))
    for name in named + [n for n in h if n in described and n not in named]:
        d = described[name]
        if d["type"] in _REPEATING and described is ROWS_FORMAT:
            # the same value in the same context checks alike: most records repeat them
            problem = _repeated_problem(name, h[name], version, *context)
        else:
            problem = _header_problem(d, h[name], h, version)
        if problem:
            raise FeedError(f"{where}: header {name} \"{h[name]}\": {problem}")


# header types whose values repeat from record to record (column names, per-column lists)
_REPEATING = ("names", "counts", "numbers", "choices")


@functools.lru_cache(maxsize=4096)
def _repeated_problem(name, value, version, lists, columns, bucketized):
    h = {}
    for header, v in (("piper.list.columns", lists), ("piper.row.columns", columns),
                      ("piper.bucketized.columns", bucketized)):
        if v is not None:
            h[header] = v
    return _header_problem(ROWS_FORMAT[name], value, h, version)


def _header_problem(d, value, h, version):
    kind = d["type"]
    if kind == "text":
        return None if value else "empty"
    if kind in ("count", "number"):
        return None if _number(value, kind) else f"not an integer from 0 to {_max(kind)}"
    if kind in ("counts", "numbers", "choices"):
        lists = len(h["piper.list.columns"].split(",")) if h.get("piper.list.columns") else 0
        if d.get("count") == "lists":
            expected = lists
        elif d.get("count") == "bucketized":
            named = h.get("piper.bucketized.columns")
            expected = len(named.split(",")) if named else 0
        elif version < 2:
            expected = 26
        else:
            columns = h.get("piper.row.columns", "")
            expected = sum(1 for c in columns.split(",") if re.fullmatch(r"C[0-9]+", c)) \
                + lists
        items = value.split(",")
        if len(items) != expected:
            return f"{len(items)} values, the record's columns call for {expected}"
        for i, item in enumerate(items):
            ok = (not item or item in d.get("choices", [])) if kind == "choices" \
                else _number(item, "count" if kind == "counts" else "number")
            if not ok:
                return f"value {i + 1} \"{item}\" is not valid"
        return None
    if kind == "names":
        names = value.split(",")
        for n in names:
            if not _NAME.match(n):
                return f"\"{n}\" is not a column name"
        return "a name twice" if len(set(names)) != len(names) else None
    if kind == "range":
        first, dash, last = value.partition("-")
        if not dash or not _number(first, "number") or not _number(last, "number"):
            return "not two numbers joined by a dash"
        return "its first number is above its second" if int(first) > int(last) else None
    raise FeedError(f"rows-record.json: unknown header type {kind}")


def _max(kind):
    return 2**31 - 1 if kind in ("count", "counts") else 2**63 - 1


def _number(text, kind):
    return 0 < len(text) <= 19 and text.isascii() and text.isdigit() and int(text) <= _max(kind)


def headers_of(message):
    """A Kafka message's headers as a dict of ASCII strings (the last of a name wins)."""
    return {k: (v.decode("ascii") if v is not None else "") for k, v in (message.headers() or [])}


def _ints(text, expected, where, name):
    parts = text.split(",")
    if len(parts) != expected:
        raise FeedError(f"{where}: {name} has {len(parts)} entries, expected {expected}")
    try:
        return [int(p) for p in parts]
    except ValueError as e:
        raise FeedError(f"{where}: {name} is not integers: {text!r}") from e


@dataclass
class RowsBlock:
    """One decoded rows record."""

    where: str
    input_topic: str
    input_partition: int
    block: int
    pipeline: str
    columns: list
    labels: np.ndarray  # int32, one per row
    dense: np.ndarray  # float32 [rows, dense slots]: int slots as values, float32 slots as floats
    dense_names: list
    sparse: np.ndarray  # int64 [rows, scalar sparse columns]
    sparse_names: list
    lists: dict = field(default_factory=dict)  # name -> (values int64, offsets int64 [rows + 1])
    epochs: dict = field(default_factory=dict)  # sparse column name -> vocabulary epoch
    buckets: dict = field(default_factory=dict)  # sparse column name -> OOV buckets
    timestamps: tuple = None  # (first, last) input record timestamps in ms, or None
    popular: np.ndarray = None  # bool, one per row (Hotline's split), or None without a split
    working: dict = None  # sparse column name -> int64 working parameters, or None
    hotline_first_row: int = -1  # the first row's number in the split's order
    input_offsets: tuple = None  # (first, last) input offsets of the block's records, or None
    # evicting columns: name -> (assignments before the block, the block's own); else None
    assignments: dict = None
    # each row's event time (input.timestamp), int64 ms since the epoch, or None without one
    event_times_ms: np.ndarray = None
    # label/dense/generated columns whose values are bucket numbers -> their numbers of buckets
    bucketized: dict = field(default_factory=dict)
    # sparse column name -> its vocabulary's position once this block was applied (in its epoch:
    # an evicting column's assignments, else its entries); None where the record states none
    vocab_position: dict = None

    @property
    def rows(self):
        return len(self.labels)

    def row_timestamps_ms(self):
        """Each row's input timestamp, spread evenly over the block's first and last (or None)."""
        if self.timestamps is None or self.rows == 0:
            return None
        first, last = self.timestamps
        if self.rows == 1:
            return np.array([first], dtype=np.float64)
        return first + (last - first) * np.arange(self.rows, dtype=np.float64) / (self.rows - 1)

    def max_indices(self):
        """The largest index of each sparse column (list columns included) in this block."""
        out = {}
        for j, name in enumerate(self.sparse_names):
            if self.rows:
                out[name] = int(self.sparse[:, j].max())
        lists = [(n, v) for n, (v, _) in self.lists.items() if len(v)]
        if lists:  # one reduction over the lists' values, cut where each list starts
            flat = np.concatenate([v for _, v in lists])
            starts = np.cumsum([0] + [len(v) for _, v in lists[:-1]])
            for (name, _), top in zip(lists, np.maximum.reduceat(flat, starts)):
                out[name] = int(top)
        return out


def decode_rows(message):
    """Decodes a rows-topic message into a RowsBlock, checking it against its headers."""
    where = f"{message.topic()}/{message.partition()}@{message.offset()}"
    h = headers_of(message)
    version = int(h.get("piper.record.version", "1"))
    if version not in SUPPORTED_RECORD_VERSIONS:
        raise FeedError(f"{where}: record format {version}, this client reads 1 to 3")
    check_headers(h, version, where)
    rows = int(h["piper.rows"])
    layout = row_layout(h.get("piper.row.columns") if version >= 2 else None,
                        h.get("piper.float32.columns", ""))
    columns = layout.columns
    lists = h["piper.list.columns"].split(",") if h.get("piper.list.columns") else []
    counts = _ints(h["piper.list.values"], len(lists), where, "piper.list.values") if lists else []
    value = message.value() or b""
    width = len(columns)
    expected = 4 * (rows * width + sum(rows + c for c in counts))
    sparse_count = len(layout.sparse_idx) + len(lists)
    working_counts = None
    if "piper.hotline.working" in h:
        working_counts = _ints(h["piper.hotline.working"], sparse_count, where,
                               "piper.hotline.working")
        expected += 4 * sum(working_counts) + rows
    times_at = expected
    if "piper.event.times" in h:
        if h["piper.event.times"] != "ms":
            raise FeedError(f"{where}: header piper.event.times \"{h['piper.event.times']}\":"
                            " event times in ms are read, no other unit")
        expected += 8 * rows
    if len(value) != expected:
        raise FeedError(
            f"{where}: {rows} rows of {width} slots and lists {counts} take {expected} bytes,"
            f" the value has {len(value)}")
    split_at = times_at - (4 * sum(working_counts) + rows if working_counts else 0)
    data = np.frombuffer(value, dtype="<i4", count=split_at // 4)
    matrix = data[: rows * width].reshape(rows, width)
    dense = np.empty((rows, len(layout.dense_names)), dtype=np.float32)
    if len(layout.int_slots):  # two gathers, not one per column: wide layouts have hundreds
        dense[:, layout.int_slots] = matrix[:, layout.int_columns].astype(np.float32)
    if len(layout.float_slots):
        dense[:, layout.float_slots] = matrix[:, layout.float_columns].view("<f4")
    decoded_lists = _lists(data, rows * width, rows, lists, counts, where)
    sparse_names = list(layout.sparse_names)
    sparse = matrix[:, layout.sparse_idx].astype(np.int64)
    block = int(h.get("piper.block", "-1"))
    source = f"block {block} of {h.get('piper.input.topic', '')}/{h.get('piper.input.partition', '')}"
    check_indices(where, source, sparse_names, sparse,
                  {name: values for name, (values, _) in decoded_lists.items()})
    all_sparse = sorted(sparse_names + lists, key=lambda n: int(n[1:]))
    epochs = dict(zip(all_sparse, _ints(h["piper.epochs"], len(all_sparse), where, "piper.epochs"))) \
        if "piper.epochs" in h else {n: 0 for n in all_sparse}
    buckets = dict(zip(all_sparse, _ints(h["piper.oov.buckets"], len(all_sparse), where,
                                         "piper.oov.buckets"))) \
        if "piper.oov.buckets" in h else {n: 0 for n in all_sparse}
    popular = working = None
    if working_counts is not None:
        ints = np.frombuffer(value, dtype="<i4", count=sum(working_counts), offset=split_at)
        working, at = {}, 0
        for name, n in zip(all_sparse, working_counts):
            working[name] = ints[at: at + n].astype(np.int64)
            at += n
        popular = np.frombuffer(value, dtype=np.uint8, count=rows,
                                offset=split_at + 4 * at).astype(bool)
    bucketized = {}
    if "piper.bucketized.columns" in h:
        names = h["piper.bucketized.columns"].split(",")
        bucketized = dict(zip(names, _ints(h["piper.bucketized.buckets"], len(names), where,
                                           "piper.bucketized.buckets")))
    event_times = None
    if "piper.event.times" in h:
        event_times = np.frombuffer(value, dtype="<i8", count=rows, offset=times_at).astype(np.int64)
    assignments = None  # column -> (assignments before the block, the block's own)
    if "piper.assignments" in h:
        before = _ints(h["piper.assignments"], len(all_sparse), where, "piper.assignments")
        own = _ints(h["piper.block.assignments"], len(all_sparse), where,
                    "piper.block.assignments")
        evicts = h["piper.evict"].split(",")
        if len(evicts) != len(all_sparse):
            raise FeedError(f"{where}: {len(evicts)} entries in piper.evict,"
                            f" expected {len(all_sparse)}")
        assignments = {n: (b, o) for n, b, o, e in zip(all_sparse, before, own, evicts) if e}
    position = None
    if "piper.vocab.position" in h:
        position = dict(zip(all_sparse, _ints(h["piper.vocab.position"], len(all_sparse), where,
                                              "piper.vocab.position")))
    offsets = None
    if "piper.input.offsets" in h:
        first, last = h["piper.input.offsets"].split("-")
        offsets = (int(first), int(last))
    stamps = None
    if "piper.input.timestamps" in h:
        first, last = h["piper.input.timestamps"].split("-")
        stamps = (int(first), int(last))
    return RowsBlock(
        where=where,
        input_topic=h.get("piper.input.topic", ""),
        input_partition=int(h.get("piper.input.partition", "-1")),
        block=block,
        pipeline=h.get("piper.pipeline", ""),
        columns=list(columns),
        labels=np.ascontiguousarray(matrix[:, 0]),
        dense=dense,
        dense_names=list(layout.dense_names),
        sparse=sparse,
        sparse_names=sparse_names,
        lists=decoded_lists,
        epochs=epochs,
        buckets=buckets,
        timestamps=stamps,
        popular=popular,
        working=working,
        hotline_first_row=int(h.get("piper.hotline.first.row", "-1")),
        assignments=assignments,
        input_offsets=offsets,
        event_times_ms=event_times,
        bucketized=bucketized,
        vocab_position=position,
    )


def _lists(data, start, rows, names, counts, where):
    """The list columns after the rows: per list, ``rows`` lengths then its values. A few whole-
    array operations for all of them (wide layouts have dozens), each list's values and offsets
    views of one int64 array."""
    if not names:
        return {}
    section = data[start:].astype(np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    # where each list's lengths start: after the lengths and values of those before it
    starts = np.concatenate([[0], np.cumsum(counts + rows)[:-1]])
    lengths = section[starts[:, None] + np.arange(rows)]  # [lists, rows]
    sums = lengths.sum(axis=1)
    if not np.array_equal(sums, counts):
        k = int(np.flatnonzero(sums != counts)[0])
        raise FeedError(f"{where}: {names[k]}'s lengths add up to {int(sums[k])}, not"
                        f" {int(counts[k])}")
    offsets = np.zeros((len(names), rows + 1), dtype=np.int64)
    np.cumsum(lengths, axis=1, out=offsets[:, 1:])
    out = {}
    for k, name in enumerate(names):
        at = int(starts[k]) + rows
        out[name] = (section[at: at + int(counts[k])], offsets[k])
    return out


@dataclass(frozen=True)
class _Layout:
    """Where a record's slots go, from its column names: computed once per distinct layout."""

    columns: list
    dense_names: tuple
    sparse_names: tuple
    sparse_idx: np.ndarray  # the C columns' slots
    int_slots: np.ndarray  # dense positions of int32 slots, and their slots
    int_columns: np.ndarray
    float_slots: np.ndarray  # dense positions of float32 slots, and their slots
    float_columns: np.ndarray


@functools.lru_cache(maxsize=64)
def row_layout(row_columns, float32_columns):
    columns = row_columns.split(",") if row_columns is not None else CRITEO_COLUMNS
    floats = set(float32_columns.split(",")) - {""}
    dense_idx = [i for i, c in enumerate(columns) if i > 0 and not c.startswith("C")]
    sparse_idx = [i for i, c in enumerate(columns) if c.startswith("C")]
    as_float = [k for k, i in enumerate(dense_idx) if columns[i] in floats]
    as_int = [k for k, i in enumerate(dense_idx) if columns[i] not in floats]
    return _Layout(
        columns=columns,
        dense_names=tuple(columns[i] for i in dense_idx),
        sparse_names=tuple(columns[i] for i in sparse_idx),
        sparse_idx=np.array(sparse_idx, dtype=np.intp),
        int_slots=np.array(as_int, dtype=np.intp),
        int_columns=np.array([dense_idx[k] for k in as_int], dtype=np.intp),
        float_slots=np.array(as_float, dtype=np.intp),
        float_columns=np.array([dense_idx[k] for k in as_float], dtype=np.intp))


def check_indices(where, source, names, sparse, lists):
    """Refuses a negative vocabulary index (an embedding lookup would fail on it with a bare
    traceback), naming the record, the column and the row, as ``piper consume`` does."""
    if (sparse.size == 0 or sparse.min() >= 0) and all(
            len(v) == 0 or v.min() >= 0 for v in lists.values()):
        return  # the usual case, one reduction per array
    for j, name in enumerate(names):
        negative = np.flatnonzero(sparse[:, j] < 0)
        if len(negative):
            row = int(negative[0])
            raise FeedError(f"{where}: column {name}, row {row} of {source}: vocabulary index"
                            f" {int(sparse[row, j])} is negative (indices start at 0)")
    for name, values in lists.items():
        negative = np.flatnonzero(values < 0)
        if len(negative):
            i = int(negative[0])
            raise FeedError(f"{where}: column {name}, list value {i} of {source}: vocabulary"
                            f" index {int(values[i])} is negative (indices start at 0)")


@dataclass
class VocabRecord:
    """One vocabulary-topic record: a column's new entries from an index on. ``names`` gives the
    original string of each new entry of a string-id (hash64) column, by index."""

    column: str
    epoch: int
    first_index: int
    count: int
    buckets: int
    names: dict = None


def unescape_name(field):
    """The original string a vocabulary line's string field holds (backslash, tab, line feed and
    carriage return are written escaped, as piper's NameText writes them)."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        ch = field[i]
        if ch == "\\" and i + 1 < len(field):
            i += 1
            ch = {"t": "\t", "n": "\n", "r": "\r"}.get(field[i], field[i])
        out.append(ch)
        i += 1
    return "".join(out)


def _entry_names(value, count, where):
    """index -> string of a vocabulary record's lines that carry one (``index<TAB>key<TAB>string``);
    None when no line does (a column of integer or hexadecimal ids)."""
    if value is None or value.count(b"\t") <= count:
        return None
    names = {}
    for n, line in enumerate(value.decode("utf-8").split("\n")[:count], 1):
        f = line.split("\t")
        if len(f) == 3:
            names[int(f[0])] = unescape_name(f[2])
        elif len(f) != 2:
            raise FeedError(f"{where}: line {n} is not index, key (and string)")
    return names


@dataclass
class AssignmentRecord:
    """An evicting column's assignments in one block: from ``rows[i]`` of that block's rows
    record on, ``indices[i]`` names ``keys[i]``; where ``reused[i]``, it evicted another key and
    its embedding row must be re-initialised."""

    column: str
    epoch: int
    first: int  # the number of the first assignment (a column's are numbered from 0)
    buckets: int
    input_partition: int
    block: int
    indices: list
    keys: list
    rows: list
    reused: list
    names: list = None  # the original string of each key (string-id columns), else None

    @property
    def count(self):
        return len(self.indices)


def decode_vocab(message):
    """A VocabRecord, or an AssignmentRecord for an evicting column (``piper.evict``)."""
    where = f"{message.topic()}/{message.partition()}@{message.offset()}"
    h = headers_of(message)
    try:
        if "piper.evict" in h:
            return _decode_assignments(message, h, where)
        count = int(h["piper.count"])
        return VocabRecord(
            column=h["piper.column"],
            epoch=int(h.get("piper.epoch", "0")),
            first_index=int(h["piper.first.index"]),
            count=count,
            buckets=int(h.get("piper.oov.buckets", "0")),
            names=_entry_names(message.value(), count, where),
        )
    except (KeyError, ValueError) as e:
        raise FeedError(f"{where}: not a vocabulary record ({e})") from e


def _decode_assignments(message, h, where):
    count = int(h["piper.count"])
    lines = (message.value() or b"").decode("utf-8").split("\n")
    if len(lines) != count + 1 or lines[-1] != "":
        raise FeedError(f"{where}: {count} assignments announced, the value has {len(lines) - 1}")
    indices, keys, rows, reused, names = [], [], [], [], []
    for n, line in enumerate(lines[:-1], 1):
        f = line.split("\t")
        if len(f) not in (4, 5):
            raise FeedError(f"{where}: line {n} is not index, key, row, evicted key (and string)")
        indices.append(int(f[0]))
        keys.append(int(f[1]))
        rows.append(int(f[2]))
        reused.append(f[3] != "")
        names.append(unescape_name(f[4]) if len(f) == 5 else None)
    return AssignmentRecord(
        column=h["piper.column"], epoch=int(h.get("piper.epoch", "0")),
        first=int(h["piper.first.assignment"]), buckets=int(h.get("piper.oov.buckets", "0")),
        input_partition=int(h["piper.input.partition"]), block=int(h["piper.block"]),
        indices=indices, keys=keys, rows=rows, reused=reused, names=names)


@dataclass
class HotSetRecord:
    """A hot-set record of the vocabulary topic: the hot set of a window of rows."""

    window: int
    first_row: int
    hot: dict  # sparse column name -> sorted list of hot indices


def is_hot_set(message):
    """Whether a vocabulary-topic message is a hot set (Hotline) rather than vocabulary entries."""
    return any(k == "piper.hotline.window" for k, _ in (message.headers() or []))


def decode_hot_set(message):
    where = f"{message.topic()}/{message.partition()}@{message.offset()}"
    h = headers_of(message)
    try:
        body = json.loads(message.value().decode("utf-8"))
        return HotSetRecord(window=int(h["piper.hotline.window"]),
                            first_row=int(h["piper.hotline.first.row"]), hot=body["hot"])
    except (KeyError, ValueError, AttributeError) as e:
        raise FeedError(f"{where}: not a hot-set record ({e})") from e
