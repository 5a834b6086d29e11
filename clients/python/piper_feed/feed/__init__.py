"""The feed: the rows and vocabulary records a piper stream commits, read for trainers.

``records`` decodes one record (numpy only, no Kafka client or torch); ``rows`` reads the topics
into torch batches (``RowsFeed``, ``Batch``); ``prefetch`` reads ahead on a thread
(``Prefetcher``). The torch-bound names load when first asked for, as the package's do.
"""

from .records import FeedError, RowsBlock, decode_rows, decode_vocab

__all__ = ["Batch", "RowsFeed", "FeedError", "RowsBlock", "decode_rows", "decode_vocab",
           "batch_of", "feed_consumer", "await_topic", "Prefetcher"]

_ROWS = ("Batch", "RowsFeed", "batch_of", "feed_consumer", "await_topic")


def __getattr__(name):
    """The names of ``rows`` and ``prefetch`` (torch, confluent-kafka), loaded when first asked."""
    if name in _ROWS:
        from . import rows
        return getattr(rows, name)
    if name == "Prefetcher":
        from . import prefetch
        return prefetch.Prefetcher
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
