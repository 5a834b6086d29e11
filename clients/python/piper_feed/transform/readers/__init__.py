"""The input formats the transform reads (Java: pipeline.input.InputFormat), one module of this
package per format or family of formats: each declares its formats in ``INPUT_FORMATS`` (spec
name to ``Format``: how a Kafka record holds its events, and the reader that turns records into
column values), and ``FORMATS`` gathers them from every module here. A new format is one module
in this folder; ``PythonTransformITCase`` checks the names and framings against Java's."""

import importlib
import pkgutil


def _gather():
    found = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        declared = getattr(importlib.import_module(f"{__name__}.{module}"), "INPUT_FORMATS", {})
        for name, fmt in declared.items():
            if name in found:
                raise ImportError(f"input format {name!r} is declared by both {found[name][0]}"
                                  f" and {module} in {__name__}")
            found[name] = (module, fmt)
    return {name: fmt for name, (_, fmt) in sorted(found.items())}


FORMATS = _gather()
"""The input formats by spec name, each a ``Format``."""
