"""The pipeline spec as the transform needs it (docs/SPECS.md): the layout, each column's chain,
the input's fields."""

import json
import re
from dataclasses import dataclass, field as dc_field

from .base import TransformError
from .readers import FORMATS
from .ops import _DENSE_OPS, _ID_OPS, dense_result


OPERATORS = frozenset({"decode", "fill_missing", "fill_null", "hex2int", "hash64", "vocab",
                       "onehot"} | set(_DENSE_OPS) | set(_ID_OPS))
"""The operators this library applies; PythonTransformITCase checks them against Java's."""


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
        if self.format not in FORMATS:
            raise TransformError(f"{where}: input.format \"{self.format}\": not a format of"
                                 f" records ({', '.join(FORMATS)})")
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
            if op not in OPERATORS:
                raise TransformError(f"{self.where}: {col.name}: unknown operator \"{op}\"")
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
            else:
                col.ops.append((op, params))
                ftype = dense_result(op, params, ftype)
        col.float32 = col.kind in ("label", "dense") and ftype == "float32"

    @property
    def row_columns(self):
        """The names of a row's slots, as ``piper serve`` and the rows records name them."""
        names = []
        for col in self.columns[:self.width]:
            names += ([f"{col.name}_{k}" for k in range(col.onehot - 1)] if col.onehot
                      else [col.name])
        return names + [c.name for c in self.columns[self.width:] if c.kind == "sparse"]
