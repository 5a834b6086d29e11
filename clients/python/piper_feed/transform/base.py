"""What the transform's parts share: its error, a rejected record, the checks of ids and numbers,
event time, XXH64, and reading a request into columns."""

import math
import re
from datetime import datetime, timezone
from typing import NamedTuple

import numpy as np


_MASK = (1 << 64) - 1


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


_QUOTED_CHARS = 64  # a JSON detail quotes this many characters of a value


_U = np.uint64


_MIN_MILLIS, _MAX_MILLIS = -62_135_596_800_000, 253_402_300_799_999


class TransformError(ValueError):
    """A spec, snapshot or table this library cannot use; the message names the file and field."""


class _Reject(Exception):
    def __init__(self, reason, detail):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


_DIGITS = re.compile(rb"[+-]?[0-9]+")


_HEX = re.compile(rb"[0-9a-fA-F]+")


_HEX_TEXT = re.compile(r"[0-9a-fA-F]+")


_DECIMAL = re.compile(r"[+-]?[0-9]+")


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


class Format(NamedTuple):
    """An input format as a reader module declares it in its ``INPUT_FORMATS``."""
    records: str
    """How a Kafka record holds its events (Java's InputFormat.KafkaRecords): "lines", "one_line"
    (one event whose line breaks are whitespace) or "frame" (one event's bytes)."""
    reader: type
    """The reader of the format's records, made from the spec."""


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


def _clip(s):
    return s if len(s) <= _QUOTED_CHARS else s[:_QUOTED_CHARS] + "..."


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


_XXH64 = []


def _need_xxhash():
    """Loads XXH64 (hash64's function) once; a TransformError without the xxhash module."""
    if not _XXH64:
        try:
            import xxhash
        except ImportError:
            raise TransformError("hash64 needs the xxhash module (Debian: apt-get install"
                                 " python3-xxhash)") from None
        _XXH64.append(xxhash.xxh64_intdigest)


def _xxh64(b):
    """XXH64, seed 0, of bytes ``b`` (``_need_xxhash`` first)."""
    return _XXH64[0](b)


def _look_up(keys, values, queries, out):
    """Sets ``out[i]`` to ``values[j]`` where ``queries[i] == keys[j]`` (``keys`` sorted, as
    ``values`` beside them); leaves the others."""
    if len(keys) and len(queries):
        at = np.searchsorted(keys, queries)
        inside = at < len(keys)
        hit = np.zeros(len(queries), dtype=bool)
        hit[inside] = keys[at[inside]] == queries[inside]
        out[hit] = values[at[hit]]
    return out
