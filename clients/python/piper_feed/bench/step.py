"""How fast the trainer's step is, against PyTorch's usual formulation, in one run.

    python3 -m piper_feed.bench.step [--rounds 5] [--steps 40] [--batch-rows 1024]

Both train the same DLRM (``train.Dlrm``'s MLPs, Criteo's 13 dense and 26 sparse columns, ids
skewed as click logs are) on the same seeded batches, one thread each (as ``train`` runs):

- ``tables``: one embedding-bag table per column with sparse gradients and
  ``torch.optim.Adagrad``, as PyTorch's DLRM example trains its tables;
- ``store``: the trainer's ``EmbeddingStore`` (one lookup over all columns, Adagrad by hand).

Rounds alternate between the two; the line per round and the medians say ms per step and rows/s,
and the last line the ratio of the medians (tables' time / store's).
"""

import argparse
import statistics
import time

import numpy as np
import torch
from torch import nn

from ..feed.rows import Batch
from ..train.model import Dlrm
from ..train.loop import learn

DENSE = 13
SPARSE = 26


def batches(count, rows, seed):
    """Seeded Criteo-shaped batches: table sizes from 10 to 100,000, ids Zipf-distributed."""
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in np.exp(rng.uniform(np.log(10), np.log(100_000), SPARSE))]
    names = [f"C{j + 1}" for j in range(SPARSE)]
    made = []
    for _ in range(count):
        ids = np.stack([(rng.zipf(1.2, rows) - 1) % s for s in sizes], axis=1)
        made.append(Batch(
            labels=torch.from_numpy((rng.random(rows) < 0.25).astype(np.float32)),
            dense=torch.from_numpy(rng.exponential(10.0, (rows, DENSE)).astype(np.float32)),
            sparse=torch.from_numpy(ids.astype(np.int64)), sparse_names=names, lists={},
            epochs={n: 0 for n in names}, table_sizes={(n, 0): s for n, s in zip(names, sizes)},
            timestamps_ms=None, source=("bench", 0, 0), pipeline="bench"))
    return made, sizes


class Tables:
    """One embedding-bag table per column, sparse gradients, torch.optim.Adagrad."""

    def __init__(self, sizes, dim, lr, embedding_lr):
        self.model = Dlrm(DENSE, [f"C{j + 1}" for j in range(SPARSE)], dim)
        self.tables = [nn.EmbeddingBag(s, dim, mode="sum", sparse=True) for s in sizes]
        for t in self.tables:
            nn.init.uniform_(t.weight, -0.05, 0.05)
        self.dense_opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.sparse_opt = torch.optim.Adagrad([t.weight for t in self.tables], lr=embedding_lr)

    def step(self, batch):
        x = self.model.bottom(torch.log1p(torch.clamp(batch.dense, min=0)))
        every_row = torch.arange(batch.rows)
        parts = [x] + [t(batch.sparse[:, j], every_row) for j, t in enumerate(self.tables)]
        logits = self.model.top(torch.cat(parts, dim=1)).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, batch.labels)
        self.dense_opt.zero_grad()
        self.sparse_opt.zero_grad()
        loss.backward()
        self.dense_opt.step()
        self.sparse_opt.step()


class Store:
    """The trainer's model: ``Dlrm`` with its ``EmbeddingStore``."""

    def __init__(self, sizes, dim, lr, embedding_lr):
        self.model = Dlrm(DENSE, [f"C{j + 1}" for j in range(SPARSE)], dim)
        for j, s in enumerate(sizes):
            self.model.store.ensure((f"C{j + 1}", 0), s)
        self.dense_opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.embedding_lr = embedding_lr

    def step(self, batch):
        logits, lookup = self.model(batch)
        learn(self.model, self.dense_opt, logits, lookup, batch.labels, self.embedding_lr)


def timed(trainer, made):
    started = time.perf_counter()
    for batch in made:
        trainer.step(batch)
    return (time.perf_counter() - started) / len(made)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m piper_feed.bench.step", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5, help="timed rounds of each (default 5)")
    p.add_argument("--steps", type=int, default=40, help="steps per round (default 40)")
    p.add_argument("--batch-rows", type=int, default=1024, help="rows per step (default 1024)")
    p.add_argument("--embedding-dim", type=int, default=16)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    made, sizes = batches(args.steps, args.batch_rows, args.seed)
    kinds = {"tables": Tables(sizes, args.embedding_dim, 1e-3, 0.05),
             "store": Store(sizes, args.embedding_dim, 1e-3, 0.05)}
    for trainer in kinds.values():
        timed(trainer, made[: max(1, args.steps // 4)])  # warm-up
    seconds = {name: [] for name in kinds}
    for r in range(args.rounds):
        for name, trainer in kinds.items():
            s = timed(trainer, made)
            seconds[name].append(s)
            print(f"round {r + 1} {name:6s} {s * 1000:6.1f} ms/step"
                  f" {args.batch_rows / s:9,.0f} rows/s", flush=True)
    medians = {name: statistics.median(v) for name, v in seconds.items()}
    for name, s in medians.items():
        print(f"median {name:6s} {s * 1000:6.1f} ms/step {args.batch_rows / s:9,.0f} rows/s")
    print(f"ratio tables/store {medians['tables'] / medians['store']:.2f}"
          f" ({args.batch_rows} rows, {SPARSE} sparse columns, dim {args.embedding_dim},"
          f" torch {torch.__version__}, 1 thread)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
