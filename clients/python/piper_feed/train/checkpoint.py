"""Model checkpoints that name the vocabularies they were trained with.

A model trained on the feed is only right for the vocabulary position its embedding rows were
trained at: an index means the key the vocabulary had given it then. So each checkpoint is two
files, written whole or not at all:

    checkpoint-000000100000.pt              the model (torch.save of a dict, see ``save``)
    checkpoint-000000100000.position.json   the vocabulary position of the last batch trained

The position file is what ``piper vocab snapshot --position FILE`` reads to write the
vocabularies at that position from the stream's vocabulary topic, which ``piper serve
--snapshot`` then serves with (docs/SERVING.md). The position file is renamed into place before
the model: a model file present always has its position beside it.
"""

import json
import os

import torch

from .model import Dlrm
from ..feed.records import FeedError


def stem(directory, rows):
    """The common path of the checkpoint after ``rows`` trained rows (without its suffix)."""
    return os.path.join(directory, f"checkpoint-{rows:012d}")


def save(directory, trainer, batch):
    """Writes the trainer's model and the position of ``batch`` (the last one it trained on);
    returns the model file's path. Refuses a batch without a position (a stream run without
    --vocab-topic): a checkpoint that cannot be served without skew is not written."""
    position = batch.position_document(
        source=f"trainer checkpoint after {trainer.rows} rows, block {batch.source}")
    if position is None:
        raise FeedError(f"block {batch.source} states no vocabulary position: run the stream with"
                         " --vocab-topic to checkpoint models that can be served")
    os.makedirs(directory, exist_ok=True)
    base = stem(directory, trainer.rows)
    model = trainer.model
    state = {
        "rows": trainer.rows,
        "pipeline": batch.pipeline,
        "dense": trainer.shape[0],
        "columns": list(model.columns),
        "embedding_dim": model.dim,
        "model": model.state_dict(),
        "embeddings": model.store.weight.clone(),
        # (column, epoch) -> [first store row, capacity, rows]
        "regions": {f"{c}/{e}": list(r) for (c, e), r in model.store.regions.items()},
        "position": position,
        # the dense column the rows were weighed by, no input of the model (None: none)
        "weight_column": trainer.args.weight_column,
    }
    with open(base + ".position.json.tmp", "w") as out:
        json.dump(position, out, indent=2)
    torch.save(state, base + ".pt.tmp")
    os.replace(base + ".position.json.tmp", base + ".position.json")
    os.replace(base + ".pt.tmp", base + ".pt")
    return base + ".pt"


def load(path):
    """The model of a checkpoint file, ready to score batches (``model(batch)[0]`` are the
    logits), and the checkpoint's dict (its ``position`` among the rest)."""
    state = torch.load(path, weights_only=True)
    model = Dlrm(state["dense"], state["columns"], state["embedding_dim"])
    model.load_state_dict(state["model"])
    model.store.restore(state["embeddings"], state["regions"])
    model.eval()
    # a served row has the weight's column too (0: a request has no labels); score() drops it
    model.weight_column = state.get("weight_column")
    return model, state
