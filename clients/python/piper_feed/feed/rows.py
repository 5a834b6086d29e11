"""An iterable over a piper stream's committed rows, for trainers.

    feed = RowsFeed("127.0.0.1:9092", "rows", "vocab", rank=0, world=1)
    for batch in feed:
        ...  # batch.labels, batch.dense, batch.sparse, batch.lists, batch.table_sizes

It reads the rows topic with ``isolation.level=read_committed`` (only what the stream's
checkpoints committed, each row once), worker ``rank`` of ``world`` taking the partitions
``p`` with ``p % world == rank``. It follows the vocabulary topic so that, before a batch is
yielded, every index the batch uses has been announced there: ``batch.table_sizes`` then says
how many rows each embedding table needs (OOV buckets plus entries) for each column and
vocabulary epoch.

An evicting column (``"evict"`` in its vocab op) reuses indices: each batch then carries
``reused``, per (column, epoch) the indices whose embedding rows must be re-initialised before
training on it (an evicted key's index now names a new key). The feed applies each column's
assignment records in number order up to the block's own, so no batch is yielded before the
assignments its rows depend on. A block whose count is below what was applied already (with
several input partitions, another partition's block came first) is counted in
``feed.late_blocks``: its rows may use a few indices already re-initialised for newer keys.

With Hotline's split (``stream --hotline-budget``), each batch also carries ``popular`` (one
flag per row) and ``working`` (per column, the non-hot indices its non-popular rows use), and
``batch.split()`` gives the popular and the non-popular micro-batch; ``feed.hot_sets`` holds
every window's hot set read so far (the embedding rows to keep in GPU memory).
"""

import bisect
import dataclasses
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
from confluent_kafka import (OFFSET_BEGINNING, TIMESTAMP_NOT_AVAILABLE, Consumer, KafkaException,
                             TopicPartition)

from .records import (AssignmentRecord, FeedError, decode_hot_set, decode_rows, decode_vocab,
                      is_hot_set)


