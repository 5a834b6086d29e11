"""Trains a small DLRM online from a piper stream and writes JSON metrics.

    python3 -m piper_feed.train --bootstrap-servers 127.0.0.1:9092 --rows-topic rows \\
        --vocab-topic vocab --max-rows 200000 --metrics-out metrics.json

Progressive validation: every mini-batch is scored before the model trains on it, and the
scores of each window of --window-rows rows give its AUC, log loss and calibration (mean
predicted CTR against observed). Freshness is the time from a row's input record timestamp to
the training step that used it.

Rows of a label join with sampled negatives carry their weight in a dense column
(``labels.weight``): with ``--weight-column`` each row's loss counts its weight, the column is no
feature, and calibration is measured over the population the rows stand for (``calibration``).
"""

import argparse
import dataclasses
import json
import math
import sys
import time

import numpy as np
import torch
from torch import nn

from . import checkpoint
from .calibration import calibration, from_sums
from ..feed.rows import RowsFeed
from .model import Dlrm
from ..feed.prefetch import Prefetcher
from ..feed.records import FeedError


def auc(scores, labels):
    """The AUC by ranks (ties count one half); NaN without both classes."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels) > 0.5
    pos = labels.sum()
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    sorted_scores = scores[order]
    # tied scores share the mean of their ranks (1-based): a run of ties from i to j has (i+j)/2+1
    first = np.r_[True, sorted_scores[1:] != sorted_scores[:-1]]
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], len(scores)] - 1
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[order] = ((starts + ends) / 2.0 + 1)[np.cumsum(first) - 1]
    return float((ranks[labels].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def logloss(probabilities, labels):
    p = np.clip(np.asarray(probabilities, dtype=np.float64), 1e-7, 1 - 1e-7)
    y = np.asarray(labels, dtype=np.float64)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def row_ages(batch, at_ms):
    """Each row's age at ``at_ms`` (seconds since its input record's timestamp), or None if the
    rows have no timestamps or the time is unknown."""
    if batch.timestamps_ms is None or at_ms is None:
        return None
    return ((at_ms - batch.timestamps_ms) / 1000.0).tolist()


def shape_of(batch):
    """A batch's shape as the model sees it: its dense slots and its sparse columns, C1 first."""
    columns = sorted(list(batch.sparse_names) + list(batch.lists), key=lambda n: int(n[1:]))
    return batch.dense.shape[1], columns


def learn(model, dense_opt, logits, lookup, labels, embedding_lr, weights=None):
    """One step on a scored batch: Adam on the dense parameters, Adagrad by hand on the embedding
    rows its lookup used. With ``weights``, each row's loss counts its weight (the weighted mean:
    a batch's loss keeps the scale of an unweighted one)."""
    if weights is None:
        loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
    else:
        each = nn.functional.binary_cross_entropy_with_logits(logits, labels, reduction="none")
        loss = (weights * each).sum() / weights.sum()
    dense_opt.zero_grad()
    loss.backward()
    dense_opt.step()
    if lookup.rows.grad is not None:  # None: the model has no sparse column
        with torch.no_grad():
            model.store.adagrad(lookup.ids, lookup.rows.grad, embedding_lr)


