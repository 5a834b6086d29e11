"""The trainer's model: a small DLRM over piper's rows, its embedding rows in one store.

Its own module so that the trainer (``train``) and its checkpoints (``checkpoint``) both import it
and not each other.
"""

import torch
from torch import nn


class EmbeddingStore:
    """Every embedding row of every sparse column in one tensor, trained by Adagrad by hand.

    The rows of one (column, epoch) table fill a region of ``weight``; ``accumulated`` holds
    Adagrad's sums of squared gradients beside them. A region grows as the vocabulary announces
    entries: when it is full it moves to the store's end with double its capacity (new rows
    random, their sums zero), so a growth copies one table and is rare; the space a moved region
    leaves is not reused (at most the live capacity again).

    Why not ``nn.EmbeddingBag`` tables and ``torch.optim.Adagrad``: with one table per column a
    step makes a sparse gradient per table, and Adagrad coalesces, masks and adds each one; on
    Debian's CPU build of PyTorch that was 63% of a 1,024-row step. One lookup over all columns
    and one update of the rows a step touched (sort, sum per row, three indexed operations)
    trains the same model (the same arithmetic as Adagrad's, ``lr_decay`` and weight decay 0)
    1.7 to 2.0 times as fast (``python3 -m piper_feed.bench.step``).
    """

    EPS = 1e-10  # Adagrad's default

    def __init__(self, dim):
        self.dim = dim
        self._weight = torch.empty(0, dim)
        self._accumulated = torch.empty(0, dim)
        self.used = 0  # rows of the store handed to regions
        self.regions = {}  # (column, epoch) -> [start, capacity, rows]

    @property
    def weight(self):
        return self._weight[: self.used]

    @property
    def accumulated(self):
        return self._accumulated[: self.used]

    def start(self, key):
        """The store row of row 0 of ``key``'s table."""
        return self.regions[key][0]

    def rows(self, key):
        """The rows ``key``'s table holds."""
        return self.regions[key][2]

    def ensure(self, key, rows):
        """Makes ``key``'s table hold ``rows`` rows (a new table's rows and any added are random,
        uniform in [-0.05, 0.05], with no accumulated gradient)."""
        region = self.regions.get(key)
        if region is not None and rows <= region[1]:
            region[2] = max(region[2], rows)
            return
        old = 0 if region is None else region[1]
        capacity = max(rows, 2 * old, 64)
        start = self._reserve(capacity)
        self._weight[start: start + capacity].uniform_(-0.05, 0.05)
        self._accumulated[start: start + capacity].zero_()
        if region is not None:
            self._weight[start: start + old] = self._weight[region[0]: region[0] + old]
            self._accumulated[start: start + old] = self._accumulated[region[0]: region[0] + old]
        self.regions[key] = [start, capacity, max(rows, 0 if region is None else region[2])]

    def _reserve(self, capacity):
        if self.used + capacity > self._weight.shape[0]:
            size = max(self.used + capacity, 2 * self._weight.shape[0])
            for name in ("_weight", "_accumulated"):
                grown = torch.empty(size, self.dim)
                grown[: self.used] = getattr(self, name)[: self.used]
                setattr(self, name, grown)
        start = self.used
        self.used += capacity
        return start

    def reinitialise(self, key, indices):
        """Rows ``indices`` of ``key``'s table start afresh, as a new entry's would."""
        at = indices + self.start(key)
        self._weight[at] = torch.empty(len(indices), self.dim).uniform_(-0.05, 0.05)
        self._accumulated[at] = 0

    def lookup(self, ids):
        """The rows of store ids ``ids`` (one per use), as a tensor the loss's gradient reaches."""
        return self._weight.index_select(0, ids).requires_grad_()

    def restore(self, weight, regions):
        """The store as a checkpoint saved it: ``weight`` the used rows, ``regions`` by
        ``"column/epoch"`` its tables' ``[start, capacity, rows]``; sums of squares zero."""
        self._weight = weight.clone()
        self._accumulated = torch.zeros_like(weight)
        self.used = weight.shape[0]
        self.regions = {}
        for key, region in regions.items():
            column, epoch = key.rsplit("/", 1)
            self.regions[(column, int(epoch))] = list(region)

    def adagrad(self, ids, grads, lr):
        """Adagrad's step for the rows ``ids`` named (``grads``: one gradient per use, as
        ``lookup``'s tensor received them): each row's gradients summed, its accumulated squares
        grown, the row moved by ``lr`` times gradient over root of its sum."""
        ordered, order = torch.sort(ids)
        rows, inverse = torch.unique_consecutive(ordered, return_inverse=True)
        grad = torch.zeros(len(rows), self.dim).index_put_(
            (inverse,), grads.index_select(0, order), accumulate=True)
        accumulated = self._accumulated.index_select(0, rows).addcmul_(grad, grad)
        self._accumulated.index_put_((rows,), accumulated)
        step = grad.div_(accumulated.sqrt_().add_(self.EPS))
        self._weight.index_put_((rows,), self._weight.index_select(0, rows).sub_(step, alpha=lr))


class Lookup:
    """One step's embedding rows: the store ids it used and their rows, which take the loss's
    gradient."""

    def __init__(self, ids, rows):
        self.ids = ids
        self.rows = rows


class Dlrm(nn.Module):
    """Bottom MLP over the dense values, one table per sparse column, top MLP over both."""

    def __init__(self, dense, sparse_columns, dim=16):
        super().__init__()
        self.dim = dim
        self.bottom = nn.Sequential(nn.Linear(dense, 64), nn.ReLU(), nn.Linear(64, dim), nn.ReLU())
        self.columns = list(sparse_columns)
        self.store = EmbeddingStore(dim)
        self.top = nn.Sequential(
            nn.Linear(dim * (1 + len(self.columns)), 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, batch):
        """The batch's logits and the embedding rows they used: a single-id column's row per
        row, a list column's rows summed per row (an empty list gives zeros)."""
        x = self.bottom(torch.log1p(torch.clamp(batch.dense, min=0)))
        ids = []
        for name in self.columns:
            key = (name, batch.epochs[name])
            used = (batch.lists[name][0] if name in batch.lists
                    else batch.sparse[:, batch.sparse_names.index(name)])
            # one table's rows sit beside another's: an index past its table would train a
            # neighbour's row without a word (a table as small as its vocabulary refused it)
            if len(used) and int(used.max()) >= self.store.rows(key):
                raise IndexError(f"{name} (epoch {key[1]}): index {int(used.max())} past its"
                                 f" table of {self.store.rows(key)} rows")
            ids.append(used + self.store.start(key))
        every = torch.cat(ids) if ids else torch.empty(0, dtype=torch.int64)
        lookup = Lookup(every, self.store.lookup(every))
        parts = [x]
        # one split (its gradient is one concatenation; a slice per column would add a gradient
        # the size of all rows per column)
        for name, rows in zip(self.columns, lookup.rows.split([len(used) for used in ids])):
            if name in batch.lists:
                offsets = batch.lists[name][1]
                parts.append(nn.functional.embedding_bag(
                    torch.arange(len(rows)), rows, offsets[:-1], mode="sum"))
            else:
                parts.append(rows)
        return self.top(torch.cat(parts, dim=1)).squeeze(1), lookup
