"""The Python transform's latency: requests of 512 records, p50 and p99, as a server sees them.

    python3 -m piper_feed.bench.transform --spec SPEC --snapshot FILE --lines FILE \\
        [--request-rows 512] [--seconds 10] [--serve-url URL] [--json]

The lines (Criteo text or JSON events, as the spec reads) are cut into consecutive requests of
``--request-rows``; one pass over all of them warms up, then the requests are transformed in
turn for ``--seconds``, each timed alone: ``transform`` is ``Transform.apply_lines`` (the rows
and their indices), ``batch`` that plus ``serving.batch_from_result`` (the tensors a model
takes). With ``--serve-url`` (a ``piper serve`` of the same spec and snapshot, its
``/transform``), the same requests are also sent over HTTP and timed from the request to the
last byte of the answer: ``http`` over one kept-alive connection (what a pooled client holds),
``http_new`` over a new connection each. docs/PERFORMANCE.md compares them with the Java
transform and the feed's decoder (``TransformBenchmark``) on the same lines, in the same session.
"""

import argparse
import http.client
import json
import statistics
import sys
import time
import urllib.parse

from ..serve.batches import batch_from_result
from ..transform import Snapshot, Spec, Transform


def requests_of(path, rows):
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    cut = [b"\n".join(lines[i:i + rows]) + b"\n" for i in range(0, len(lines) - rows + 1, rows)]
    if not cut:
        raise SystemExit(f"bench.transform: {path} has fewer than {rows} lines")
    return cut


def measure(transform, requests, seconds, to_batch):
    """Per-request seconds of transforming ``requests`` in turn for ``seconds`` (at least one
    pass)."""
    times = []
    start = time.perf_counter()
    while True:
        for body in requests:
            t0 = time.perf_counter()
            result = transform.apply_lines(body)
            if to_batch:
                batch_from_result(result)
            times.append(time.perf_counter() - t0)
        if time.perf_counter() - start >= seconds:
            return times


def measure_http(url, requests, seconds, keep_alive):
    """Per-request seconds of POSTing ``requests`` in turn to ``url`` for ``seconds`` (at least
    one pass), over one kept-alive connection or a new one each; an answer other than 200 ends
    the run naming it."""
    where = urllib.parse.urlsplit(url)
    if where.scheme != "http" or not where.hostname:
        raise SystemExit(f"bench.transform: --serve-url {url} is not an http:// URL")
    conn = None
    times = []
    start = time.perf_counter()
    try:
        while True:
            for body in requests:
                t0 = time.perf_counter()
                if conn is None:
                    conn = http.client.HTTPConnection(where.hostname, where.port or 80, timeout=60)
                conn.request("POST", where.path or "/", body=body,
                             headers={"Content-Type": "text/plain"})
                answer = conn.getresponse()
                content = answer.read()
                if answer.status != 200:
                    raise SystemExit(f"bench.transform: {url} answered {answer.status}:"
                                     f" {content[:300].decode('utf-8', 'replace')}")
                if not keep_alive:
                    conn.close()
                    conn = None
                times.append(time.perf_counter() - t0)
            if time.perf_counter() - start >= seconds:
                return times
    finally:
        if conn is not None:
            conn.close()


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m piper_feed.bench.transform",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", required=True, help="the pipeline spec (JSON file)")
    parser.add_argument("--snapshot", required=True, help="a piper vocab snapshot file")
    parser.add_argument("--lines", required=True, help="records, one a line")
    parser.add_argument("--request-rows", type=int, default=512)
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="measured time of each kind (default 10)")
    parser.add_argument("--serve-url", help="also time the requests sent to this piper serve's"
                        " /transform (http://HOST:PORT/transform), kept alive and not")
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")
    args = parser.parse_args(argv)
    transform = Transform(Spec.load(args.spec), Snapshot.load(args.snapshot))
    requests = requests_of(args.lines, args.request_rows)
    measure(transform, requests, 0, True)   # warm-up: one pass
    out = {"request_rows": args.request_rows, "requests": len(requests)}
    runs = {kind: (lambda to_batch=to_batch: measure(transform, requests, args.seconds, to_batch))
            for kind, to_batch in (("transform", False), ("batch", True))}
    if args.serve_url:
        measure_http(args.serve_url, requests, 0, True)   # warm-up: one pass
        for kind, keep_alive in (("http", True), ("http_new", False)):
            runs[kind] = (lambda keep_alive=keep_alive:
                          measure_http(args.serve_url, requests, args.seconds, keep_alive))
    for kind, run in runs.items():
        times = run()
        out[kind] = {"samples": len(times),
                     "p50_us": round(statistics.median(times) * 1e6, 1),
                     "p99_us": round(quantile(times, 0.99) * 1e6, 1),
                     "us_per_row": round(statistics.median(times) * 1e6 / args.request_rows, 2)}
    if args.json:
        json.dump(out, sys.stdout)
        print()
        return 0
    print(f"requests of {args.request_rows} records ({len(requests)} distinct):")
    for kind in runs:
        m = out[kind]
        print(f"  {kind:9} p50 {m['p50_us']:>10,.1f} us  p99 {m['p99_us']:>10,.1f} us  "
              f"{m['us_per_row']:>7.2f} us a row  ({m['samples']} requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
