"""The column operators (docs/SPECS.md's table; Java: pipeline.ops), on numpy arrays, with the
Java operators' arithmetic."""

import math
import re

import numpy as np

from .base import _INT32_MAX, _INT32_MIN, _look_up, _MASK, TransformError, _U


_K_MUL = _U(0x9DDFEA08EB382D69)


def _as_float(v, is_float):
    return v if is_float else v.astype(np.float32)


def _neg2zero(v, is_float, p):
    return np.where(v < 0, v.dtype.type(0), v), is_float


def _clamp(v, is_float, p):
    lo, hi = float(p["lo"]), float(p["hi"])
    if is_float:
        wide = v.astype(np.float64)
        return np.where(wide < lo, np.float32(lo), np.where(wide > hi, np.float32(hi), v)), True
    ilo = min(max(math.ceil(lo), _INT32_MIN), _INT32_MAX)   # Java's (int) saturates
    ihi = min(max(math.floor(hi), _INT32_MIN), _INT32_MAX)
    return np.clip(v, ilo, ihi).astype(np.int32), False


def _log(v, is_float, p):
    x = _as_float(v, is_float) + np.float32(1)   # float32(x) + 1f, in float32
    return np.log(x.astype(np.float64)).astype(np.float32), True


def _sqrt(v, is_float, p):
    return np.sqrt(_as_float(v, is_float).astype(np.float64)).astype(np.float32), True


def _bucketize(v, is_float, p):
    borders = np.asarray(p["borders"], dtype=np.float64)
    x = v.astype(np.float64)
    side = "left" if p.get("right", True) else "right"   # borders < x, or <= x
    out = np.searchsorted(borders, x, side=side)
    out[np.isnan(x)] = len(borders)
    return out.astype(np.int32), False


def _boxcox(v, is_float, p):
    lam, x = float(p["lambda"]), v.astype(np.float64)
    with np.errstate(all="ignore"):
        y = np.log(x) if lam == 0 else (np.power(x, lam) - 1) / lam
    return np.where(x < 0, np.nan, y).astype(np.float32), True


def _logit(v, is_float, p):
    z = v.astype(np.float64)
    if "eps" in p:
        eps = float(p["eps"])
        z = np.where(z < eps, eps, np.where(z > 1 - eps, 1 - eps, z))
    with np.errstate(all="ignore"):
        return np.log(z / (1 - z)).astype(np.float32), True


def _cast(v, is_float, p):
    if p["to"] == "float32":
        return v.astype(np.float32), True
    x = np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=_INT32_MAX, neginf=_INT32_MIN)
    return np.trunc(np.clip(x, _INT32_MIN, _INT32_MAX)).astype(np.int32), False  # toward zero


_DENSE_OPS = {"neg2zero": _neg2zero, "clamp": _clamp, "log": _log, "sqrt": _sqrt,
              "bucketize": _bucketize, "boxcox": _boxcox, "logit": _logit, "cast": _cast}

_DENSE_RESULTS = {"neg2zero": "same", "clamp": "same", "log": "float32", "sqrt": "float32",
                  "bucketize": "int32", "boxcox": "float32", "logit": "float32", "cast": "to"}
"""What each dense operator's values are after it: its input's type ("same"), float32, int32, or
its "to" parameter's; the spec reader decides a column's output type from it (Java: DenseOp's
result type)."""


def dense_result(op, params, ftype):
    """The type of a dense column's values after ``op`` with ``params``, which had ``ftype``."""
    result = _DENSE_RESULTS.get(op, "same")
    return params["to"] if result == "to" else ftype if result == "same" else result


def twang_mix64(k):
    """folly's twang_mix64 on uint64 arrays (wrapping, as Java's long arithmetic)."""
    k = (~k) + (k << _U(21))
    k = k ^ (k >> _U(24))
    k = k + (k << _U(3)) + (k << _U(8))
    k = k ^ (k >> _U(14))
    k = k + (k << _U(2)) + (k << _U(4))
    k = k ^ (k >> _U(28))
    return k + (k << _U(31))


def hash_128_to_64(upper, lower):
    """folly's hash_128_to_64 on uint64 arrays."""
    a = (lower ^ upper) * _K_MUL
    a = a ^ (a >> _U(47))
    b = (upper ^ a) * _K_MUL
    b = b ^ (b >> _U(47))
    return b * _K_MUL


def mix64(k):
    """SplitMix64's finalizer: the OOV bucket's hash (VocabularyPolicy.mix)."""
    k = (k ^ (k >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    k = (k ^ (k >> _U(27))) * _U(0x94D049BB133111EB)
    return k ^ (k >> _U(31))


def _modulus(keys, offsets, p, tables):
    return keys % _U(int(p["m"])), offsets


def _sigrid(keys, offsets, p, tables):
    salt = np.full(len(keys), int(p.get("salt", 0)) & _MASK, dtype=np.uint64)
    h = hash_128_to_64(salt, twang_mix64(keys)).view(np.int64)
    return (h % np.int64(int(p["max"]))).astype(np.uint64), offsets   # floorMod: the sign of max


def _mapid(keys, offsets, p, tables):
    default = p.get("default")
    return tables[p["file"]].map(keys, None if default is None else int(default)), offsets


class _IdTable:
    """A mapid file, ``id<TAB>value`` lines, as sorted arrays."""

    def __init__(self, path):
        ids, values = [], []
        with open(path, "rb") as f:
            for n, line in enumerate(f, 1):
                parts = line.rstrip(b"\n").split(b"\t")
                if len(parts) != 2 or not all(re.fullmatch(rb"[0-9]+", x) for x in parts):
                    raise TransformError(f"{path}: line {n}: expected id<TAB>value, unsigned"
                                         " decimals")
                ids.append(int(parts[0]))
                values.append(int(parts[1]))
        ids = np.array(ids, dtype=np.uint64)
        order = np.argsort(ids, kind="stable")
        self.ids, self.values = ids[order], np.array(values, dtype=np.uint64)[order]
        if len(self.ids) > 1 and np.any(self.ids[1:] == self.ids[:-1]):
            raise TransformError(f"{path}: repeats an id (an id may appear once)")

    def map(self, keys, default):
        out = keys.copy() if default is None else np.full(len(keys), default, dtype=np.uint64)
        return _look_up(self.ids, self.values, keys, out)


def _firstx(keys, offsets, p, tables):
    x = int(p["x"])
    lengths = np.minimum(np.diff(offsets), x)
    keep = np.concatenate([np.arange(s, s + n) for s, n in zip(offsets[:-1], lengths)]
                          or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    return keys[keep], np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _ngram(keys, offsets, p, tables):
    n = int(p["n"])
    lengths = np.maximum(np.diff(offsets) - n + 1, 0)
    starts = np.concatenate([np.arange(s, s + k) for s, k in zip(offsets[:-1], lengths)]
                            or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    h = keys[starts] if len(starts) else np.zeros(0, dtype=np.uint64)
    for j in range(1, n):
        h = hash_128_to_64(h, keys[starts + j])
    return h, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


_ID_OPS = {"modulus": _modulus, "sigrid_hash": _sigrid, "mapid": _mapid, "firstx": _firstx,
           "ngram": _ngram}
"""The id operators after hex2int or hash64, each ``(keys, offsets, params, tables) -> (keys,
offsets)`` on uint64 keys (offsets: a list column's row starts, None for a column of one id per
row; tables: the mapid files by path)."""
