"""The values of binary events (Avro, Protobuf) put into their columns by the rules JSON's follow
(Java: EventValues)."""

import math

from ..base import (_Reject, _clip, _DIGITS, _HEX, _hex_status, _INT32_MAX, _INT32_MIN, _MASK,
    _millis_number, _millis_text, _why_not_time, _xxh64)
from .events import _JsonReader


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

    def result(self):
        """The event's time, once the event is read whole; a _Reject with its first problem, or
        for its missing time (Java: EventValues.complete)."""
        if self.reason is None and self.spec.time_path and self.time is None:
            self.fail("bad_timestamp", f"{self.column(_JsonReader.TIME)} is missing")
        if self.reason is not None:
            raise _Reject(self.reason, self.detail)
        return self.time

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
