"""The input formats the transform reads (Java: pipeline.input.InputFormat), each with how a
record of it holds its events and the reader that turns records into column values."""

from typing import NamedTuple

from .avro import _AvroReader
from .events import _JsonReader
from .protobuf import _ProtobufReader
from .text import _CsvReader, _TextReader


class Format(NamedTuple):
    records: str
    """How a record holds its events (Java's InputFormat.KafkaRecords): "lines", "one_line" (one
    event whose line breaks are whitespace) or "frame" (one event's bytes)."""
    reader: type
    """The reader of the format's records, made from the spec."""


FORMATS = {"criteo-tsv": Format("lines", _TextReader),
           "json": Format("one_line", _JsonReader),
           "csv": Format("lines", _CsvReader),
           "avro": Format("frame", _AvroReader),
           "protobuf": Format("frame", _ProtobufReader)}
"""The input formats by spec name; PythonTransformITCase checks the names and framings against
Java's."""