class Trainer:
    """The online loop: tables grown from the feed, score then train, windows of metrics."""

    def __init__(self, args):
        self.args = args
        self.model = None
        self.dense_opt = None
        self.rows = 0
        # per row: score, label, age when trained, age when read from Kafka (None without a
        # timestamp) and weight (1 without --weight-column)
        self.window = ([], [], [], [], [])
        # after the first --calibration-after-rows rows: the sums of weight, weight x score and
        # weight x label, for the run's calibration (constant memory, for a feed of months)
        self.calibrated = [0.0, 0.0, 0.0]
        self.windows = []
        self.freshness = []  # per row, input record timestamp to the training step (s)
        self.delivery = []  # per row, input record timestamp to the feed's read of its block (s)
        self.written = []  # per row, input record timestamp to the stream's write of its block (s)
        self.event_ages = []  # per row with an event time (input.timestamp), its age when trained (s)
        self.frozen = False
        self.reinitialised = 0  # embedding rows re-initialised for an evicting column's reuse
        self.shape = None  # (dense slots, sparse columns) the model is built for

    def _build(self, batch):
        torch.manual_seed(self.args.seed)
        self.shape = shape_of(batch)
        self.model = Dlrm(self.shape[0], self.shape[1], self.args.embedding_dim)
        self.dense_opt = torch.optim.Adam(self.model.parameters(), lr=self.args.lr)

    def _ensure_tables(self, batch):
        for name in self.model.columns:
            epoch = batch.epochs[name]
            size = batch.table_sizes.get((name, epoch), 0)
            self.model.store.ensure((name, epoch), max(size, 1))

    def _reinitialise(self, batch):
        """An evicting column's reused indices name new keys: their rows start afresh, as a new
        entry's would (random weights, no accumulated Adagrad state)."""
        for (name, epoch), indices in (batch.reused or {}).items():
            self.model.store.reinitialise((name, epoch), indices)
            self.reinitialised += len(indices)

    def step(self, batch, now_ms):
        weights = None
        if self.args.weight_column is not None:
            weights = batch.weights(self.args.weight_column)
            batch = batch.without_dense(self.args.weight_column)
        if self.model is None:
            self._build(batch)
        dense, columns = shape_of(batch)
        if (dense, columns) != self.shape:
            raise FeedError(
                f"block {batch.source} ({batch.pipeline}) has {dense} dense slots and"
                f" sparse columns {columns}; the model was built for {self.shape[0]} and"
                f" {self.shape[1]} (a spec switch changed the rows' shape: train a new model)")
        self._ensure_tables(batch)
        self._reinitialise(batch)
        logits, lookup = self.model(batch)
        probabilities = torch.sigmoid(logits).detach().numpy()
        self.window[0].extend(probabilities.tolist())
        self.window[1].extend(batch.labels.numpy().tolist())
        w = np.ones(batch.rows) if weights is None else weights.numpy().astype(np.float64)
        self.window[4].extend(w.tolist())
        self._calibrate(probabilities, batch.labels.numpy(), w)
        if not self.frozen:
            learn(self.model, self.dense_opt, logits, lookup, batch.labels,
                  self.args.embedding_lr, weights)
        for at_ms, kept, column in ((now_ms, self.freshness, 2),
                                    (batch.received_ms, self.delivery, 3),
                                    (batch.written_ms, self.written, None)):
            ages = row_ages(batch, at_ms)
            kept.extend(ages or [])
            if column is not None:
                self.window[column].extend(ages or [None] * batch.rows)
        if batch.event_times_ms is not None:
            self.event_ages.extend(((now_ms - batch.event_times_ms) / 1000.0).tolist())
        self.rows += batch.rows
        while len(self.window[0]) >= self.args.window_rows:
            self._close_window(self.args.window_rows)
        if self.args.freeze_after_rows is not None and self.rows >= self.args.freeze_after_rows:
            self.frozen = True

    def _calibrate(self, probabilities, labels, weights):
        """Adds the rows past the first --calibration-after-rows to the run's calibration."""
        skip = max(0, min(len(weights), self.args.calibration_after_rows - self.rows))
        w = weights[skip:]
        self.calibrated[0] += float(w.sum())
        self.calibrated[1] += float((w * probabilities[skip:]).sum())
        self.calibrated[2] += float((w * labels[skip:]).sum())

    def calibration(self):
        """The run's calibration over its rows past the first --calibration-after-rows, each
        counting its weight: mean predicted CTR, observed CTR and their ratio (NaN without rows
        or without a positive)."""
        return from_sums(*self.calibrated)

    def _close_window(self, n):
        scores, labels = self.window[0][:n], self.window[1][:n]
        calibrated = calibration(scores, labels, self.window[4][:n])
        # the window's own rows' ages: a step's rows past the window belong to the next one
        ages = [a for a in self.window[2][:n] if a is not None]
        delivered = [a for a in self.window[3][:n] if a is not None]
        self.window = tuple(column[n:] for column in self.window)
        self.windows.append({
            "rows": self.rows - len(self.window[0]),
            "auc": auc(scores, labels),
            "logloss": logloss(scores, labels),
            **calibrated,
            "frozen": self.frozen,
            "freshness_p99_s": percentile(ages, 99),
            "delivery_p99_s": percentile(delivered, 99),
        })

    def finish(self):
        if self.window[0]:
            self._close_window(len(self.window[0]))


def split(batch, size):
    """Mini-batches of at most ``size`` rows of a block (lists cut at row boundaries)."""
    if batch.rows <= size:
        yield batch
        return
    for start in range(0, batch.rows, size):
        end = min(batch.rows, start + size)
        lists = {}
        for name, (values, offsets) in batch.lists.items():
            lists[name] = (values[offsets[start]: offsets[end]], offsets[start: end + 1] - offsets[start])
        # the per-row fields cut; every other field (the working parameters too, a superset)
        # is the block's
        yield dataclasses.replace(
            batch, labels=batch.labels[start:end], dense=batch.dense[start:end],
            sparse=batch.sparse[start:end], lists=lists,
            timestamps_ms=None if batch.timestamps_ms is None else batch.timestamps_ms[start:end],
            event_times_ms=None if batch.event_times_ms is None
            else batch.event_times_ms[start:end],
            popular=None if batch.popular is None else batch.popular[start:end],
            # the block's reused rows start afresh once, before its first mini-batch
            reused=batch.reused if start == 0 else None)


