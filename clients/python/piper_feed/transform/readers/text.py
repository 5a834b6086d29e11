"""Lines of Criteo text (CriteoDecoder's rules) and of CSV (CsvEventDecoder's), read into
columns."""

import numpy as np

from ..base import (Format, _DIGITS, _HEX, _hex_status, _INT32_MAX, _INT32_MIN, _join, _millis_text,
    _quote, _Reader, _Reject, _take, _U, _why_not_time, _xxh64)


def _digit_table(digits):
    table = np.full(256, 255, dtype=np.uint8)
    for value, chars in enumerate(digits):
        for ch in chars:
            table[ord(ch)] = value
    return table


_DECIMAL_DIGIT = _digit_table("0123456789")


_HEX_DIGIT = _digit_table([c + c.upper() for c in "0123456789abcdef"])


def _bytes_of(texts, widest):
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
    m = _bytes_of(texts, 11)
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
    m = _bytes_of(texts, 16)
    digits = _HEX_DIGIT[m].astype(np.uint64)
    at = np.arange(m.shape[2])
    inside = at < lengths[:, :, None]
    wrong = (lengths > 16) | (inside & (digits == 255)).any(axis=2)
    shift = (np.clip(lengths[:, :, None] - 1 - at, 0, 15) * 4).astype(np.uint64)
    values = np.bitwise_or.reduce(np.where(inside, digits << shift, _U(0)), axis=2)
    return values, lengths == 0, wrong.any(axis=1)


class _TextReader(_Reader):
    """Criteo text (CriteoDecoder's rules): tab-separated fields, left to right.

    ``read_block`` reads a request's fields all at once where it can: the lines of ASCII with the
    layout's number of fields become one numpy matrix of byte strings, whose dense and
    hexadecimal fields are checked and converted as matrices of their bytes (``_decimals``,
    ``_hexadecimals``); a line any of whose fields fails, or that is not such a line, is read
    alone by ``read`` for the reason of its first bad field, as the feed's decoder names it."""

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
                if spec.columns[f].kind == "list":
                    values[f], wrong = self._lists(texts[:, i].tolist())
                    bad |= wrong
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

    def _lists(self, texts):
        """A list column's fields, one a record, as id lists (None for an empty field) read all
        at once: every id of the column in one matrix (``_hexadecimals``); and the records with an
        id that is empty or no hexadecimal id of at most 16 digits (``read`` decides those)."""
        counts, items = [], []
        for text in texts:
            if text:
                split = text.split(self.spec.list_separator)
                counts.append(len(split))
                items += split
            else:
                counts.append(0)
        ends = np.cumsum(counts)
        starts = ends - counts
        if not items:
            return [None] * len(texts), np.zeros(len(texts), dtype=bool)
        flat = np.array(items)[:, None]
        ids, empty, wrong = _hexadecimals(flat, np.char.str_len(flat))
        failed = np.concatenate([[0], np.cumsum(wrong | empty[:, 0])])
        ids = ids[:, 0].tolist()
        lists = [ids[a:b] if text else None for text, a, b in zip(texts, starts, ends)]
        return lists, failed[ends] > failed[starts]

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


INPUT_FORMATS = {"criteo-tsv": Format("lines", _TextReader), "csv": Format("lines", _CsvReader)}
