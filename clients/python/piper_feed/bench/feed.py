"""How fast the client yields a stream's rows, against a plain consumer of the same topic, and how
long a training loop waits on it, in one run.

    python3 -m piper_feed.bench.feed --bootstrap-servers 127.0.0.1:9092 --rows-topic rows \\
        --vocab-topic vocab [--rounds 3] [--step-ms 20]

Each round reads the whole rows topic (committed records, from the start, a consumer group of
its own each time) four ways, one after the other:

- ``plain``: a confluent-kafka consumer with the feed's settings, counting each record's rows
  from its ``piper.rows`` header and touching its value: what any reader pays;
- ``feed``: ``RowsFeed`` on the caller's thread, every record decoded into torch batches and
  checked, the vocabulary topic followed;
- ``prefetch``: the same through ``Prefetcher`` (decoding on a thread of its own, 4 ahead);
- ``loop``: ``Prefetcher`` under a training loop whose step takes ``--step-ms`` of CPU a batch
  (torch matrix products, which release the GIL as a real step's operators do): the time the
  loop spent blocked on the feed, against the steps' time.

A reader's time runs from its first poll to its last record (the idle wait that ends it is not
counted). With ``--passes K`` each reader reads the topic K times in a round, a new consumer (or
feed) each time, and its rate is all the rows over the sum of the passes' times: a topic read in
well under a second gives rates that move 2x from one round to the next, more passes steady
them. The lines print rows/s per reader and round, then the medians and the ratios to ``plain``.
"""

import argparse
import statistics
import time
import uuid

import torch
from confluent_kafka import OFFSET_BEGINNING, TopicPartition

from ..feed.rows import RowsFeed, feed_consumer
from ..feed.prefetch import Prefetcher


def plain(bootstrap, topic, idle_s):
    """Rows and seconds of a plain consumer reading every committed record of ``topic``."""
    c = feed_consumer(bootstrap, f"bench-{uuid.uuid4()}", None)  # the feed's own settings
    meta = c.list_topics(topic, timeout=30).topics[topic]
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in meta.partitions])
    rows, nbytes, start, last = 0, 0, None, None
    idle_since = time.monotonic()
    try:
        while time.monotonic() - idle_since < idle_s:
            m = c.poll(0.2)
            if start is None:
                start = time.perf_counter()
            if m is None:
                continue
            if m.error():
                raise RuntimeError(str(m.error()))
            idle_since = time.monotonic()
            last = time.perf_counter()
            nbytes += len(m.value() or b"")
            for k, v in m.headers() or []:
                if k == "piper.rows":
                    rows += int(v)
                    break
    finally:
        c.close()
    return rows, (last - start) if last else float("nan")


def through_feed(args, prefetch, step_ms=0.0):
    """Rows, seconds to the last batch, and seconds blocked on the feed (prefetch only)."""
    feed = RowsFeed(args.bootstrap_servers, args.rows_topic, args.vocab_topic,
                    idle_timeout_s=args.idle_s)
    source = Prefetcher(feed, depth=args.depth) if prefetch else feed
    a = torch.randn(256, 256)
    rows, start, last, stepping = 0, time.perf_counter(), None, 0.0
    try:
        for batch in source:
            rows += batch.rows
            last = time.perf_counter()
            if step_ms > 0:
                began = time.perf_counter()
                while (time.perf_counter() - began) * 1000.0 < step_ms:
                    a = torch.tanh(a @ a) * 0.5
                stepping += time.perf_counter() - began
    finally:
        if prefetch:
            source.close()
        else:
            feed.close()
    waited = source.wait_s if prefetch else float("nan")
    return rows, (last - start) if last else float("nan"), waited, stepping


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m piper_feed.bench.feed", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bootstrap-servers", required=True)
    p.add_argument("--rows-topic", required=True)
    p.add_argument("--vocab-topic")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--step-ms", type=float, default=20.0,
                   help="CPU time of the loop's simulated step per batch (default 20)")
    p.add_argument("--depth", type=int, default=4, help="Prefetcher's depth (default 4)")
    p.add_argument("--passes", type=int, default=1,
                   help="reads of the topic per reader and round, each by a new consumer; the"
                        " rate is over all of them (default 1)")
    p.add_argument("--idle-s", type=float, default=3.0,
                   help="a reader ends after this many seconds without a record (default 3)")
    args = p.parse_args(argv)
    if args.passes < 1 or args.rounds < 1:
        p.error("--passes and --rounds must be at least 1")
    torch.set_num_threads(1)
    results = {"plain": [], "feed": [], "prefetch": [], "loop": []}
    blocked = []
    expected = None
    for r in range(args.rounds):
        rows, secs = 0, 0.0
        for _ in range(args.passes):
            n, s = plain(args.bootstrap_servers, args.rows_topic, args.idle_s)
            if expected is not None and n != expected:
                raise SystemExit(f"bench.feed: the plain consumer read {n:,} rows, before"
                                 f" {expected:,}: the topic changed during the run")
            expected = n
            rows, secs = rows + n, secs + s
        results["plain"].append(rows / secs)
        for name, prefetch, step in (("feed", False, 0.0), ("prefetch", True, 0.0),
                                     ("loop", True, args.step_ms)):
            total, secs, waited, stepping = 0, 0.0, 0.0, 0.0
            for _ in range(args.passes):
                n, s, w, st = through_feed(args, prefetch, step)
                if n != expected:
                    raise SystemExit(f"bench.feed: {name} read {n:,} rows, the plain consumer"
                                     f" {expected:,}: the topic changed during the run")
                total, secs, waited, stepping = total + n, secs + s, waited + w, stepping + st
            results[name].append(total / secs)
            if name == "loop":
                blocked.append((waited, stepping, secs))
        w, s, t = blocked[-1]
        times = "" if args.passes == 1 else f" x {args.passes} passes"
        print(f"round {r + 1}: {expected:,} rows{times}; rows/s plain {results['plain'][-1]:,.0f},"
              f" feed {results['feed'][-1]:,.0f}, prefetch {results['prefetch'][-1]:,.0f};"
              f" loop with {args.step_ms:g} ms steps: {t:.2f} s, {s:.2f} s stepping,"
              f" {w:.3f} s blocked on the feed", flush=True)
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"medians rows/s: plain {med['plain']:,.0f}, feed {med['feed']:,.0f}"
          f" ({med['feed'] / med['plain']:.2f}), prefetch {med['prefetch']:,.0f}"
          f" ({med['prefetch'] / med['plain']:.2f}); loop blocked"
          f" {statistics.median(b[0] for b in blocked):.3f} s of"
          f" {statistics.median(b[2] for b in blocked):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
