"""python3 -m piper_feed.transform: a request's answer, as piper serve gives it."""

import argparse
import json
import sys

from .base import TransformError
from .core import Transform
from .snapshot import Snapshot
from .spec import Spec


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m piper_feed.transform",
        description="Transform a request's records (Criteo lines, JSON events or CSV lines, one a"
                    " line; Avro datums or Protobuf messages, length-prefixed) as the feed did, at"
                    " a vocabulary snapshot, and print piper serve's answer (JSON).")
    parser.add_argument("--spec", required=True, help="the pipeline spec (JSON file)")
    parser.add_argument("--snapshot", help="a piper vocab snapshot file")
    parser.add_argument("--request", default="-", help="the records' file (default: stdin): one"
                        " a line, or for Avro and Protobuf each a 4-byte big-endian length and the"
                        " record, as piper serve takes them")
    parser.add_argument("--manifest", help="instead of --snapshot and --request: a file of JSON"
                        " lines {\"snapshot\": F, \"request\": F, \"answer\": F}, each answered"
                        " into its answer file, in one process")
    args = parser.parse_args(argv)
    try:
        spec = Spec.load(args.spec)
        if args.manifest:
            with open(args.manifest) as f:
                jobs = [json.loads(line) for line in f if line.strip()]
            for n, job in enumerate(jobs, 1):
                with open(job["request"], "rb") as f:
                    body = f.read()
                answer = Transform(spec, Snapshot.load(job["snapshot"])).apply_body(body).answer()
                with open(job["answer"], "w") as out:
                    out.write(json.dumps(answer))   # dumps: C's encoder; dump's is Python's
            print(f"transform: {len(jobs)} requests answered", file=sys.stderr)
            return 0
        if not args.snapshot:
            parser.error("--snapshot (or --manifest) is required")
        transform = Transform(spec, Snapshot.load(args.snapshot))
        if args.request == "-":
            body = sys.stdin.buffer.read()
        else:
            with open(args.request, "rb") as f:
                body = f.read()
    except (OSError, TransformError, KeyError, ValueError) as e:
        print(f"transform: {e}", file=sys.stderr)
        return 1
    try:
        answer = transform.apply_body(body).answer()
    except ValueError as e:
        print(f"transform: {args.request}: {e}", file=sys.stderr)
        return 1
    # json.dumps encodes in C; json.dump streams through the pure-Python encoder, a write per
    # token: a 1,000-record RM3 answer took 9.4 s that way, most of the transform's time
    sys.stdout.write(json.dumps(answer, allow_nan=True))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
