"""Protobuf messages of input.message, the wire read by the descriptors (Java:
ProtobufEventDecoder)."""

import numpy as np

from ..base import Format, _MASK, _Reject, TransformError
from .events import _JsonReader
from .typed import _Malformed, _TypedValues


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
        try:
            from google.protobuf import descriptor_pb2, descriptor_pool
        except ImportError:
            raise TransformError(f"{spec.where}: input.format protobuf needs the protobuf module"
                                 " (Debian: apt-get install python3-protobuf)") from None
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
        return self.typed.result()

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


INPUT_FORMATS = {"protobuf": Format("frame", _ProtobufReader)}