@dataclass
class Batch:
    """One block of rows as torch tensors."""

    labels: torch.Tensor  # float32 [rows]
    dense: torch.Tensor  # float32 [rows, dense slots]
    sparse: torch.Tensor  # int64 [rows, scalar sparse columns]
    sparse_names: list
    # name -> (values int64, offsets int64 [rows + 1]): the last offset ends the last row's ids,
    # so nn.EmbeddingBag takes them with include_last_offset=True, or use batch.bags(name)
    lists: dict
    epochs: dict  # sparse column -> vocabulary epoch of its indices
    table_sizes: dict  # (column, epoch) -> rows its embedding table needs so far
    timestamps_ms: np.ndarray  # per row, its input record's timestamp (ms), or None
    source: tuple  # (input topic, input partition, block)
    pipeline: str
    popular: torch.Tensor = None  # bool [rows] with Hotline's split, else None
    working: dict = None  # column -> int64 tensor of the non-popular rows' non-hot indices
    reused: dict = None  # (column, epoch) -> int64 tensor of indices to re-initialise first
    received_ms: float = None  # when the feed read the block's record from Kafka (ms), or None
    written_ms: float = None  # the record's timestamp: when the stream's sink wrote it (ms)
    event_times_ms: np.ndarray = None  # per row, its event time (input.timestamp, int64 ms), or None
    # label/dense/generated columns holding bucket numbers (a chain ending with bucketize) -> their
    # numbers of buckets; their values are in batch.dense (or labels) among the others
    bucketized: dict = None
    dense_names: list = None  # the names of batch.dense's slots
    # the vocabulary position the feed had reached once it yielded this block (a model trained on
    # it is served with the vocabularies at this position): see ``position_document``
    vocab_position: dict = None  # sparse column -> (epoch, OOV buckets, position)

    def position_document(self, source=""):
        """The vocabulary position of this batch as a position file holds it (the JSON object
        ``piper vocab snapshot --position`` reads; docs/SERVING.md), or None where the stream
        states no positions (no --vocab-topic)."""
        if not self.vocab_position:
            return None
        return {
            "format": "piper-vocab-position",
            "version": 1,
            "pipeline": self.pipeline,
            "source": source,
            "columns": {name: {"epoch": e, "oov_buckets": b, "position": n}
                        for name, (e, b, n) in sorted(self.vocab_position.items(),
                                                      key=lambda kv: _column_number(kv[0]))},
        }

    @property
    def rows(self):
        return len(self.labels)

    def select(self, mask):
        """The rows where ``mask`` (bool [rows]) holds, as a batch of their own."""
        index = torch.nonzero(mask, as_tuple=False).flatten()
        lists = {}
        for name, (values, offsets) in self.lists.items():
            starts, ends = offsets[:-1][index], offsets[1:][index]
            lengths = ends - starts
            new_offsets = torch.zeros(len(index) + 1, dtype=torch.int64)
            torch.cumsum(lengths, 0, out=new_offsets[1:])
            picked = [values[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
            lists[name] = (torch.cat(picked) if picked else values[:0], new_offsets)
        # the per-row fields picked; every other field is the block's
        return dataclasses.replace(
            self, labels=self.labels[index], dense=self.dense[index], sparse=self.sparse[index],
            lists=lists,
            timestamps_ms=None if self.timestamps_ms is None
            else self.timestamps_ms[index.numpy()],
            event_times_ms=None if self.event_times_ms is None
            else self.event_times_ms[index.numpy()],
            popular=None if self.popular is None else self.popular[index])

    def bags(self, name):
        """List column ``name`` as nn.EmbeddingBag takes it by default (include_last_offset
        False): its values and the offset where each row's ids start ([rows], no closing one)."""
        values, offsets = self.lists[name]
        return values, offsets[:-1]

    def tables(self):
        """Per column whose values index an embedding table, the rows that table needs: for a
        sparse column (scalar or list) OOV buckets plus entries at the batch's vocabulary epoch,
        for a bucketized one its number of buckets."""
        tables = {name: self.table_sizes[(name, epoch)] for name, epoch in self.epochs.items()
                  if (name, epoch) in self.table_sizes}
        tables.update(self.bucketized or {})
        return tables

    def bucket_ids(self, name):
        """Bucketized column ``name``'s bucket numbers, int64 [rows], for its embedding table."""
        if name not in (self.bucketized or {}):
            raise FeedError(f"{self.source}: {name} is not a bucketized column (those of this"
                            f" batch: {', '.join(self.bucketized or {}) or 'none'})")
        if name == "label":
            return self.labels.to(torch.int64)
        return self.dense[:, self.dense_names.index(name)].to(torch.int64)

    def weights(self, name):
        """Dense column ``name`` as each row's weight, float32 [rows]: the label join's
        ``labels.weight`` where the spec maps it to a column (a kept negative's is
        1 / ``negative_sample_rate``, every other row's 1; docs/SPECS.md, "Negative sampling")."""
        names = self.dense_names or []
        if name not in names:
            raise FeedError(f"{self.source}: no dense column {name} to weigh the rows by (this"
                            f" batch's: {', '.join(names) or 'none'}); map labels.weight to one")
        w = self.dense[:, names.index(name)]
        if self.rows and not bool((w > 0).all()):
            raise FeedError(f"{self.source}: weight column {name} holds {w.min().item():g}: a"
                            " weight is above 0 (map labels.weight to it, with the chain decode,"
                            " fill_missing and nothing after)")
        return w

    def without_dense(self, name):
        """The batch without dense column ``name`` (a row's weight weighs its loss and is no
        feature: a kept negative's weight would tell the model its label)."""
        names = self.dense_names or []
        if name not in names:
            raise FeedError(f"{self.source}: no dense column {name} (this batch's:"
                            f" {', '.join(names) or 'none'})")
        keep = [j for j, n in enumerate(names) if n != name]
        return dataclasses.replace(self, dense=self.dense[:, keep],
                                   dense_names=[names[j] for j in keep])

    def keyed_jagged(self):
        """The sparse columns in TorchRec's KeyedJaggedTensor layout (see ``KeyedJagged``)."""
        names = sorted(list(self.sparse_names) + list(self.lists), key=_column_number)
        rows = self.rows
        values, lengths = [], []
        for name in names:
            if name in self.lists:
                v, o = self.lists[name]
                values.append(v)
                lengths.append(o[1:] - o[:-1])
            else:
                values.append(self.sparse[:, self.sparse_names.index(name)])
                lengths.append(torch.ones(rows, dtype=torch.int64))
        flat = torch.cat(lengths) if lengths else torch.zeros(0, dtype=torch.int64)
        offsets = torch.zeros(len(flat) + 1, dtype=torch.int64)
        torch.cumsum(flat, 0, out=offsets[1:])
        return KeyedJagged(keys=names,
                           values=torch.cat(values) if values else torch.zeros(0, dtype=torch.int64),
                           lengths=flat, offsets=offsets)

    def _map_tensors(self, f):
        """A copy with ``f`` applied to every tensor of the batch."""
        def opt(t):
            return None if t is None else f(t)
        return dataclasses.replace(
            self, labels=f(self.labels), dense=f(self.dense), sparse=f(self.sparse),
            lists={n: (f(v), f(o)) for n, (v, o) in self.lists.items()},
            popular=opt(self.popular),
            working=None if self.working is None
            else {n: f(w) for n, w in self.working.items()},
            reused=None if self.reused is None else {k: f(r) for k, r in self.reused.items()})

    def to(self, device, non_blocking=False):
        """The batch's tensors on ``device`` (asynchronous from pinned memory with
        ``non_blocking``); the numpy fields (times) stay on the host."""
        return self._map_tensors(lambda t: t.to(device, non_blocking=non_blocking))

    def pin_memory(self):
        """The batch's tensors in page-locked memory (needs CUDA), for asynchronous copies;
        DataLoader(pin_memory=True) calls it."""
        return self._map_tensors(lambda t: t.pin_memory())

    def split(self):
        """Hotline's micro-batches: (popular rows, non-popular rows); needs a split feed."""
        if self.popular is None:
            raise FeedError(f"{self.source}: the stream wrote no Hotline split"
                            " (run it with --hotline-budget)")
        return self.select(self.popular), self.select(~self.popular)


def batch_of(block, table_sizes, reused=None, received_ms=None, written_ms=None,
             vocab_position=None):
    """A decoded block (``records.RowsBlock``) as a ``Batch`` of torch tensors."""
    return Batch(
        labels=torch.from_numpy(block.labels.astype(np.float32)),
        dense=torch.from_numpy(block.dense),
        sparse=torch.from_numpy(block.sparse),
        sparse_names=block.sparse_names,
        lists={n: (torch.from_numpy(v), torch.from_numpy(o)) for n, (v, o) in block.lists.items()},
        epochs=block.epochs,
        table_sizes=table_sizes,
        timestamps_ms=block.row_timestamps_ms(),
        source=(block.input_topic, block.input_partition, block.block),
        pipeline=block.pipeline,
        popular=None if block.popular is None else torch.from_numpy(block.popular),
        working=None if block.working is None
        else {n: torch.from_numpy(w) for n, w in block.working.items()},
        reused=reused,
        received_ms=received_ms,
        written_ms=written_ms,
        event_times_ms=block.event_times_ms,
        bucketized=block.bucketized,
        dense_names=block.dense_names,
        vocab_position=vocab_position,
    )


def _column_number(name):
    return int(name[1:])


@dataclass
class KeyedJagged:
    """A batch's sparse columns as TorchRec's KeyedJaggedTensor holds them, key-major: for each
    key (column, in column order) the ids of every row, scalar columns one id a row.

    ``lengths`` has ``len(keys) * rows`` entries (key 0's rows, then key 1's, ...), ``offsets``
    one more (their running sum from 0). With torchrec installed, one line converts it:
    ``KeyedJaggedTensor(keys=kj.keys, values=kj.values, lengths=kj.lengths)``.
    """

    keys: list
    values: torch.Tensor  # int64
    lengths: torch.Tensor  # int64 [len(keys) * rows]
    offsets: torch.Tensor  # int64 [len(keys) * rows + 1]

    def column(self, name, rows):
        """Column ``name``'s (values, per-row offsets [rows + 1]) back from the layout."""
        k = self.keys.index(name)
        start, end = int(self.offsets[k * rows]), int(self.offsets[(k + 1) * rows])
        return self.values[start:end], self.offsets[k * rows:(k + 1) * rows + 1] - start


def _sent_ms(message):
    """A rows record's timestamp (the stream's sink sets none, so Kafka's producer stamps the
    time it was sent), or None if the topic keeps no timestamps."""
    kind, stamp = message.timestamp()
    return None if kind == TIMESTAMP_NOT_AVAILABLE else float(stamp)


def feed_consumer(bootstrap, group, extra):
    conf = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "fetch.max.bytes": 64 << 20,
        "max.partition.fetch.bytes": 16 << 20,
        # never make the broker create a topic the stream has not created yet (with its defaults)
        "allow.auto.create.topics": False,
    }
    conf.update(extra or {})
    return Consumer(conf)


def await_topic(consumer, name, kind, bootstrap, deadline, report_s=10.0):
    """The metadata of topic ``name`` once it exists; a FeedError naming it at ``deadline``."""
    last_report = time.monotonic()
    while True:
        metadata = consumer.list_topics(name, timeout=30).topics.get(name)
        if metadata is not None and metadata.error is None and metadata.partitions:
            return metadata
        now = time.monotonic()
        if now >= deadline:
            raise FeedError(f"{kind} topic {name} does not exist on {bootstrap}: is 'piper stream'"
                            " running with it? It creates the topic as it starts")
        if now - last_report >= report_s:
            print(f"feed: waiting for {kind} topic {name} to be created by the stream",
                  file=sys.stderr, flush=True)
            last_report = now
        time.sleep(0.25)


class RowsFeed:
    """Iterates over the committed rows of a piper stream (see the module's text)."""

    def __init__(self, bootstrap_servers, rows_topic, vocab_topic=None, rank=0, world=1,
                 idle_timeout_s=30.0, vocab_timeout_s=60.0, kafka_config=None):
        if not 0 <= rank < world:
            raise ValueError(f"rank {rank} is not in [0, {world})")
        self.rows_topic = rows_topic
        self.vocab_topic = vocab_topic
        self.idle_timeout_s = idle_timeout_s
        self.vocab_timeout_s = vocab_timeout_s
        group = f"piper-feed-{rows_topic}-{rank}-of-{world}"
        self._rows = feed_consumer(bootstrap_servers, group, kafka_config)
        # The feed may start before the stream that creates its topics: wait for them, as long
        # as it waits for records.
        deadline = time.monotonic() + idle_timeout_s
        topic = await_topic(self._rows, rows_topic, "rows", bootstrap_servers, deadline)
        self.partitions = sorted(p for p in topic.partitions if p % world == rank)
        self._rows.assign([TopicPartition(rows_topic, p, OFFSET_BEGINNING)
                           for p in self.partitions])
        self._vocab = None
        self.table_sizes = {}
        if vocab_topic is not None:
            self._vocab = feed_consumer(bootstrap_servers, group + "-vocab", kafka_config)
            vmeta = await_topic(self._vocab, vocab_topic, "vocabulary", bootstrap_servers,
                                deadline)
            self._vocab.assign([TopicPartition(vocab_topic, p, OFFSET_BEGINNING)
                                for p in vmeta.partitions])
        self.hot_sets = {}  # window -> HotSetRecord, from the vocabulary topic
        # evicting columns: (column, epoch) -> assignments applied, and records waiting by number
        self.applied = {}
        self._waiting = {}
        self.keys = {}  # (column, epoch) -> {index: key}, as the assignments applied say
        # string-id (hash64) columns: (column, epoch) -> {index: original string}
        self.names = {}
        self.late_blocks = 0
        self.seen_blocks = set()
        self.duplicate_blocks = 0
        # (input topic, input partition) -> sorted, disjoint [first, last] input offsets read
        self.read_offsets = {}
        # (rows partition, input topic, input partition) -> block numbers read there
        self._lanes = {}
        self._rows_partitions = len(topic.partitions)
        # non-evicting vocabularies: (column, epoch) -> next index and records waiting for it
        self._vocab_next = {}
        self._vocab_waiting = {}
        self.records = 0
        self._stopping = False
        # sparse column -> (epoch, OOV buckets, position): the furthest position of the blocks
        # yielded (a column's epoch only grows; within one, its position)
        self.vocab_position = {}

    def stop(self):
        """Makes an iteration in progress (on another thread) end within a poll's time (0.2 s);
        call ``close`` once it has ended."""
        self._stopping = True

    def _check_stopping(self, block):
        if self._stopping:
            raise FeedError(f"{block.where}: the feed was stopped while waiting for the"
                            f" vocabulary topic {self.vocab_topic}")

    def close(self):
        self._rows.close()
        if self._vocab is not None:
            self._vocab.close()

    def _poll_vocab(self, timeout):
        message = self._vocab.poll(timeout)
        if message is None:
            return False
        if message.error():
            raise KafkaException(message.error())
        if is_hot_set(message):
            hot = decode_hot_set(message)
            self.hot_sets[hot.window] = hot
            return True
        v = decode_vocab(message)
        key = (v.column, v.epoch)
        if isinstance(v, AssignmentRecord):
            if v.first < self.applied.get(key, 0) or v.first in self._waiting.get(key, {}):
                raise FeedError(f"{message.topic()}/{message.partition()}@{message.offset()}:"
                                f" {v.column} assignments from {v.first} seen twice")
            self._waiting.setdefault(key, {})[v.first] = v
            return True
        where = f"{message.topic()}/{message.partition()}@{message.offset()}"
        waiting = self._vocab_waiting.setdefault(key, {})
        reached = self._vocab_next.get(key, v.buckets)
        if v.first_index < reached or v.first_index in waiting:
            # piper consume refuses the same: an index announced twice may name two keys
            raise FeedError(f"{where}: {v.column} (epoch {v.epoch}) entries from index"
                            f" {v.first_index} seen twice")
        waiting[v.first_index] = v.count
        if v.names:
            self.names.setdefault(key, {}).update(v.names)
        while reached in waiting:
            reached += waiting.pop(reached)
        self._vocab_next[key] = reached
        self.table_sizes[key] = max(self.table_sizes.get(key, v.buckets), v.first_index + v.count)
        return True

    def _read_before(self, block, source):
        """Whether ``block``'s rows were read already: its input offsets lie in what was read
        (a stream resumed from an earlier snapshot writes them again, possibly cut into other
        blocks with the same numbers). A block whose offsets were read in part cannot be split
        by offset: the feed stops rather than train some rows twice. Records that state no
        offsets are recognised by their block number."""
        if block.input_offsets is None:
            return source in self.seen_blocks
        first, last = block.input_offsets
        ranges = self.read_offsets.setdefault((block.input_topic, block.input_partition), [])
        i = bisect.bisect_right(ranges, [first, float("inf")])
        at = i - 1 if i > 0 and ranges[i - 1][1] >= first else i
        overlapping = []
        while at < len(ranges) and ranges[at][0] <= last:
            overlapping.append(ranges[at])
            at += 1
        if not overlapping:
            if i > 0 and ranges[i - 1][1] + 1 == first:
                ranges[i - 1][1] = last
            else:
                ranges.insert(i, [first, last])
            return False
        covered = first
        for lo, hi in overlapping:
            if lo > covered:
                break
            covered = max(covered, hi + 1)
        if covered > last:
            return True
        raise FeedError(f"{block.where}: block {block.block} of {block.input_topic}/"
                        f"{block.input_partition} holds input offsets {first}-{last}, of which"
                        f" {', '.join(f'{lo}-{hi}' for lo, hi in overlapping)} were read before;"
                        " its rows cannot be split by offset, so the feed stops rather than"
                        " train some of them twice")

    def _check_no_gaps(self):
        """At the end of the feed, refuses a block missing between two read: block b of input
        partition p goes to rows partition (p + b) mod N, so each rows partition holds every N-th
        block of an input partition, and all of them up to the last read are committed by then."""
        n = self._rows_partitions
        for (q, topic, p), blocks in sorted(self._lanes.items()):
            lo, hi = min(blocks), max(blocks)
            missing = [b for b in range(lo, hi + 1, n) if b not in blocks]
            if missing:
                shown = ", ".join(str(b) for b in missing[:5])
                raise FeedError(
                    f"rows topic {self.rows_topic} partition {q}: block(s) {shown}"
                    f"{' ...' if len(missing) > 5 else ''} of {topic}/{p} never arrived, between"
                    f" blocks {lo} and {hi} read there: the output read is not complete (a"
                    " transaction still open, or records removed)")

    def _apply_assignments(self, block):
        """Applies each evicting column's assignments up to the block's own (waiting for their
        records) and returns the indices they reused, by (column, epoch)."""
        reused = {}
        deadline = time.monotonic() + self.vocab_timeout_s
        for name, (before, own) in (block.assignments or {}).items():
            key = (name, block.epochs[name])
            need = before + own
            done = self.applied.get(key, 0)
            if done > before:
                self.late_blocks += 1
            indices = []
            keys = self.keys.setdefault(key, {})
            while done < need:
                record = self._waiting.get(key, {}).pop(done, None)
                if record is None:
                    self._check_stopping(block)
                    if self._vocab is None:
                        raise FeedError(f"{block.where}: {name} evicts; read the vocabulary topic"
                                        " too (vocab_topic) to know which indices were reused")
                    if time.monotonic() > deadline:
                        raise FeedError(
                            f"{block.where}: {name} (epoch {key[1]}) needs assignments up to"
                            f" {need}, but the vocabulary topic {self.vocab_topic} gave {done}"
                            f" within {self.vocab_timeout_s:.0f} s")
                    self._poll_vocab(0.1)
                    continue
                names = self.names.setdefault(key, {}) if any(record.names or []) else None
                for i, (index, k, again) in enumerate(
                        zip(record.indices, record.keys, record.reused)):
                    keys[index] = k
                    if names is not None and record.names[i] is not None:
                        names[index] = record.names[i]
                    elif again:
                        self.names.get(key, {}).pop(index, None)  # the evicted key's string
                    if again:
                        indices.append(index)
                    self.table_sizes[key] = max(self.table_sizes.get(key, record.buckets),
                                                index + 1)
                done += record.count
            self.applied[key] = done
            if indices:
                reused[key] = torch.tensor(indices, dtype=torch.int64)
        return reused

    def _await_vocabulary(self, block):
        """Reads the vocabulary topic until every index of ``block`` has been announced."""
        if self._vocab is None:
            for name, top in block.max_indices().items():
                key = (name, block.epochs[name])
                self.table_sizes[key] = max(self.table_sizes.get(key, 0), top + 1)
            return
        deadline = time.monotonic() + self.vocab_timeout_s
        while True:
            while self._poll_vocab(0):
                pass
            missing = [(n, block.epochs[n], top) for n, top in block.max_indices().items()
                       if top >= self.table_sizes.get((n, block.epochs[n]), block.buckets[n])]
            if not missing:
                return
            self._check_stopping(block)
            if time.monotonic() > deadline:
                n, epoch, top = missing[0]
                raise FeedError(
                    f"{block.where}: {n} (epoch {epoch}) uses index {top}, but the vocabulary"
                    f" topic {self.vocab_topic} announced {self.table_sizes.get((n, epoch), 0)}"
                    f" entries within {self.vocab_timeout_s:.0f} s")
            self._poll_vocab(0.1)

    def __iter__(self):
        last = time.monotonic()
        while not self._stopping:
            message = self._rows.poll(0.2)
            if message is None:
                if time.monotonic() - last > self.idle_timeout_s:
                    self._check_no_gaps()
                    return
                continue
            if message.error():
                raise KafkaException(message.error())
            received_ms = time.time() * 1000.0
            last = time.monotonic()
            block = decode_rows(message)
            self.records += 1
            source = (block.input_topic, block.input_partition, block.block)
            if self._read_before(block, source):
                self.duplicate_blocks += 1
                continue
            self.seen_blocks.add(source)
            self._lanes.setdefault((message.partition(), block.input_topic,
                                    block.input_partition), set()).add(block.block)
            if block.rows == 0:
                continue
            reused = self._apply_assignments(block)
            self._await_vocabulary(block)
            self._advance_position(block)
            yield batch_of(
                block, dict(self.table_sizes), reused=reused, received_ms=received_ms,
                written_ms=_sent_ms(message),
                vocab_position=dict(self.vocab_position) if self.vocab_position else None)

    def _advance_position(self, block):
        """Moves each column's position to the block's where that is further on."""
        for name, n in (block.vocab_position or {}).items():
            mine = (block.epochs[name], n)
            known = self.vocab_position.get(name)
            if known is None or (known[0], known[2]) < mine:
                self.vocab_position[name] = (mine[0], block.buckets[name], mine[1])
