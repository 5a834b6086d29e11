"""The rows ``piper serve`` answers, as the batches the trainer trained on.

A model checkpointed by ``python3 -m piper_feed.train --checkpoint-dir`` scores a request's rows
exactly as it scored the feed's: ``piper serve --snapshot`` (the vocabularies at the checkpoint's
position) turns the request's records into the rows the feed would have made of them, and
``batch_from_answer`` lays them out as the feed's ``Batch`` (the same dense, sparse and list
tensors, decoded by the same code as a rows record):

    model, state = checkpoint.load("models/checkpoint-000000100352.pt")
    with urllib.request.urlopen("http://127.0.0.1:8089/transform", data=body) as r:
        batch = batch_from_answer(json.load(r), state)
    probabilities = score(model, batch)

Rows only: the answer's dead letters (records the feed would reject) have no row.

In process, without a server: ``piper_feed.transform`` makes the same rows from the same spec and
snapshot, and ``batch_from_result`` lays them out alike (``examples/handler.py`` serves a
checkpoint that way, as a TorchServe handler).
"""

import numpy as np
import torch

from ..feed.rows import batch_of
from ..feed.records import FeedError, RowsBlock, check_indices, row_layout


def batch_from_answer(answer, state=None, where="answer"):
    """The rows of a ``POST /transform`` answer (its parsed JSON) as a ``Batch``. ``state``, a
    checkpoint's dict (``checkpoint.load``), gives the batch the pipeline, epochs and table sizes
    the model was trained at; without it every column is in epoch 0 and the tables are as large as
    the batch needs."""
    columns = answer.get("columns")
    if not columns:
        raise FeedError(f"{where}: no \"columns\" (an answer of an older piper serve?)")
    floats = set(answer.get("float32_columns", []))
    rows = answer.get("rows", [])
    width = len(columns)
    matrix = np.zeros((len(rows), width), dtype="<i4")
    for r, row in enumerate(rows):
        if len(row) != width:
            raise FeedError(f"{where}: row {r} has {len(row)} values for {width} columns")
        for j, name in enumerate(columns):
            if name in floats:  # its value's float32 bits, as the feed's rows hold them
                matrix[r, j] = np.array([row[j]], dtype="<f4").view("<i4")[0]
            else:
                matrix[r, j] = row[j]
    lists = {}
    for name, per_row in (answer.get("lists") or {}).items():
        if len(per_row) != len(rows):
            raise FeedError(f"{where}: list {name} has {len(per_row)} rows, the answer"
                            f" {len(rows)}")
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(ids) for ids in per_row], out=offsets[1:])
        values = np.array([i for ids in per_row for i in ids], dtype=np.int64)
        lists[name] = (values, offsets)
    return _batch(list(columns), floats, matrix, lists, answer.get("event_times"), state, where)


def batch_from_result(result, state=None, where="request"):
    """The rows of a ``piper_feed.transform`` result as a ``Batch``, as ``batch_from_answer``
    lays out ``piper serve``'s answer for the same records (without a JSON round trip)."""
    spec = result.spec
    floats = {c.name for c in spec.columns if c.float32 and not c.onehot}
    lists = {name: (indices.astype(np.int64), offsets.astype(np.int64))
             for name, (offsets, indices) in result.lists.items()}
    return _batch(spec.row_columns, floats, result.rows, lists, result.event_times, state, where)


def _batch(columns, floats, matrix, lists, times, state, where):
    """A batch of rows in rows.bin's layout (int32 slots, a float32 column's bits), named by
    ``columns``, with their list columns' (values, offsets)."""
    layout = row_layout(",".join(columns), ",".join(sorted(floats)))
    rows = len(matrix)
    dense = np.empty((rows, len(layout.dense_names)), dtype=np.float32)
    if len(layout.int_slots):
        dense[:, layout.int_slots] = matrix[:, layout.int_columns].astype(np.float32)
    if len(layout.float_slots):
        dense[:, layout.float_slots] = matrix[:, layout.float_columns].view("<f4")
    sparse = matrix[:, layout.sparse_idx].astype(np.int64)
    check_indices(where, where, list(layout.sparse_names), sparse,
                  {n: v for n, (v, _) in lists.items()})
    names = sorted(list(layout.sparse_names) + list(lists), key=lambda n: int(n[1:]))
    trained = state["position"]["columns"] if state else {}
    epochs = {n: trained.get(n, {}).get("epoch", 0) for n in names}
    block = RowsBlock(
        where=where, input_topic="", input_partition=-1, block=-1,
        pipeline=state["pipeline"] if state else "", columns=list(columns),
        labels=np.ascontiguousarray(matrix[:, 0]), dense=dense,
        dense_names=list(layout.dense_names), sparse=sparse,
        sparse_names=list(layout.sparse_names), lists=lists, epochs=epochs,
        buckets={n: trained.get(n, {}).get("oov_buckets", 0) for n in names},
        event_times_ms=None if times is None else np.asarray(times, dtype=np.int64))
    return batch_of(block, table_sizes(block, state))


def table_sizes(block, state=None):
    """The rows each of the block's tables needs: the checkpoint's (``state``) where it has the
    table, else as many as the block's largest index needs (an index past a trained table gets
    an untrained row, as a new entry does in training)."""
    sizes = {}
    if state:
        for key, region in state["regions"].items():
            column, epoch = key.rsplit("/", 1)
            sizes[(column, int(epoch))] = region[2]
    for name, top in block.max_indices().items():
        key = (name, block.epochs[name])
        sizes[key] = max(sizes.get(key, 0), top + 1)
    return sizes


def check_snapshot(snapshot, state, model="the checkpoint"):
    """Refuses a snapshot (``transform.Snapshot``) of other vocabularies than the ones a
    checkpoint's model was trained with: its pipeline, and each column at the checkpoint's epoch
    and position. Raises FeedError naming the first column that differs."""
    trained = state["position"]["columns"]
    if snapshot.pipeline != state["pipeline"]:
        raise FeedError(f"the snapshot is of pipeline {snapshot.pipeline}, {model} of"
                        f" {state['pipeline']}")
    for col in snapshot.columns:
        at = trained.get(col.name)
        if at is not None and (col.epoch, col.position) != (at["epoch"], at["position"]):
            raise FeedError(
                f"the snapshot holds {col.name} at epoch {col.epoch} position {col.position};"
                f" {model} was trained at epoch {at['epoch']} position {at['position']}: write"
                " the snapshot with piper vocab snapshot --position of the checkpoint's position"
                " file")


def score(model, batch):
    """The model's click probabilities for the batch's rows (no gradient); a model trained with
    ``--weight-column`` leaves that column out, as its training did. An index past a table
    the model was trained with (the reserved index a column without OOV buckets gives a key its
    snapshot lacks) gets an embedding row of its own, untrained, as new entries do in training."""
    weight = getattr(model, "weight_column", None)
    if weight is not None and weight in (batch.dense_names or []):
        batch = batch.without_dense(weight)  # trained with --weight-column: no input of it
    for name in model.columns:
        key = (name, batch.epochs[name])
        model.store.ensure(key, max(batch.table_sizes.get(key, 0), 1))
    with torch.no_grad():
        return torch.sigmoid(model(batch)[0])
