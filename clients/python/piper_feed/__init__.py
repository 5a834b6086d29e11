"""piper_feed: read a piper stream's Kafka feed into torch batches, and train on it.

RowsFeed (piper_feed.feed) iterates over the committed rows; ``python3 -m piper_feed.train``
trains a small DLRM online and writes JSON metrics; ``python3 -m piper_feed.plot`` draws the
online-versus-frozen figure of docs/ONLINE.md.
"""

from .feed import Batch, RowsFeed
from .records import FeedError, RowsBlock, decode_rows, decode_vocab

__all__ = ["Batch", "RowsFeed", "FeedError", "RowsBlock", "decode_rows", "decode_vocab"]
