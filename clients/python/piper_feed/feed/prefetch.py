"""The trainer's input pipeline: decode ahead of the training loop, and hand batches to torch.

    feed = RowsFeed("127.0.0.1:9092", "rows", "vocab")
    with Prefetcher(feed, depth=4, pin_memory=True, device="cuda") as batches:
        for batch in batches:      # decoded by a background thread, already on the GPU
            ...
        print(batches.wait_s)      # seconds the loop spent blocked on the feed

or, for ``torch.utils.data.DataLoader``:

    loader = DataLoader(RowsDataset("127.0.0.1:9092", "rows", "vocab"), batch_size=None,
                        num_workers=2, pin_memory=True)

A ``Prefetcher`` reads its source (a ``RowsFeed``, or any iterable of ``Batch``) on a thread of
its own into a bounded queue of ``depth`` batches: the Kafka poll and the record decoding
(numpy, which releases the GIL for the bulk copies) overlap the training step instead of
preceding it. With ``pin_memory`` the thread also copies each batch into page-locked memory, so
that ``device`` transfers (``.to(device, non_blocking=True)``, done as the loop takes the batch)
run asynchronously beside the step. An error in the source (a ``FeedError``) is raised in the
loop, at the batch where it happened; ``close()`` (or leaving the ``with``) stops the thread.

``RowsDataset`` is a ``torch.utils.data.IterableDataset``: each DataLoader worker opens a
``RowsFeed`` of its own over its share of the rows partitions (worker ``w`` of ``W`` within
trainer ``rank`` of ``world`` reads as rank ``rank * W + w`` of ``world * W``), and yields whole
batches (use ``batch_size=None``). DataLoader's own ``pin_memory`` pins them (``Batch`` has a
``pin_memory`` method).
"""

import queue
import threading
import time

import torch
import torch.utils.data

from .rows import RowsFeed

_END = object()


class _Failure:
    def __init__(self, error):
        self.error = error


class Prefetcher:
    """Iterates over ``source``'s batches, read ``depth`` ahead by a background thread."""

    def __init__(self, source, depth=4, pin_memory=False, device=None, non_blocking=True):
        if depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        if pin_memory and not torch.cuda.is_available():
            raise ValueError("pin_memory needs a CUDA device (torch.cuda.is_available() is False);"
                             " leave it off on a CPU-only machine")
        self._source = source
        self._queue = queue.Queue(maxsize=depth)
        self._pin = pin_memory
        self._device = None if device is None else torch.device(device)
        self._non_blocking = non_blocking
        self._stop = threading.Event()
        self._thread = None
        self._done = False
        self.wait_s = 0.0  # seconds the consumer spent blocked in __next__ before a batch
        self.end_wait_s = 0.0  # and before the end (the source's idle timeout, for a feed)
        self.batches = 0  # batches handed to the consumer
        self.read_s = 0.0  # seconds the thread spent reading and decoding (and pinning)

    def __enter__(self):
        return iter(self)

    def __exit__(self, *exc):
        self.close()
        return False

    def __iter__(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="piper-feed-prefetch",
                                            daemon=True)
            self._thread.start()
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        if self._thread is None:
            iter(self)
        started = time.perf_counter()
        item = self._queue.get()
        waited = time.perf_counter() - started
        if item is _END:
            self.end_wait_s = waited
            self._done = True
            self._thread.join()
            raise StopIteration
        if isinstance(item, _Failure):
            self._done = True
            self._thread.join()
            raise item.error
        self.wait_s += waited
        self.batches += 1
        if self._device is not None:
            item = item.to(self._device, non_blocking=self._non_blocking)
        return item

    def close(self):
        """Stops the background thread (it may be blocked on a full queue, or in a source that
        has ``stop``, as ``RowsFeed`` does, polling Kafka) and waits for it, then closes the
        source."""
        self._stop.set()
        self._done = True
        if hasattr(self._source, "stop"):
            self._source.stop()
        if self._thread is not None:
            while self._thread.is_alive():
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass
                self._thread.join(0.05)
        if hasattr(self._source, "close"):
            self._source.close()

    def _put(self, item):
        """Puts ``item`` unless the consumer stopped; False when it did."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self):
        try:
            it = iter(self._source)
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    batch = next(it)
                except StopIteration:
                    break
                if self._pin:
                    batch = batch.pin_memory()
                self.read_s += time.perf_counter() - started
                if not self._put(batch):
                    return
        except BaseException as e:  # raised in the consumer, at this point of the stream
            self._put(_Failure(e))
            return
        self._put(_END)


class RowsDataset(torch.utils.data.IterableDataset):
    """A piper stream's rows as a torch IterableDataset of whole batches (see the module)."""

    def __init__(self, bootstrap_servers, rows_topic, vocab_topic=None, rank=0, world=1,
                 **feed_options):
        super().__init__()
        if not 0 <= rank < world:
            raise ValueError(f"rank {rank} is not in [0, {world})")
        self.bootstrap_servers = bootstrap_servers
        self.rows_topic = rows_topic
        self.vocab_topic = vocab_topic
        self.rank = rank
        self.world = world
        self.feed_options = feed_options

    def share(self):
        """(rank, world) of the feed this process reads: its DataLoader worker's share."""
        info = torch.utils.data.get_worker_info()
        if info is None:
            return self.rank, self.world
        return self.rank * info.num_workers + info.id, self.world * info.num_workers

    def __iter__(self):
        rank, world = self.share()
        feed = RowsFeed(self.bootstrap_servers, self.rows_topic, self.vocab_topic, rank=rank,
                        world=world, **self.feed_options)
        try:
            yield from feed
        finally:
            feed.close()
