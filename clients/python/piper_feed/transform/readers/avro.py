"""Avro datums of input.schema, read by the schema (Java: AvroEventDecoder, AvroPlan)."""

import numpy as np

from ..base import Format, _INT32_MAX, _INT32_MIN, _MASK, _Reject, TransformError
from .events import _JsonReader
from .typed import _Malformed, _TypedValues


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
        self.buf, self.pos = record, 0
        self.typed.start(values)
        try:
            self._read(self.schema, self.root, "")
            if self.pos != len(record):
                raise _Malformed(f"{len(record) - self.pos} bytes after the datum's end")
        except _Malformed as e:
            raise _Reject("invalid_avro", str(e)) from None
        return self.typed.result()

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


def _avro_kind(schema):
    """A value's kind where a path steps into it, as AvroPlan's details name it."""
    return {"record": "a record", "map": "a map", "array": "an array"}.get(
        schema["t"], f"of type {schema['t']}")


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


INPUT_FORMATS = {"avro": Format("frame", _AvroReader)}
