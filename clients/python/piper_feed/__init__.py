"""piper_feed: read a piper stream's Kafka feed into torch batches, and train on it.

RowsFeed (piper_feed.feed) iterates over the committed rows; ``python3 -m piper_feed.train``
trains a small DLRM online and writes JSON metrics; ``python3 -m piper_feed.train.plot`` draws
the online-versus-frozen figure of docs/ONLINE.md. Subpackages: ``feed`` (records, the feed, its
prefetcher), ``train`` (model, training loop, checkpoints), ``serve`` (a served answer as a
batch, the end-to-end serving check), ``transform`` (a request as the model's inputs) and
``bench``.
"""

import os

# OpenBLAS (under Debian's numpy and torch) starts a thread per core that spins between calls:
# beside a stream on the same cores it doubled the trainer's CPU for nothing (50 -> 19 ms of CPU
# per 1,024-row step with one thread). Set before numpy loads; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .feed.records import FeedError, RowsBlock, decode_rows, decode_vocab  # noqa: E402

__all__ = ["Batch", "RowsFeed", "FeedError", "RowsBlock", "decode_rows", "decode_vocab"]


def __getattr__(name):
    """Batch and RowsFeed load with the feed (torch, confluent-kafka) when first asked for, not
    with the package: a serving process that runs only the transform (``python3 -m
    piper_feed.transform``) started 1.8 s sooner without them."""
    if name in ("Batch", "RowsFeed"):
        from .feed import rows
        return getattr(rows, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
