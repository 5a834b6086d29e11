"""A TorchServe handler that serves a checkpoint of the trainer client without skew, in process.

The model archive holds three files of one position of the feed:

    checkpoint-N.pt          python3 -m piper_feed.train --checkpoint-dir ... (the model)
    spec.json                the pipeline spec the stream ran
    vocabulary.snapshot      piper vocab snapshot --position checkpoint-N.position.json

    torch-model-archiver --model-name clicks --version 1 --handler torchserve_handler.py \\
        --serialized-file checkpoint-N.pt --extra-files spec.json,vocabulary.snapshot

Each request's body is records of the spec's input format, one a line (Criteo text or JSON
events); the answer is, per record in order, the model's click probability, or null for a
record the feed would have rejected, with its reason beside it. The records become the model's
inputs through ``piper_feed.transform`` (the feed's operators and the snapshot's indices, the
vocabulary never growing) and ``serving.batch_from_result`` (the feed's batch layout), so the model
scores a request's rows exactly as the trainer scored the same rows from the feed.

TorchServe calls ``initialize(context)`` once and ``handle(data, context)`` per batch of
requests; nothing here imports TorchServe, so the handler runs (and is tested,
tests/test_handler.py) with any object that has ``system_properties`` and ``manifest``.
"""

import glob
import os

from piper_feed.train import checkpoint
from piper_feed.serve.batches import batch_from_result, check_snapshot, score
from piper_feed.transform import Snapshot, Spec, Transform, TransformError


class PiperHandler:
    """Loads the checkpoint, spec and snapshot of a model directory; scores requests."""

    def __init__(self):
        self.model = self.state = self.transform = None

    def initialize(self, context):
        directory = context.system_properties["model_dir"]
        serialized = ((context.manifest or {}).get("model") or {}).get("serializedFile")
        models = [os.path.join(directory, serialized)] if serialized else sorted(
            glob.glob(os.path.join(directory, "checkpoint-*.pt")))
        if not models:
            raise TransformError(f"{directory}: no checkpoint-*.pt model")
        self.model, self.state = checkpoint.load(models[-1])
        snapshot = Snapshot.load(os.path.join(directory, "vocabulary.snapshot"))
        check_snapshot(snapshot, self.state, models[-1])
        self.transform = Transform(Spec.load(os.path.join(directory, "spec.json")), snapshot)

    def handle(self, data, context):
        return [self.answer(request) for request in data]

    def answer(self, request):
        """One request's answer: a probability per record (null for a dead letter), the dead
        letters with their reasons, the keys the snapshot had no entry for. A body that is not
        records is an answer naming why, never an exception."""
        body = request.get("body") if isinstance(request, dict) else None
        if body is None and isinstance(request, dict):
            body = request.get("data")
        if isinstance(body, str):
            body = body.encode("utf-8")
        if not isinstance(body, (bytes, bytearray)):
            return {"error": "the request has no body of records (one a line)"}
        result = self.transform.apply_lines(bytes(body))
        probabilities = [None] * result.records
        if len(result.rows):
            scores = score(self.model, batch_from_result(result, self.state)).tolist()
            dead = {d[0] for d in result.dead_letters}
            rows = iter(scores)
            for r in range(result.records):
                if r not in dead:
                    probabilities[r] = next(rows)
        return {
            "probabilities": probabilities,
            "dead_letters": [{"record": r, "reason": reason, "detail": detail}
                             for r, reason, detail in result.dead_letters],
            "unknown_keys": {n: k for n, k in result.unknown.items() if k},
        }
