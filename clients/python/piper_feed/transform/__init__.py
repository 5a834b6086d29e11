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
reserved index, one past its largest index at the snapshot (``SnapshotColumn.reserved_index``;
``table_size`` counts its row); the vocabulary never grows.

Input formats: lines of ``criteo-tsv``, ``json`` and ``csv`` (``apply_lines``); Avro datums of
``input.schema`` and Protobuf messages of ``input.message``, a record each (``apply``), or
length-prefixed in a body as ``piper serve`` takes them (``apply_body``). The operators are all
of docs/SPECS.md's; their arithmetic is the Java operators' (float32 where they round to float32,
64-bit wrapping hashes), so the rows are equal bit for bit; a NaN comes out as the canonical quiet
NaN. ``PythonTransformITCase`` (cli) checks every record of generated requests, good and bad,
against ``piper serve`` for presets of each format and for a spec with every operator.
"""

from .base import TransformError
from .core import Result, Transform
from .ops import hash_128_to_64, mix64, twang_mix64
from .snapshot import Snapshot, SnapshotColumn
from .spec import Spec

__all__ = ["Result", "Snapshot", "SnapshotColumn", "Spec", "Transform", "TransformError",
           "hash_128_to_64", "mix64", "twang_mix64"]