def progress(trainer, stepping):
    """The periodic report: rows, the last window's AUC and freshness, and how fast the steps
    train (once that nears the feed's rate, rows queue and freshness grows)."""
    text = f"train: {trainer.rows:,} rows"
    if trainer.windows:
        last = trainer.windows[-1]
        text += f", window AUC {last['auc']:.4f}"
        if not math.isnan(last["calibration"]):
            text += f", calibration {last['calibration']:.3f}"
        if not math.isnan(last["freshness_p99_s"]):  # the rows had timestamps
            text += (f", freshness p99 {last['freshness_p99_s']:.2f} s"
                     f" (read {last['delivery_p99_s']:.2f} s)")
    if stepping > 0:
        text += f", training {trainer.rows / stepping:,.0f} rows/s"
    return text


def percentile(values, q):
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def json_safe(value):
    """``value`` with every NaN or infinity as None: metrics.json stays standard JSON (a window
    without timestamps has no freshness, one of a single class no AUC)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m piper_feed.train",
        description="Train a small DLRM (embedding bags + MLP, CPU) online on a piper stream's"
                    " rows topic and write JSON metrics (rows, windows of progressive AUC and"
                    " log loss, freshness).")
    p.add_argument("--bootstrap-servers", required=True, help="Kafka brokers, host:port[,...]")
    p.add_argument("--rows-topic", required=True, help="the stream's --output-topic")
    p.add_argument("--vocab-topic", help="the stream's --vocab-topic (tables grow as it says)")
    p.add_argument("--max-rows", type=int, help="stop after training on this many rows")
    p.add_argument("--idle-timeout", type=float, default=30.0,
                   help="stop when no record arrived for this many seconds, and wait as long"
                        " for topics the stream has not created yet (default 30)")
    p.add_argument("--metrics-out", required=True, help="JSON file to write the metrics to")
    p.add_argument("--rank", type=int, default=0, help="this worker's rank (default 0)")
    p.add_argument("--world", type=int, default=1,
                   help="number of workers; worker r reads the partitions p with p %% world == r")
    p.add_argument("--window-rows", type=int, default=10_000,
                   help="rows per metrics window (default 10000)")
    p.add_argument("--batch-rows", type=int, default=1024, help="rows per training step")
    p.add_argument("--embedding-dim", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's rate for the MLPs")
    p.add_argument("--embedding-lr", type=float, default=0.05, help="Adagrad's for the tables")
    p.add_argument("--freeze-after-rows", type=int,
                   help="stop updating the model after this many rows (it still scores)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--weight-column",
                   help="a dense column holding each row's weight (the label join's labels.weight,"
                        " for sampled negatives): it weighs the row's loss and is no feature")
    p.add_argument("--calibration-after-rows", type=int, default=50_000,
                   help="the run's calibration (mean predicted CTR against observed, each row"
                        " counting its weight) leaves out this many first rows (default 50000)")
    p.add_argument("--prefetch", type=int, default=4,
                   help="batches the feed reads and decodes ahead, on a thread of its own, while"
                        " the loop trains (default 4; 0: read on the loop's thread)")
    p.add_argument("--checkpoint-dir",
                   help="write model checkpoints here, each with the vocabulary position it was"
                        " trained at (checkpoint-N.pt, checkpoint-N.position.json; for 'piper"
                        " vocab snapshot --position' and serving)")
    p.add_argument("--checkpoint-every-rows", type=int, default=100_000,
                   help="with --checkpoint-dir: a checkpoint each time this many more rows are"
                        " trained, and one at the end (default 100000)")
    args = p.parse_args(argv)
    if args.checkpoint_every_rows < 1:
        p.error(f"--checkpoint-every-rows must be positive, not {args.checkpoint_every_rows}")
    if args.calibration_after_rows < 0:
        p.error(f"--calibration-after-rows must be 0 or more, not {args.calibration_after_rows}")
    if args.prefetch < 0:
        p.error(f"--prefetch must be 0 or more, not {args.prefetch}")
    return args


def main(argv=None):
    args = parse_args(argv)
    # One thread: a step is many small operators, and a second thread halved the steps' speed
    # (54-57k rows/s against 28k on the 2-vCPU machine of docs/ONLINE.md, idle otherwise).
    torch.set_num_threads(1)
    trainer = Trainer(args)
    started = time.time()
    try:
        feed = RowsFeed(args.bootstrap_servers, args.rows_topic, args.vocab_topic,
                        rank=args.rank, world=args.world, idle_timeout_s=args.idle_timeout)
    except FeedError as e:
        print(f"piper_feed.train: {e}", file=sys.stderr)
        return 2
    print(f"train: reading {args.rows_topic} partitions {feed.partitions}"
          + (f" and {args.vocab_topic}" if args.vocab_topic else "")
          + f" from {args.bootstrap_servers}", file=sys.stderr, flush=True)
    last_report = started
    stepping = 0.0  # seconds in training steps
    batches = Prefetcher(feed, depth=args.prefetch) if args.prefetch > 0 else feed
    last_batch = None
    checkpoints = []
    try:
        for block in batches:
            for batch in split(block, args.batch_rows):
                before = time.time()
                trainer.step(batch, before * 1000.0)
                stepping += time.time() - before
                last_batch = batch
            if (args.checkpoint_dir is not None
                    and trainer.rows // args.checkpoint_every_rows > len(checkpoints)):
                checkpoints.append(checkpoint.save(args.checkpoint_dir, trainer, last_batch))
            if time.time() - last_report > 5:
                print(progress(trainer, stepping), file=sys.stderr)
                last_report = time.time()
            if args.max_rows is not None and trainer.rows >= args.max_rows:
                break
        if (args.checkpoint_dir is not None and last_batch is not None
                and checkpoints[-1:] != [checkpoint.stem(args.checkpoint_dir, trainer.rows) + ".pt"]):
            checkpoints.append(checkpoint.save(args.checkpoint_dir, trainer, last_batch))
    except FeedError as e:
        print(f"piper_feed.train: {e}", file=sys.stderr)
        return 1
    finally:
        if batches is feed:
            feed.close()
        else:
            batches.close()  # and the feed
    trainer.finish()
    metrics = {
        "rows": trainer.rows,
        "records": feed.records,
        "blocks": len(feed.seen_blocks),
        "duplicate_blocks": feed.duplicate_blocks,
        "late_blocks": feed.late_blocks,
        "reinitialised_rows": trainer.reinitialised,
        "partitions": feed.partitions,
        "windows": trainer.windows,
        "weight_column": args.weight_column,
        "calibration_after_rows": args.calibration_after_rows,
        **trainer.calibration(),
        "freshness_p50_s": percentile(trainer.freshness, 50),
        "freshness_p99_s": percentile(trainer.freshness, 99),
        "freshness_max_s": max(trainer.freshness, default=float("nan")),
        "delivery_p50_s": percentile(trainer.delivery, 50),
        "delivery_p99_s": percentile(trainer.delivery, 99),
        "delivery_max_s": max(trainer.delivery, default=float("nan")),
        "written_p50_s": percentile(trainer.written, 50),
        "written_p99_s": percentile(trainer.written, 99),
        # freshness from the events' own times, for a spec with input.timestamp (else NaN)
        "event_age_p50_s": percentile(trainer.event_ages, 50),
        "event_age_p99_s": percentile(trainer.event_ages, 99),
        "table_sizes": {f"{c}.{e}": n for (c, e), n in sorted(feed.table_sizes.items())},
        "checkpoints": checkpoints,
        "seconds": time.time() - started,
        "step_seconds": stepping,
        # seconds the loop spent blocked on the feed (with --prefetch; None without)
        "feed_wait_seconds": None if batches is feed else batches.wait_s,
        "feed_read_seconds": None if batches is feed else batches.read_s,
    }
    with open(args.metrics_out, "w") as out:
        json.dump(json_safe(metrics), out, indent=2, allow_nan=False)
    last = trainer.windows[-1]["auc"] if trainer.windows else math.nan
    print(f"train: {trainer.rows:,} rows in {metrics['seconds']:.1f} s, last window AUC {last:.4f},"
          f" calibration {metrics['calibration']:.3f} (mean predicted CTR"
          f" {metrics['mean_predicted_ctr']:.4f}, observed {metrics['observed_ctr']:.4f}),"
          f" freshness p50 {metrics['freshness_p50_s']:.2f} s p99 {metrics['freshness_p99_s']:.2f} s"
          f" (read p99 {metrics['delivery_p99_s']:.2f} s)"
          + (f", event-time age p50 {metrics['event_age_p50_s']:.2f} s" if trainer.event_ages else "")
          + f", {stepping:.1f} s training"
          f" -> {args.metrics_out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
