"""JSON events (JsonEventDecoder's rules): each column reads its path, in the event's order."""

import json
import math
import re

from ..base import (Format, _clip, _DECIMAL, _hex_status, _HEX_TEXT, _INT32_MAX, _INT32_MIN, _MASK,
    _millis_number, _millis_text, _Reader, _Reject, _segments, _why_not_time, _xxh64)


_FIRST_TOKEN = re.compile(r'[ \t\r]*(?:(\{)|(\[)|(")|-?(?:0|[1-9][0-9]*)((?:\.[0-9]+)?'
                          r'(?:[eE][+-]?[0-9]+)?)|(true|false)|(null))')


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


INPUT_FORMATS = {"json": Format("one_line", _JsonReader)}
